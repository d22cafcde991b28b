-- hang-when-marked.lua: mutate.t's stand-in for a mutant that hangs: ok, but once MUTATE_T_HANG names a file that exists, a loop that only the timeout ends.
return {
  name = "mutate.t: a hang once the mark exists",
  run = function(t)
    local mark = os.getenv("MUTATE_T_HANG")
    local f = mark and io.open(mark, "r")
    if not f then
      t:expect(true, "no mark: the unmutated kernel's run")
      return
    end
    f:close()
    while true do end
  end,
}
