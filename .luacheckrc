-- .luacheckrc: luacheck's settings for every Lua file of the tree (tests/lint.t runs it): scenarios, their
-- libraries, the runner's test scenarios, the kselftests driver and the benchmark scenarios.
-- Lua 5.4, the version the runner embeds; scenarios get no globals beyond its standard library (the umlbed module
-- and t come from require and from run's arguments).
std = "lua54"
-- Code as wide as the C (.clang-format's ColumnLimit). A file's first line says what it is for, on one line,
-- however long: comments have no limit.
max_code_line_length = 120
max_string_line_length = 120
max_comment_line_length = false
