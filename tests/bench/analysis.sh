#!/bin/bash
# The analysis path against heaptrack_print, on the same run of workload
# (b) of run.sh (python3 building and round-tripping 300k dicts) recorded
# by each: `mt-lifetime app.mtr | mt-window | mt-group`, with text and
# with -b (a .mtr stream) between the filters, against
# `heaptrack_print` on heaptrack's trace.  Medians of RUNS runs (default
# 5) of the wall time, the three run in turn, so that a machine whose
# speed drifts meanwhile (these do, by half) slows them alike; the ratio
# is the median of each turn's own ratio.  Each stage's peak RSS beside
# heaptrack_print's.
. "$(dirname "$0")/common.sh"

PYTHONMALLOC=malloc cmd/mt-record -o "$work/py.mtr" -- /usr/bin/python3 tests/bench/py_dicts.py >/dev/null 2>&1
PYTHONMALLOC=malloc heaptrack -o "$work/ht" /usr/bin/python3 tests/bench/py_dicts.py >/dev/null 2>&1
events=$(cmd/mt-decode "$work/py.mtr" | grep -c '^alloc\|^free')

# $1: -b for a .mtr stream between the filters, or nothing for text.
pipeline() {
	/usr/bin/time -f %M -o "$work/rss.lifetime" cmd/mt-lifetime $1 -q "$work/py.mtr" |
	/usr/bin/time -f %M -o "$work/rss.window" cmd/mt-window $1 --from 1s --to 2s |
	/usr/bin/time -f %M -o "$work/rss.group" cmd/mt-group --by process,heap,type,function >/dev/null
}
: >"$work/t.text"; : >"$work/t.b"; : >"$work/t.ht"; : >"$work/r.text"; : >"$work/r.b"
ht() { /usr/bin/time -f %M -o "$work/rss.ht" heaptrack_print "$work"/ht.* >/dev/null; }
for i in $(seq "$RUNS"); do
	# Each in turn goes first: the one after the text pipeline's gigabyte
	# of pipes and page cache is not always the same.
	case $((i % 3)) in
	1) t=$(seconds pipeline ""); b=$(seconds pipeline -b); h=$(seconds ht) ;;
	2) h=$(seconds ht); t=$(seconds pipeline ""); b=$(seconds pipeline -b) ;;
	0) b=$(seconds pipeline -b); h=$(seconds ht); t=$(seconds pipeline "") ;;
	esac
	echo "$t" >>"$work/t.text"; echo "$b" >>"$work/t.b"; echo "$h" >>"$work/t.ht"
	echo "$t / $h" | bc -l >>"$work/r.text"; echo "$b / $h" | bc -l >>"$work/r.b"
done
range() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }
printf '%d events: mt-lifetime | mt-window | mt-group: text %.2f s (%.2fx), -b %.2f s (%.2fx); heaptrack_print %.2f s\n' \
	"$events" "$(median <"$work/t.text")" "$(median <"$work/r.text")" \
	"$(median <"$work/t.b")" "$(median <"$work/r.b")" "$(median <"$work/t.ht")"
printf 'the turns'"'"' own ratios: text %s, -b %s (%d turns)\n' "$(range "$work/r.text")" \
	"$(range "$work/r.b")" "$RUNS"
printf 'peak RSS: mt-lifetime %d MiB, mt-window %d MiB, mt-group %d MiB; heaptrack_print %d MiB\n' \
	$(($(cat "$work/rss.lifetime") / 1024)) $(($(cat "$work/rss.window") / 1024)) \
	$(($(cat "$work/rss.group") / 1024)) $(($(cat "$work/rss.ht") / 1024))
