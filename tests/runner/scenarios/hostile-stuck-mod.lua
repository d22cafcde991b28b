-- SPDX-License-Identifier: MIT
-- hostile-stuck-mod.lua: a module whose top-level code loops in pcall (required by hostile-stuck.lua; not a scenario: it returns no table).
while true do pcall(function() while true do end end) end
