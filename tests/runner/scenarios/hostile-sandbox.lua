-- SPDX-License-Identifier: MIT
-- hostile-sandbox.lua: the sandbox removes what escapes it, refuses binary chunks, and keeps debug.getinfo and debug.traceback.
return {
  name = "hostile sandbox",
  run = function(t)
    for _, name in ipairs { "os.exit", "os.execute", "io.popen", "package.loadlib", "debug.sethook", "debug.setlocal",
                            "debug.setupvalue" } do
      local v = _ENV
      for k in name:gmatch("[^.]+") do
        if type(v) == "table" then v = v[k] else v = nil end
      end
      t:eq(nil, v, name .. " is nil")
    end
    t:eq("function", type(debug.getinfo), "debug.getinfo stays")
    t:eq("function", type(debug.traceback), "debug.traceback stays")
    t:eq("hostile-sandbox.lua", debug.getinfo(1, "S").short_src:match("hostile%-sandbox%.lua$"), "debug.getinfo works")
    t:expect(tostring(debug.traceback("tb")):find("hostile%-sandbox%.lua"), "debug.traceback works")
    -- Binary chunks are refused whatever mode is asked for.
    local dumped, derr = pcall(string.dump, function() return 1 end)
    if dumped then
      local chunk = derr
      for _, mode in ipairs { "default", "b", "bt" } do
        local f, msg
        if mode == "default" then f, msg = load(chunk) else f, msg = load(chunk, "=dumped", mode) end
        t:eq(nil, f, "load of a binary chunk (mode " .. mode .. ") fails")
        t:eq("string", type(msg), "with a message (mode " .. mode .. ")")
      end
      local parts, i = { chunk }, 0
      local f = load(function() i = i + 1; return parts[i] end)
      t:eq(nil, f, "load of a binary chunk from a reader function fails")
    end
    -- A precompiled file (the test makes one) is refused by loadfile and dofile too.
    local bin = os.getenv("HOSTILE_BINARY")
    if bin and loadfile then
      t:eq(nil, (loadfile(bin)), "loadfile of a precompiled file fails")
      t:eq(nil, (loadfile(bin, "b")), "loadfile of a precompiled file fails in mode b")
    end
    if bin and dofile then t:eq(false, (pcall(dofile, bin)), "dofile of a precompiled file fails") end
  end,
}
