-- fail-when-marked.lua: mutate.t's stand-in for a mutant that a scenario kills: ok, but FAILED once MUTATE_T_FAIL names a file that exists.
return {
  name = "mutate.t: a failure once the mark exists",
  run = function(t)
    local mark = os.getenv("MUTATE_T_FAIL")
    local f = mark and io.open(mark, "r")
    if f then f:close() end
    t:expect(f == nil, "no mark: the unmutated kernel's run")
  end,
}
