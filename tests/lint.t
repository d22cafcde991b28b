#!/usr/bin/env bash
# lint.t: shellcheck over every shell script of the tree, luacheck and luac5.4 -p over every Lua file, one dialect and one indentation per shell test.
#
# The settings are the tree's .shellcheckrc and .luacheckrc. Each tool first shows that it reports a finding planted
# in a scratch file, so "no finding" says something; a missing tool is a SKIP, a failure under strict mode.
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
echo "1..$n"
