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
#   (d) allocations under a recursion 40-80 frames deep, the top few
#       frames changing                         (tests/progs/deep)
#   (e) C++ exceptions thrown through allocating frames (tests/progs/throw)
#   (f) 16 threads, cross-thread frees         (tests/progs/threads)
#   then the same 2M events over 1, 2, 4, 8 and 16 threads: ns per event
#
# mt-record runs with each unwinder (--unwind libunwind, shadow); each
# gets its slowdown and the nanoseconds it adds per event (its time less
# the native time, over the events), heaptrack likewise.
#
# Then: mt-decode's speed (events/s into /dev/null) and the text parser's
# (MB/s, mt-decode --check on the decoded text of (b)).
. "$(dirname "$0")/common.sh"
PY=/usr/bin/python3

ratio() { echo "$1 / $2" | bc -l; }
per_event() { echo "($1 - $2) * 1000000000 / $3" | bc -l; }

run_workload() {	# name, command...
	local name=$1 i native lu sh ht events mtb htb
	shift
	: >"$work/native" ; : >"$work/lu" ; : >"$work/sh" ; : >"$work/ht"
	for i in $(seq "$RUNS"); do
		seconds env PYTHONMALLOC=malloc "$@" >>"$work/native"
		rm -f "$work/t.mtr"
		seconds env PYTHONMALLOC=malloc cmd/mt-record --unwind libunwind -o "$work/t.mtr" -- "$@" >>"$work/lu"
		rm -f "$work/t.mtr"
		seconds env PYTHONMALLOC=malloc cmd/mt-record --unwind shadow -o "$work/t.mtr" -- "$@" >>"$work/sh"
		rm -f "$work"/ht.*
		seconds env PYTHONMALLOC=malloc heaptrack -o "$work/ht" "$@" >>"$work/ht"
	done
	native=$(median <"$work/native")
	lu=$(median <"$work/lu")
	sh=$(median <"$work/sh")
	ht=$(median <"$work/ht")
	events=$(cmd/mt-decode "$work/t.mtr" | grep -c '^alloc\|^free')
	mtb=$(stat -c %s "$work/t.mtr")
	htb=$(stat -c %s "$work"/ht.*)
	printf '%-13s %7.2f %7.2f %7.2f %7.2f %7.2fx %6.2fx %6.2fx %7.0f %7.0f %7.0f %9d %6.3f %6.3f\n' "$name" \
		"$native" "$lu" "$sh" "$ht" \
		"$(ratio "$lu" "$native")" "$(ratio "$sh" "$native")" "$(ratio "$ht" "$native")" \
		"$(per_event "$lu" "$native" "$events")" "$(per_event "$sh" "$native" "$events")" \
		"$(per_event "$ht" "$native" "$events")" "$events" \
		"$(echo "$mtb / $events" | bc -l)" "$(echo "$htb / $events" | bc -l)"
}

echo "seconds: native, mt-record --unwind libunwind, --unwind shadow, heaptrack;"
echo "slowdowns and ns added per event: libunwind (lu), shadow (sh), heaptrack (ht)"
printf '%-13s %7s %7s %7s %7s %8s %7s %7s %7s %7s %7s %9s %6s %6s\n' workload native lu sh ht \
	lu-slow sh-slow ht-slow lu-ns sh-ns ht-ns events mt-B/ev ht-B/ev
run_workload "(a) pairs" tests/progs/pairs 1000000
run_workload "(b) python" "$PY" tests/bench/py_dicts.py
run_workload "(c) threads" tests/progs/threads 250000
run_workload "(d) deep" tests/progs/deep 1000000
run_workload "(e) throw" tests/progs/throw
run_workload "(f) 16 thr" tests/progs/threads 62500 16

# Flat from 1 to 8 threads?  The same 2M events, spread over more threads
# (2 cores here): what each adds with the default unwinder.
printf 'per event by threads (2M events, --unwind shadow):'
for t in 1 2 4 8 16; do
	n=$((1000000 / t))
	native=$(timed tests/progs/threads "$n" "$t")
	sh=$(timed cmd/mt-record -o "$work/t.mtr" -- tests/progs/threads "$n" "$t")
	printf ' %d: %.0f ns' "$t" "$(per_event "$sh" "$native" 2000000)"
done
echo

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
