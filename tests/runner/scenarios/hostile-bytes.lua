-- SPDX-License-Identifier: MIT
-- hostile-bytes.lua: invalid UTF-8 and control bytes in a failure message: the JSON and JUnit reports stay valid.
-- (t:fail, not t:eq: t:eq escapes the bytes of the values it shows, t:fail passes its message on as it is.)
return {
  name = "hostile bytes",
  run = function(t)
    t:fail("binary \x02: got \xff\xfe\x01, want x")
  end,
}
