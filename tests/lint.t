#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lint.t: shellcheck over every shell script of the tree, luacheck and luac5.4 -p over every Lua file, one dialect and one indentation per shell test, an SPDX line in every source file.
#
# The settings are the tree's .shellcheckrc and .luacheckrc. Each tool first shows that it reports a finding planted
# in a scratch file, so "no finding" says something; a missing tool is a SKIP, a failure under strict mode. The
# licence lines are held to scripts/spdx.pl's rules (the README's "Licence" section says them in words), and the
# licences they name to the texts in LICENSES/.
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=SCRIPTDIR/lib/strict.sh
. "$top/tests/lib/strict.sh"
# shellcheck source=SCRIPTDIR/lib/tap.sh
. "$top/tests/lib/tap.sh"
cd "$top" || exit 1
T=$(mktemp -d "${TMPDIR:-/tmp}/umlbed-lint.XXXXXX")
trap 'rm -rf "$T"' EXIT

# The tree's files: tracked ones and new ones git does not ignore, so a file is checked before its first commit.
if git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard | sort -u)
else
  mapfile -t files < <(find . \( -path ./build -o -path ./.git \) -prune -o -type f -print | sed 's|^\./||' | sort)
fi
# Shell scripts: *.sh, and every other file whose first line runs sh or bash (the .t tests, .ci/run).
shell=()
lua=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue
  case $f in
    *.lua) lua+=("$f") ;;
    *.sh) shell+=("$f") ;;
    *)
      IFS= read -r first <"$f" || true
      [[ $first =~ ^#!.*[/\ ](ba)?sh([[:space:]]|$) ]] && shell+=("$f")
      ;;
  esac
done
check "there are shell scripts to check (${#shell[@]})" [ ${#shell[@]} -gt 40 ]
check "there are Lua files to check (${#lua[@]})" [ ${#lua[@]} -gt 100 ]

# findings_of FILE OUT: the lines of a tool's OUT (FILE:LINE:COLUMN: ... per finding) about FILE.
findings_of() { awk -v f="$1" 'index($0, f ":") == 1' "$2"; }

# ---- One dialect: every shell test and helper under tests/ is bash, indented with tabs or with spaces, not both.
for f in "${shell[@]}"; do
  case $f in tests/*) ;; *) continue ;; esac
  IFS= read -r first <"$f" || true
  if [[ $first == '#!'* ]]; then
    check "$f: #!/usr/bin/env bash" [ "$first" = '#!/usr/bin/env bash' ]
  else
    # A sourced helper has no #! line: it says its dialect to shellcheck.
    check "$f: sourced, and says it is bash (# shellcheck shell=bash)" grep -qx '# shellcheck shell=bash' "$f"
  fi
  tabs=$(grep -c $'^\t' "$f")
  spaces=$(grep -c '^ \+[^ ]' "$f")
  check "$f: one indentation (lines indented by tabs: $tabs, by spaces: $spaces)" [ $((tabs * spaces)) = 0 ]
done

# ---- shellcheck, from the top of the tree (its .shellcheckrc), on every shell script at once. ----
if ! command -v shellcheck >/dev/null; then
  prereq_skip "shellcheck: not installed (Debian package shellcheck)"
else
  # The probe: a planted finding (SC2086, an unquoted expansion) in a scratch script is reported.
  printf '#!/usr/bin/env bash\necho $1\n' >"$T/planted.sh"
  shellcheck -f gcc "$T/planted.sh" >"$T/planted.out" 2>&1
  check "shellcheck reports a planted finding (SC2086)" grep -q 'SC2086' "$T/planted.out"
  shellcheck -f gcc "${shell[@]}" >"$T/shellcheck.out" 2>&1
  src=$?
  # 0: no finding, 1: findings; anything else means it could not check, and the "no finding" lines below say nothing.
  check "shellcheck ran over ${#shell[@]} scripts (exit $src: 0 or 1)" [ "$src" -le 1 ]
  [ "$src" -le 1 ] || diag "$T/shellcheck.out"
  for f in "${shell[@]}"; do
    findings_of "$f" "$T/shellcheck.out" >"$T/one"
    check "shellcheck: $f" [ ! -s "$T/one" ]
    diag "$T/one"
  done
fi

# ---- luacheck (its .luacheckrc: Lua 5.4) and luac5.4 -p, the real parser of the runner's Lua. ----
if ! command -v luacheck >/dev/null; then
  prereq_skip "luacheck: not installed (Debian package lua-check)"
else
  printf -- '-- planted.lua: an unused local.\nlocal unused = 1\n' >"$T/planted.lua"
  luacheck --config "$top/.luacheckrc" --formatter plain --codes "$T/planted.lua" >"$T/planted.out" 2>&1
  check "luacheck reports a planted finding (W211, an unused variable)" grep -q 'W211' "$T/planted.out"
  luacheck --config "$top/.luacheckrc" --formatter plain --codes "${lua[@]}" >"$T/luacheck.out" 2>&1
  lrc=$?
  # 0: no warning, 1: warnings, 2: errors (syntax); 3 and more: it could not check.
  check "luacheck ran over ${#lua[@]} files (exit $lrc: 0 to 2)" [ "$lrc" -le 2 ]
  [ "$lrc" -le 2 ] || diag "$T/luacheck.out"
  for f in "${lua[@]}"; do
    findings_of "$f" "$T/luacheck.out" >"$T/one"
    check "luacheck: $f" [ ! -s "$T/one" ]
    diag "$T/one"
  done
fi
if ! command -v luac5.4 >/dev/null; then
  prereq_skip "luac5.4 -p: not installed (Debian package lua5.4)"
else
  # One file per call: Debian's luac5.4 (5.4.4) frees twice and aborts when given several.
  bad=()
  for f in "${lua[@]}"; do luac5.4 -p "$f" 2>>"$T/luac.out" || bad+=("$f"); done
  check "luac5.4 -p parses every Lua file${bad[*]:+ (not: ${bad[*]})}" [ ${#bad[@]} = 0 ]
  diag "$T/luac.out"
fi

# ---- Licences: each source file's SPDX line (scripts/spdx.pl has the rules), and the texts of LICENSES/. ----
spdx=$top/scripts/spdx.pl
# The probe, in a scratch tree: a C file and a script without their line and a test module with another licence's
# line are found, a document is not a source file; then the tool adds the lines where the kernel puts them.
mkdir -p "$T/tree/runner" "$T/tree/scripts" "$T/tree/uml-kernel/modules" "$T/tree/docs"
printf '/* x.c: a planted C file. */\n' >"$T/tree/runner/x.c"
printf '#!/usr/bin/env bash\n# y.sh: a planted script.\n' >"$T/tree/scripts/y.sh"
printf '// SPDX-License-Identifier: MIT\n/* m.c: a planted module file. */\n' >"$T/tree/uml-kernel/modules/m.c"
printf '# a.md: a planted document.\n' >"$T/tree/docs/a.md"
planted=(runner/x.c scripts/y.sh uml-kernel/modules/m.c docs/a.md)
"$spdx" --check --top "$T/tree" "${planted[@]}" >"$T/spdx.out" 2>&1
src=$?
check "spdx.pl --check fails on planted files (exit $src)" [ "$src" = 1 ]
check "... naming the C file and the script that have no line" \
  eval 'grep -q "^runner/x.c: no SPDX line" "$T/spdx.out" && grep -q "^scripts/y.sh: no SPDX line" "$T/spdx.out"'
check "... and the test module whose line is MIT, not GPL-2.0" \
  grep -q '^uml-kernel/modules/m.c: line 1 is .*MIT.*, not "// SPDX-License-Identifier: GPL-2.0"' "$T/spdx.out"
check "... and not the document" not grep -q 'docs/a.md' "$T/spdx.out"
"$spdx" --top "$T/tree" "${planted[@]}" >/dev/null 2>&1
check "spdx.pl adds the line first in a C file, in its comment syntax" \
  [ "$(head -n 1 "$T/tree/runner/x.c")" = '// SPDX-License-Identifier: MIT' ]
check "... and second after a #! line" [ "$(sed -n 2p "$T/tree/scripts/y.sh")" = '# SPDX-License-Identifier: MIT' ]
check "... and leaves a line that names another licence to a human" \
  [ "$(head -n 1 "$T/tree/uml-kernel/modules/m.c")" = '// SPDX-License-Identifier: MIT' ]
# The tree: every source file, as scripts/spdx.pl --list names them.
"$spdx" --list >"$T/spdx.list" 2>&1
check "there are source files to check ($(wc -l <"$T/spdx.list"))" [ "$(wc -l <"$T/spdx.list")" -gt 300 ]
"$spdx" --check >"$T/spdx.out" 2>&1
src=$?
check "every source file has its SPDX line ($(wc -l <"$T/spdx.out") do not; scripts/spdx.pl adds them)" [ "$src" = 0 ]
[ "$src" = 0 ] || diag "$T/spdx.out"
# Each licence a line names (each side of an OR) has its text in LICENSES/, which says it is valid for that name.
sed -n 's/^Valid-License-Identifier: *//p' LICENSES/*/* | sort -u >"$T/valid"
cut -f2 "$T/spdx.list" | sed 's/ OR /\n/g; s/ AND /\n/g' | sort -u >"$T/used"
check "the licences the lines name have their texts in LICENSES/ ($(paste -sd' ' "$T/used"))" \
  eval '[ -s "$T/used" ] && [ -z "$(comm -23 "$T/used" "$T/valid")" ]'
check "LICENSES/preferred/GPL-2.0 is the whole licence" \
  eval 'grep -q "Version 2, June 1991" LICENSES/preferred/GPL-2.0 && grep -q "END OF TERMS AND CONDITIONS" LICENSES/preferred/GPL-2.0'
check "LICENSES/preferred/MIT is the whole licence" \
  eval 'grep -q "Permission is hereby granted" LICENSES/preferred/MIT && grep -q "IN NO EVENT SHALL" LICENSES/preferred/MIT'
# Each licence expression in use is one the README's Licence section explains.
while read -r id; do
  check "the README says where $id applies" grep -qF -- "**$id**" README.md
done < <(cut -f2 "$T/spdx.list" | sort -u)
echo "1..$n"
