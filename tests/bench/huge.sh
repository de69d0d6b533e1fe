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
#   page   mt-report -o page.html
# against heaptrack_print, which prints everything it has; the peak
# RSS of every process beside heaptrack_print's; the cores each kept
# busy (CPU seconds of all its processes over its seconds).  Then the
# same python run recorded at each of RESOLUTIONS (default 1us 10us;
# empty: none), the trace's bytes an event there.
. "$(dirname "$0")/common.sh"
RUNS=${RUNS:-3}
LOOPS=${LOOPS:-5}
RESOLUTIONS=${RESOLUTIONS-1us 10us}

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
page() { rss p cmd/mt-report -q -o "$work/page.html" "$work/py.mtr"; }
ht() { rss h heaptrack_print "$work"/ht.* >/dev/null; }
# CPU seconds of this shell's waited children so far.
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ print ($16 + $17) / hz }' "/proc/$$/stat"; }
steps="bpath tpath report page"
for s in $steps ht; do : >"$work/t.$s"; : >"$work/r.$s"; : >"$work/c.$s"; done
for i in $(seq "$RUNS"); do
	order="ht $steps"
	case $((i % 3)) in
	2) order="$steps ht" ;;
	0) order="bpath ht tpath report page" ;;
	esac
	for s in $order; do
		c0=$(cpu)
		seconds "$s" >>"$work/t.$s"
		echo "($(cpu) - $c0) / $(tail -n 1 "$work/t.$s")" | bc -l >>"$work/c.$s"
	done
	h=$(tail -n 1 "$work/t.ht")
	for s in $steps; do echo "$(tail -n 1 "$work/t.$s") / $h" | bc -l >>"$work/r.$s"; done
done
mib() { echo $(($(cat "$work/rss.$1") / 1024)); }
printf '%d events: the trace %.1f MB, %.3f bytes an event; heaptrack'"'"'s %.2f MB, %.4f\n' \
	"$events" "$(echo "$bytes / 1000000" | bc -l)" "$(echo "$bytes / $events" | bc -l)" \
	"$(echo "$htbytes / 1000000" | bc -l)" "$(echo "$htbytes / $events" | bc -l)"
printf 'heaptrack_print %.2f s, %d MiB (%d runs)\n' "$(median <"$work/t.ht")" "$(mib h)" "$RUNS"
printf '%-8s %8s %7s %6s  %s\n' path seconds ratio cores 'peak RSS of each process, MiB'
line() { printf '%-8s %8.2f %6.2fx %6.2f  %s\n' "$1" "$(median <"$work/t.$2")" "$(median <"$work/r.$2")" \
	"$(median <"$work/c.$2")" "$3"; }
line -b bpath "mt-lifetime $(mib b1), mt-symbolize $(mib b2), mt-group $(mib b3)"
line text tpath "mt-symbolize $(mib t1), mt-lifetime $(mib t2), mt-group $(mib t3)"
line report report "mt-report $(mib r)"
line page page "mt-report -o $(mib p)"
printf 'heaptrack_print keeps %.2f cores busy\n' "$(median <"$work/c.ht")"
for res in $RESOLUTIONS; do
	PYTHONMALLOC=malloc cmd/mt-record --time-resolution "$res" -o "$work/res.mtr" -- \
	    /usr/bin/python3 "$work/loop.py" >/dev/null 2>&1
	n=$(cmd/mt-decode "$work/res.mtr" | grep -c '^alloc\|^free')
	b=$(stat -c %s "$work/res.mtr")
	printf 'at --time-resolution %s: %d events, the trace %.1f MB, %.3f bytes an event\n' \
		"$res" "$n" "$(echo "$b / 1000000" | bc -l)" "$(echo "$b / $n" | bc -l)"
done
