#!/usr/bin/env bash
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
status=0
for name in "${!want[@]}"; do
	# An option that is not set may also be absent: its dependencies are off (MODULE_UNLOAD without MODULES).
	case ${want[$name]} in
	"# "*) grep -qE "^$name=" "$config" || continue ;;
	esac
	if ! grep -qxF -- "${want[$name]}" "$config"; then
		got=$(grep -E "^(# )?${name}[= ]" "$config" || echo "$name undefined (missing dependency?)")
		echo "check-config: ${from[$name]}: wanted '${want[$name]}', .config has '$got'" >&2
		status=1
	fi
done
[ $status = 0 ] || echo "check-config: fragment options were dropped by olddefconfig (see above)" >&2
exit $status
