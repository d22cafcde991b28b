#!/usr/bin/env bash
# Checks that every option of the config fragments survived into the final .config: check-config.sh .config FRAGMENT...
set -euo pipefail
config=${1:?usage: check-config.sh .config FRAGMENT...}
shift
status=0
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) want=$line; name=${line%%=*} ;;
		"# CONFIG_"*" is not set") want=$line; name=${line#\# }; name=${name%% *} ;;
		*) continue ;;
		esac
		if ! grep -qxF -- "$want" "$config"; then
			got=$(grep -E "^(# )?$name[= ]" "$config" || echo "$name undefined (missing dependency?)")
			echo "check-config: ${frag##*/}: wanted '$want', .config has '$got'" >&2
			status=1
		fi
	done < "$frag"
done
[ $status = 0 ] || echo "check-config: fragment options were dropped by olddefconfig (see above)" >&2
exit $status
