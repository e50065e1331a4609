-- busted output handler: busted's plain terminal output, then one line
-- "busted: N passed, N failed" that scripts/run-tests.sh adds up.
return function(options)
  local busted = require 'busted'
  local handler = require('busted.outputHandlers.plainTerminal')(options)
  busted.subscribe({ 'suite', 'end' }, function()
    local failed = handler.failuresCount + handler.errorsCount
    io.write(('busted: %d passed, %d failed\n'):format(handler.successesCount, failed))
    io.flush()
    return nil, true
  end)
  return handler
end
