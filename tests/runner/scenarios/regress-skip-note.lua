-- SPDX-License-Identifier: MIT
-- regress-skip-note.lua: a t:note before t:skip is not the SKIP reason and stays whole in the reports (strtok once cut them).
return {
  name = "regress skip after a note",
  run = function(t)
    assert(t:vm())
    t:note("regress first note line\nregress second note line")
    t:skip("regress skip reason")
  end,
}
