#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# meta.t: the LuaLS definitions (runner/lua/meta/) declare every documented name, only what exists at run time, each function annotated, and pass luac5.4 and luacheck.
#
# The declarations are read by tests/runner/scenarios/meta-decls.lua (host lua5.4); what exists is listed by the
# scenario meta-api.lua on the fake UML (methods from each object's metatable, module keys, fields read by name)
# and by the C getters' field names. Each check first fails on a planted copy: a method or field added or removed,
# an annotation dropped, a syntax error, a documented name the definitions lack.
. "$(dirname "$0")/common.sh"
export UMLBED_FAKE=agent
F=(--fake-uml --kernel "$UMLBED_TEST" --agent "$UMLBED_TEST")
need_jq
command -v lua5.4 >/dev/null || prereq_skip_all "no lua5.4 to read the definitions (Debian package lua5.4)"
H=$SCEN/meta-decls.lua
META=$SRC/runner/lua/meta
DOCS=("$SRC"/docs/lua-vm.md "$SRC"/docs/lua-proc.md "$SRC"/docs/lua-mapping.md "$SRC"/docs/lua-file.md
  "$SRC"/docs/lua-t.md "$SRC"/docs/scenarios.md)
CSRC=("$SRC"/runner/lua/*.c "$SRC"/runner/lua/lumlbed.h)

# meta_files DIR: the definition files under DIR, sorted.
meta_files() { find "$1" -name '*.lua' | sort; }
# decls DIR OUT: the declarations of DIR's files, in meta-decls.lua's format.
decls() { mapfile -t _files < <(meta_files "$1") && lua5.4 "$H" decls "${_files[@]}" >"$2"; }
# lint DIR: what DIR's functions and fields lack ($T/lint.out).
lint() { mapfile -t _files < <(meta_files "$1") && lua5.4 "$H" lint "${_files[@]}" >"$T/lint.out"; }
# runtime DECLS OUT: the API at run time, the fields read being DECLS' and the C getters'; ok when the run is ok.
runtime() {
  { awk '$1 == "field" { print $2, $3 }' "$1"; awk '{ print $2, $3 }' "$T/cgetters"; } | sort -u >"$T/probe"
  rm -f "$2"
  UMLBED_META_OUT=$2 UMLBED_META_PROBE=$T/probe run run "${F[@]}" --unsafe-lua "$SCEN/meta-api.lua"
  verdict_is "meta: the API at run time" ok || { diag "$T/out" "$T/err"; return 1; }
}
# says FILE TEXT: a line of FILE is TEXT or ends with ": TEXT" (a finding, after its FILE:LINE if it has one): what a
# planted fault must make a check print.
says() {
  awk -v t="$2" '$0 == t || substr($0, length($0) - length(t) - 1) == ": " t { found = 1 } END { exit !found }' "$1" ||
    { echo "# no line '$2' in:" && sed 's/^/#   /' "$1"; } >&2
}
# mutant NAME: a copy of the definitions at $T/NAME to plant a fault in.
mutant() { rm -rf "${T:?}/$1" && cp -r "$META" "$T/$1" && echo "$T/$1"; }

# ---- The files: there, each saying on its first line what it is for. ----
mapfile -t files < <(meta_files "$META")
check "there are definition files (${#files[@]}: umlbed.lua, t.lua and one per bed module)" [ ${#files[@]} = 10 ]
for f in "${files[@]}"; do
  # ---@meta first (the language server wants it there), then the licence line, then what the file is for.
  check "${f#"$SRC"/}: a ---@meta file whose next line but its SPDX line says what it is for" \
    awk 'NR == 1 && $0 != "---@meta" { exit 1 } NR == 1 { next } /^-- SPDX-License-Identifier: / && !s { s = 1; next }
      !/^-- [^ ]+\.lua: / { exit 1 } { exit 0 }' "$f"
done
check "runner/lua/meta/README.md: its first line says what the folder is for" \
  grep -q '^# .*LuaLS\|^# .*lua-language-server' <(head -n 1 "$META/README.md")

# ---- What is declared, and what the C getters answer. ----
check "the declarations are read" decls "$META" "$T/decls"
lua5.4 "$H" cgetters "${CSRC[@]}" >"$T/cgetters"
ok $? "the C getters' fields are read"
check "the reader sees the vm's methods and fields, the bed modules' functions" \
  grep -qxF -e 'function umlbed.vm spawn' -e 'field umlbed.vm pagesize req' -e 'function umlbed.bed setup' "$T/decls"

# ---- (a) Every name the docs give (tables, `obj:method`, `obj.field`, `module.function`) is declared. ----
lua5.4 "$H" docs "$T/decls" "${DOCS[@]}" >"$T/docs.out"
ok $? "docs: every documented method and field is declared"
diag "$T/docs.out"
m=$(mutant no-spawn)
sed -i '/^function vm:spawn() end$/d' "$m/umlbed.lua"
decls "$m" "$T/decls.no-spawn"
lua5.4 "$H" docs "$T/decls.no-spawn" "${DOCS[@]}" >"$T/docs.out"
check "docs, planted: vm:spawn removed is reported" says "$T/docs.out" "umlbed.vm:spawn is documented, not declared"
# A documented name that nothing declares: a row added to a copy of lua-vm.md.
sed 's/^| `vm:spawn()` |/| `vm:frobnicate()` | x | x |\n&/' "$SRC/docs/lua-vm.md" >"$T/lua-vm.md"
lua5.4 "$H" docs "$T/decls" "$T/lua-vm.md" >"$T/docs.out"
check "docs, planted: a documented vm:frobnicate is reported" \
  says "$T/docs.out" "umlbed.vm:frobnicate is documented, not declared"
# The scenario table's fields (scenarios.md) and the boot options (lua-vm.md) are tables of names too.
m=$(mutant no-skip)
sed -i '/^---@field skip? string/d; /^---@field time_travel? /d' "$m/umlbed.lua"
decls "$m" "$T/decls.no-skip"
lua5.4 "$H" docs "$T/decls.no-skip" "${DOCS[@]}" >"$T/docs.out"
check "docs, planted: the scenario table's skip removed is reported" \
  says "$T/docs.out" "umlbed.scenario.skip is documented, not declared"
check "docs, planted: the boot option time_travel removed is reported" \
  says "$T/docs.out" "umlbed.vm_opts.time_travel is documented, not declared"

# ---- (b) Nothing is declared that does not exist, and everything that exists is declared. ----
check "the API at run time is listed (fake UML, --unsafe-lua)" runtime "$T/decls" "$T/rt"
lua5.4 "$H" missing "$T/decls" "$T/rt" >"$T/missing.out"
ok $? "run time: everything declared is there (methods, functions, fields that are not optional)"
diag "$T/missing.out"
lua5.4 "$H" extra "$T/decls" "$T/rt" >"$T/extra.out"
ok $? "run time: everything there is declared (methods, module keys, fields)"
diag "$T/extra.out"
lua5.4 "$H" extra "$T/decls" "$T/cgetters" >"$T/extra.out"
ok $? "C getters: every field a getter answers is declared"
diag "$T/extra.out"
# Planted: a method and a field that do not exist, a method and a bed function removed, a field removed, a class of
# methods the run never samples.
m=$(mutant bogus)
# Planted before the file's last line, its return.
sed -i '$d' "$m/umlbed.lua"
cat >>"$m/umlbed.lua" <<'EOF'
---Does nothing: a method that does not exist.
---@return nil
function vm:bogus() end

---A class whose methods nothing samples.
---@class umlbed.unsampled
local unsampled = {}

---Does nothing.
---@return nil
function unsampled:nothing() end

return umlbed
EOF
sed -i 's/^---@field boot_ms number .*/&\n---@field bogus_field integer a field that does not exist/' "$m/umlbed.lua"
decls "$m" "$T/decls.bogus"
check "run time, planted: the scenario reads the planted field" runtime "$T/decls.bogus" "$T/rt.bogus"
lua5.4 "$H" missing "$T/decls.bogus" "$T/rt.bogus" >"$T/missing.out"
check "run time, planted: vm:bogus is reported" says "$T/missing.out" "umlbed.vm:bogus is declared, not there at run time"
check "run time, planted: vm.bogus_field is reported" \
  says "$T/missing.out" "umlbed.vm.bogus_field is declared (not optional), nil at run time"
check "run time, planted: a class of methods that was never sampled is reported" \
  says "$T/missing.out" "umlbed.unsampled declares functions, and the run sampled no such object"
m=$(mutant removed)
sed -i '/^function vm:spawn() end$/d; /^---@field boot_ms /d; /^---@field [[]string[]] any /d' "$m/umlbed.lua"
sed -i '/^function bed.loops(/d' "$m/umlbed/bed.lua"
sed -i '/^---@field nprocs /d' "$m/umlbed/model.lua"
sed -i '/^function handle:close() end$/d' "$m/umlbed/points.lua"
decls "$m" "$T/decls.removed"
lua5.4 "$H" extra "$T/decls.removed" "$T/rt" >"$T/extra.out"
check "run time, planted: vm:spawn removed is reported" says "$T/extra.out" "umlbed.vm:spawn is there at run time, not declared"
check "run time, planted: vm.boot_ms removed is reported" says "$T/extra.out" "umlbed.vm.boot_ms is there at run time, not declared"
check "run time, planted: bed.loops removed is reported" says "$T/extra.out" "umlbed.bed:loops is there at run time, not declared"
check "run time, planted: a points handle's close removed is reported" \
  says "$T/extra.out" "umlbed.points.handle:close is there at run time, not declared"
check "run time, planted: a model state's nprocs removed is reported" \
  says "$T/extra.out" "umlbed.model.state.nprocs is there at run time, not declared"
lua5.4 "$H" extra "$T/decls.removed" "$T/cgetters" >"$T/extra.out"
check "C getters, planted: vm.boot_ms removed is reported" says "$T/extra.out" "umlbed.vm.boot_ms is there at run time, not declared"

# ---- (c) Each function has one description line, a @param per argument and a @return; each field a description. ----
lint "$META"
ok $? "annotations: every function and field is described and annotated"
diag "$T/lint.out"
m=$(mutant unannotated)
# vm:klog loses its @return lines, vm:readfile its description and the @param of max, and a field its description.
perl -0pi -e 's/(---Reads the kernel log\.\n)(---\@return [^\n]*\n)+/$1/; s/---Reads a whole guest file in the agent\.\n//;
  s/---\@param max\? integer [^\n]*\n//; s/^(---\@field cpu integer) .*$/$1/m' "$m/umlbed.lua"
lint "$m"
check "annotations, planted: the lint fails" [ -s "$T/lint.out" ]
check "annotations, planted: vm:klog without @return" grep -qE ': umlbed\.vm:klog: no @return' "$T/lint.out"
check "annotations, planted: vm:readfile without its description" \
  grep -qE ': umlbed\.vm:readfile: wants one description line, first in its block \(has 0\)' "$T/lint.out"
check "annotations, planted: vm:readfile without @param max" grep -qE ': umlbed\.vm:readfile: no @param for max$' "$T/lint.out"
check "annotations, planted: vm.cpu without a description" grep -qE ': umlbed\.vm\.cpu: a field without a description$' "$T/lint.out"

# ---- (d) luac5.4 -p and luacheck (the tree's .luacheckrc) accept every file. ----
if ! command -v luac5.4 >/dev/null; then
  prereq_skip "luac5.4 -p: not installed (Debian package lua5.4)"
else
  bad=()
  # One file per call: Debian's luac5.4 (5.4.4) frees twice and aborts when given several.
  for f in "${files[@]}"; do luac5.4 -p "$f" 2>>"$T/luac.out" || bad+=("${f#"$SRC"/}"); done
  check "luac5.4 -p parses every definition file${bad[*]:+ (not: ${bad[*]})}" [ ${#bad[@]} = 0 ]
  diag "$T/luac.out"
  m=$(mutant syntax)
  sed -i 's/^return umlbed$/function vm:broken( end\n&/' "$m/umlbed.lua"
  check "luac5.4 -p, planted: a syntax error is refused" not luac5.4 -p "$m/umlbed.lua" 2>/dev/null
fi
if ! command -v luacheck >/dev/null; then
  prereq_skip "luacheck: not installed (Debian package lua-check)"
else
  luacheck --config "$SRC/.luacheckrc" --formatter plain --codes "${files[@]}" >"$T/luacheck.out" 2>&1
  ok $? "luacheck (.luacheckrc) passes every definition file"
  diag "$T/luacheck.out"
  m=$(mutant global)
  sed -i 's/^return umlbed$/planted_global = 1\n&/' "$m/umlbed.lua"
  luacheck --config "$SRC/.luacheckrc" --formatter plain --codes "$m/umlbed.lua" >"$T/luacheck.out" 2>&1
  check "luacheck, planted: a global assignment is reported (W111)" grep -q 'W111' "$T/luacheck.out"
fi
echo "1..$n"
