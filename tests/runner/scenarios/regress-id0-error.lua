-- SPDX-License-Identifier: MIT
-- regress-id0-error.lua: the guest answers a request with an error reply of ID 0 (regress/fake-id0.sh): ERROR, not
-- TIMEOUT (a reply of ID 0 was once dropped and the run waited for its timer).
return {
  name = "regress ID-0 error reply",
  run = function(t)
    local vm = assert(t:vm())
    -- Whether the call raises or returns nil and the error, the scenario ends in an ERROR carrying the agent's text.
    assert(vm:request(1, "echo", "hi"))
    t:fail("the request succeeded although the guest answered it with an error")
  end,
}
