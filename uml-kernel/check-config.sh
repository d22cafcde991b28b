#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that every option of the config fragments survived into the final .config: check-config.sh .config FRAGMENT...
set -euo pipefail
config=${1:?usage: check-config.sh .config FRAGMENT...}
shift
# As in merge_config.sh, a later fragment's value of an option overrides an earlier one's: check the last.
declare -A want from
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) name=${line%%=*} ;;
		"# CONFIG_"*" is not set") name=${line#\# }; name=${name%% *} ;;
		*) continue ;;
		esac
		want[$name]=$line
		from[$name]=${frag##*/}
	done < "$frag"
done
# depends CONFIG_NAME: the option's "depends on" lines in the tree's Kconfig files, which say why olddefconfig
# dropped it. An O= build folder holds a link to its source tree (source); without one there is nothing to say.
depends() {
	local src
	src=$(dirname "$config")/source
	[ -d "$src" ] || return 0
	grep -rn --include='Kconfig*' -A 30 "^\(menu\)\?config ${1#CONFIG_}\$" "$src/" 2>/dev/null |
		awk -v src="$src/" '
			NR == 1 { sub(src, ""); where = $0; sub(/[-:][0-9]+[-:].*/, "", where) }
			NR > 1 && /[-:][0-9]+-(config|menuconfig|choice|endmenu|menu|if|endif|source)[[:space:]]/ { exit }
			/[-:][0-9]+-[[:space:]]+depends on/ { sub(/^.*[-:][0-9]+-[[:space:]]+/, ""); print "check-config:   " where ": " $0 }' >&2
}
status=0
for name in "${!want[@]}"; do
	# An option that is not set may also be absent: its dependencies are off (MODULE_UNLOAD without MODULES).
	case ${want[$name]} in
	"# "*) grep -qE "^$name=" "$config" || continue ;;
	esac
	if ! grep -qxF -- "${want[$name]}" "$config"; then
		got=$(grep -E "^(# )?${name}[= ]" "$config" || echo "$name undefined (missing dependency?)")
		echo "check-config: ${from[$name]}: wanted '${want[$name]}', .config has '$got'" >&2
		depends "$name"
		status=1
	fi
done
[ $status = 0 ] || echo "check-config: fragment options were dropped by olddefconfig (see above)" >&2
exit $status
