#!/bin/bash
# Issue 29's figures on one long recording, beside heaptrack's of the
# same run: python3 building 300k dicts and round-tripping them through
# json, LOOPS times (default 5: some 140M events), recorded by each.
# The trace's bytes an event; then, medians of RUNS runs (default 3),
# the three in turn so that a machine whose speed drifts slows them
# alike (the ratio is the median of each turn's own):
#   -b     mt-lifetime -b | mt-symbolize -b | mt-group --by function
#   text   mt-symbolize | mt-lifetime | mt-group --by type,function,line
#   report mt-report (the README's first pipeline)
# against heaptrack_print, which prints everything it has; and the peak
# RSS of every process beside heaptrack_print's.
. "$(dirname "$0")/common.sh"
RUNS=${RUNS:-3}
LOOPS=${LOOPS:-5}

record_python "$LOOPS"
bytes=$(stat -c %s "$work/py.mtr")
htbytes=$(cat "$work"/ht.* | wc -c)

rss() { /usr/bin/time -f %M -o "$work/rss.$1" "${@:2}"; }
bpath() {
	rss b1 cmd/mt-lifetime -b -q "$work/py.mtr" | rss b2 cmd/mt-symbolize -b |
	rss b3 cmd/mt-group --by function >/dev/null
}
tpath() {
	rss t1 cmd/mt-symbolize "$work/py.mtr" | rss t2 cmd/mt-lifetime -q |
	rss t3 cmd/mt-group --by type,function,line >/dev/null
}
report() { rss r cmd/mt-report -q "$work/py.mtr" >/dev/null; }
ht() { rss h heaptrack_print "$work"/ht.* >/dev/null; }
steps="bpath tpath report"
for s in $steps ht; do : >"$work/t.$s"; : >"$work/r.$s"; done
for i in $(seq "$RUNS"); do
	order="ht $steps"
	case $((i % 3)) in
	2) order="$steps ht" ;;
	0) order="bpath ht tpath report" ;;
	esac
	for s in $order; do seconds "$s" >>"$work/t.$s"; done
	h=$(tail -n 1 "$work/t.ht")
	for s in $steps; do echo "$(tail -n 1 "$work/t.$s") / $h" | bc -l >>"$work/r.$s"; done
done
mib() { echo $(($(cat "$work/rss.$1") / 1024)); }
printf '%d events: the trace %.1f MB, %.3f bytes an event; heaptrack'"'"'s %.2f MB, %.4f\n' \
	"$events" "$(echo "$bytes / 1000000" | bc -l)" "$(echo "$bytes / $events" | bc -l)" \
	"$(echo "$htbytes / 1000000" | bc -l)" "$(echo "$htbytes / $events" | bc -l)"
printf 'heaptrack_print %.2f s, %d MiB (%d runs)\n' "$(median <"$work/t.ht")" "$(mib h)" "$RUNS"
printf '%-8s %8s %7s  %s\n' path seconds ratio 'peak RSS of each process, MiB'
printf '%-8s %8.2f %6.2fx  %s\n' -b "$(median <"$work/t.bpath")" "$(median <"$work/r.bpath")" \
	"mt-lifetime $(mib b1), mt-symbolize $(mib b2), mt-group $(mib b3)"
printf '%-8s %8.2f %6.2fx  %s\n' text "$(median <"$work/t.tpath")" "$(median <"$work/r.tpath")" \
	"mt-symbolize $(mib t1), mt-lifetime $(mib t2), mt-group $(mib t3)"
printf '%-8s %8.2f %6.2fx  %s\n' report "$(median <"$work/t.report")" "$(median <"$work/r.report")" \
	"mt-report $(mib r)"
