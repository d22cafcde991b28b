-- SPDX-License-Identifier: MIT
-- regress-args-nomem.lua: a guest call whose argument buffer cannot grow (regress.t fails that realloc) returns ENOMEM, not a call without its argument.
return {
  name = "regress argument buffer out of memory",
  run = function(t)
    local vm = assert(t:vm())
    local ok, err, name = vm:request(1, "echo", ("x"):rep(1 << 20))
    t:eq({ nil, "ENOMEM" }, { ok, name }, "the call fails as out of memory (" .. tostring(err) .. ")")
  end,
}
