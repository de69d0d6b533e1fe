#!/bin/bash
# Recording overhead and trace size, mt-record against heaptrack, run
# side by side on the same machine in the same run.  Medians of RUNS runs
# (default 5).  A benchmark, not a test: it never fails a build.
#
#   (a) 1M malloc/free pairs, random sizes, a 4096-slot live window,
#       64 call sites at depths 0-15            (tests/progs/pairs)
#   (b) PYTHONMALLOC=malloc python3 building 300k small dicts and
#       round-tripping them through json       (tests/bench/py_dicts.py)
#   (c) 4 threads, cross-thread frees          (tests/progs/threads)
#
# Then: mt-decode's speed (events/s into /dev/null) and the text parser's
# (MB/s, mt-decode --check on the decoded text of (b)).
. "$(dirname "$0")/common.sh"
PY=/usr/bin/python3

run_workload() {	# name, command...
	local name=$1 i native mt ht events mtb htb
	shift
	: >"$work/native" ; : >"$work/mt" ; : >"$work/ht"
	for i in $(seq "$RUNS"); do
		seconds env PYTHONMALLOC=malloc "$@" >>"$work/native"
		rm -f "$work/t.mtr"
		seconds env PYTHONMALLOC=malloc cmd/mt-record -o "$work/t.mtr" -- "$@" >>"$work/mt"
		rm -f "$work"/ht.*
		seconds env PYTHONMALLOC=malloc heaptrack -o "$work/ht" "$@" >>"$work/ht"
	done
	native=$(median <"$work/native")
	mt=$(median <"$work/mt")
	ht=$(median <"$work/ht")
	events=$(cmd/mt-decode "$work/t.mtr" | grep -c '^alloc\|^free')
	mtb=$(stat -c %s "$work/t.mtr")
	htb=$(stat -c %s "$work"/ht.*)
	printf '%-14s %9.2f %9.2f %9.2f %8.2fx %8.2fx %10d %9.3f %9.3f\n' "$name" \
		"$native" "$mt" "$ht" "$(echo "$mt / $native" | bc -l)" \
		"$(echo "$ht / $native" | bc -l)" "$events" \
		"$(echo "$mtb / $events" | bc -l)" "$(echo "$htb / $events" | bc -l)"
}

printf '%-14s %9s %9s %9s %9s %9s %10s %9s %9s\n' workload native-s mt-s heaptrack-s \
	mt-slow ht-slow events mt-B/ev ht-B/ev
run_workload "(a) pairs" tests/progs/pairs 1000000
run_workload "(b) python" "$PY" tests/bench/py_dicts.py
run_workload "(c) threads" tests/progs/threads 250000

PYTHONMALLOC=malloc cmd/mt-record -o "$work/py.mtr" -- "$PY" tests/bench/py_dicts.py >/dev/null 2>&1
events=$(cmd/mt-decode "$work/py.mtr" | wc -l)
d=$(timed cmd/mt-decode "$work/py.mtr")
printf 'mt-decode: %d records in %.2f s: %.1fM records/s into /dev/null (target >= 10M/s)\n' \
	"$events" "$d" "$(echo "$events / $d / 1000000" | bc -l)"
cmd/mt-decode "$work/py.mtr" >"$work/py.txt"
bytes=$(stat -c %s "$work/py.txt")
d=$(timed cmd/mt-decode --check "$work/py.txt")
printf 'parser: %d MB of event text in %.2f s: %.0f MB/s (target >= 300 MB/s)\n' \
	"$((bytes / 1000000))" "$d" "$(echo "$bytes / $d / 1000000" | bc -l)"
