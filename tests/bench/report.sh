#!/bin/bash
# mt-report against heaptrack_print, on one run of python3 building 300k
# dicts and round-tripping them through json, LOOPS times (default 5:
# some 100M events), recorded by each.  The summary (`mt-report
# app.mtr`) and the page (`mt-report -o app.html app.mtr`) beside
# `heaptrack_print` on heaptrack's trace: medians of RUNS runs (default
# 3) of the wall time, the three run in turn; the ratio is the median of
# each turn's own.  Peak RSS beside heaptrack_print's, the page's size,
# and, with chromium, the page's first paint and table in headless
# Chromium (the page's own marks: data-paint-ms, data-ready-ms).
. "$(dirname "$0")/common.sh"
RUNS=${RUNS:-3}
LOOPS=${LOOPS:-5}

record_python "$LOOPS"

summary() { /usr/bin/time -f %M -o "$work/rss.sum" cmd/mt-report -q "$work/py.mtr" >/dev/null; }
page() { /usr/bin/time -f %M -o "$work/rss.page" cmd/mt-report -q -o "$work/py.html" "$work/py.mtr"; }
ht() { /usr/bin/time -f %M -o "$work/rss.ht" heaptrack_print "$work"/ht.* >/dev/null; }
: >"$work/t.s"; : >"$work/t.p"; : >"$work/t.h"; : >"$work/r.s"; : >"$work/r.p"
for i in $(seq "$RUNS"); do
	case $((i % 3)) in
	1) s=$(seconds summary); p=$(seconds page); h=$(seconds ht) ;;
	2) h=$(seconds ht); s=$(seconds summary); p=$(seconds page) ;;
	0) p=$(seconds page); h=$(seconds ht); s=$(seconds summary) ;;
	esac
	echo "$s" >>"$work/t.s"; echo "$p" >>"$work/t.p"; echo "$h" >>"$work/t.h"
	echo "$s / $h" | bc -l >>"$work/r.s"; echo "$p / $h" | bc -l >>"$work/r.p"
done
range() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }
printf '%d events (%d runs): summary %.2f s (%.2fx), page %.2f s (%.2fx); heaptrack_print %.2f s\n' \
	"$events" "$RUNS" "$(median <"$work/t.s")" "$(median <"$work/r.s")" \
	"$(median <"$work/t.p")" "$(median <"$work/r.p")" "$(median <"$work/t.h")"
printf "the turns' own ratios: summary %s, page %s\n" "$(range "$work/r.s")" "$(range "$work/r.p")"
printf 'peak RSS: summary %d MiB, page %d MiB; heaptrack_print %d MiB\n' \
	$(($(cat "$work/rss.sum") / 1024)) $(($(cat "$work/rss.page") / 1024)) \
	$(($(cat "$work/rss.ht") / 1024))
printf 'the page: %.1f MB\n' "$(echo "$(stat -c %s "$work/py.html") / 1000000" | bc -l)"
if command -v chromium >/dev/null; then
	: >"$work/paint"; : >"$work/ready"
	for i in $(seq "$RUNS"); do
		chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=60000 \
			--dump-dom "file://$work/py.html" 2>/dev/null >"$work/dom"
		grep -o 'data-paint-ms="[0-9.]*"' "$work/dom" | grep -o '[0-9.]*' >>"$work/paint"
		grep -o 'data-ready-ms="[0-9.]*"' "$work/dom" | grep -o '[0-9.]*' >>"$work/ready"
	done
	printf 'in headless Chromium: first paint %.0f ms, table ready %.0f ms\n' \
		"$(median <"$work/paint")" "$(median <"$work/ready")"
else
	echo "in headless Chromium: not measured, chromium is not installed"
fi
