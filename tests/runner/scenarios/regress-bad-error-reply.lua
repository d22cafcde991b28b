-- SPDX-License-Identifier: MIT
-- regress-bad-error-reply.lua: an error reply whose message is malformed percent-encoding raises in the call's continuation; the call's record must still be freed (regress.t runs this under valgrind).
return {
  name = "regress malformed error reply",
  run = function(t)
    local vm = assert(t:vm())
    local ok, err = pcall(vm.request, vm, 1, "fail", "EINVAL", "%ZZ")
    t:eq(false, ok, "the malformed reply raises")
    t:eq(true, tostring(err):find("malformed percent-encoding", 1, true) ~= nil,
      "naming the encoding (" .. tostring(err) .. ")")
  end,
}
