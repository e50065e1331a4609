/* cg_gopx_end.h: undefines what cg_gopx_begin.h defines. */
#undef A0
#undef A1
#undef A2
#undef C
#undef R
#undef XI
#undef V
#undef K
#undef P
#undef M
#undef OUT
#undef SEL
#undef GA
#undef GR
