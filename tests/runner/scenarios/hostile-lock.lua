-- SPDX-License-Identifier: MIT
-- hostile-lock.lua: replaces the runner's lock file in TMPDIR (.umlbed-UID.lock) by a folder, which broke every
-- later run of that user (trust.t I).
return {
  name = "hostile lock file",
  run = function(t)
    local lock = assert(os.getenv("HOSTILE_LOCK"))
    local removed, rerr = os.remove(lock)
    -- A folder to put in its place: the run's own root, beneath the run folder.
    local vm = assert(t:vm())
    local root = assert(vm.shared:match("^(.*)/shared$"))
    local moved, merr = os.rename(root, lock)
    t:note(("removing the lock: %s; a folder in its place: %s"):format(tostring(removed or rerr),
      tostring(moved or merr)))
  end,
}
