#!/bin/bash
# What letting go of --uprobes' probes costs as a recorded tree grows:
# mt-record -p PID --uprobes -d 3s on tests/progs/forktree N 50 (N
# children forked a second after the attach, each allocating every 50
# ms, every one followed and probed), for N in $SIZES (10 40 100 400).
# Per N and way: mt-record's wall time past its 3 s, the median of RUNS
# (default 3), and the processes none of which may be left stopped.
#
#   multi   multi-probe links (Linux 6.6), the breakpoints of a file
#           probed in many processes held meanwhile (mt-record's way)
#   perf    MT_UPROBE_MULTI=0: a perf event a probe, as on older kernels
#           (and as mt-record did before); N up to $PERF_MAX (40) only,
#           as it takes a second and more a process
# As root, on a kernel with uprobes.
: "${RUNS:=3}"
. "$(dirname "$0")/common.sh"
SIZES=${SIZES:-10 40 100 400}
PERF_MAX=${PERF_MAX:-40}

# past N WAY: mt-record's seconds past -d; "stopped" appended when a
# process of the tree was left stopped.
past() {
	local t p t0 t1 left
	sh -c "sleep 1; exec '$top/tests/progs/forktree' $1 50" 2>"$work/ft.err" & t=$!
	sleep 0.2
	t0=$(date +%s.%N)
	if [ "$2" = perf ]; then
		MT_UPROBE_MULTI=0 "$top/cmd/mt-record" -p $t -u -d 3s -o "$work/t.mtr" 2>"$work/rec.err"
	else
		"$top/cmd/mt-record" -p $t -u -d 3s -o "$work/t.mtr" 2>"$work/rec.err"
	fi
	t1=$(date +%s.%N)
	sleep 0.3
	left=0
	for p in $t $(pgrep -P $t); do
		case $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) in T|t) left=$((left + 1)) ;; esac
	done
	kill -TERM $t
	wait $t
	echo "$(echo "$t1 - $t0 - 3" | bc -l) $left"
}

printf '%-6s %-6s %12s %10s %8s\n' N way "past -d/s" stopped procs
for n in $SIZES; do
	for w in multi perf; do
		[ $w = perf ] && [ "$n" -gt "$PERF_MAX" ] && continue
		: >"$work/times"
		stopped=0
		for _ in $(seq "$RUNS"); do
			read -r s l < <(past "$n" $w)
			echo "$s" >>"$work/times"
			stopped=$((stopped + l))
		done
		printf '%-6s %-6s %12.2f %10s %8s\n' "$n" $w "$(median <"$work/times")" "$stopped" \
		    "$(cmd/mt-decode "$work/t.mtr" | grep -c '^proc')"
	done
done
