# SPDX-License-Identifier: MIT
# neighbour.sh: the stress-ng neighbour of soak.sh and jobs.sh, sourced: started in a session of its own, stopped as a group.
# shellcheck shell=bash disable=SC2154
#
# The sourcing script sets $me (its name, for messages) and $scratch (a private folder) and calls stop_hog on
# every exit path (its EXIT trap).

hog_cpu=1
[ "$(nproc)" -gt 1 ] || hog_cpu=0
hog_pid=

# Stops the neighbour: its process group gets SIGTERM (stress-ng reaps its stressors), then SIGKILL for leftovers.
stop_hog() {
	[ -n "$hog_pid" ] || return 0
	local pgid=$hog_pid n=0
	hog_pid=
	kill -TERM -- "-$pgid" 2>/dev/null || true
	wait "$pgid" 2>/dev/null || true
	while pgrep -g "$pgid" >/dev/null; do
		kill -KILL -- "-$pgid" 2>/dev/null || true
		if [ $((n++)) -ge 50 ]; then
			echo "$me: stress-ng process group $pgid did not go away:" >&2
			pgrep -a -g "$pgid" >&2 || true
			return 1
		fi
		sleep 0.1
	done
}

# start_hog SECONDS STRESS-NG-ARGS...: a neighbour on $hog_cpu in its own session (its own process group, out of
# reach of the terminal's Ctrl-C: the trap stops it); returns once a stressor process exists, not just the
# stress-ng parent. SECONDS only matters if the script is SIGKILLed: normally stop_hog ends the neighbour.
start_hog() {
	local limit=$1 n=0
	shift
	setsid stress-ng "$@" --taskset "$hog_cpu" --timeout "${limit}s" >"$scratch/hog.log" 2>&1 &
	hog_pid=$!
	until [ "$(pgrep -c -g "$hog_pid")" -ge 2 ]; do
		if ! kill -0 "$hog_pid" 2>/dev/null || [ $((n++)) -ge 100 ]; then
			echo "$me: stress-ng $* did not start:" >&2
			cat "$scratch/hog.log" >&2
			exit 1
		fi
		sleep 0.1
	done
}
