#!/bin/bash
# Pairing a large live set, mt-lifetime against heaptrack_print on the
# same program recorded by each: tests/progs/live-set allocates N blocks
# of 16 bytes, all live at once, then frees them in order (1M, 10M and
# 50M; LIVE="..." for others).  Medians of RUNS runs (default 3) of the
# wall time, and each one's peak RSS, in all and in bytes a live block.  Then the layouts a real allocator
# does not make but a kernel's caches and other allocators do (blocks 8
# and 16 bytes apart, and 32 bytes apart spanning more than the table),
# written as event text: mt-lifetime alone, no peer reads them.
#
# Not the same work: heaptrack pairs while it records (heaptrack_interpret
# turns each free's address into the index of its allocation), so
# heaptrack_print reads no addresses; mt-lifetime pairs addresses.  The
# recording times are beside them: heaptrack's includes its pairing.
. "$(dirname "$0")/common.sh"
RUNS=${RUNS:-3}
LIVE=${LIVE:-1000000 10000000 50000000}

# Peak RSS in KiB.
rss() { /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1; cat "$work/rss"; }

printf '%-10s %9s %9s %13s %8s %7s %7s %8s %7s %8s\n' live record-mt record-ht \
	mt-lifetime-s print-s ratio mt-MiB print-MiB mt-B/bl print-B/bl
for n in $LIVE; do
	rm -f "$work"/ht.* "$work/l.mtr"
	rmt=$(seconds cmd/mt-record -o "$work/l.mtr" -- tests/progs/live-set "$n")
	rht=$(seconds heaptrack -o "$work/ht" tests/progs/live-set "$n")
	mt=$(timed cmd/mt-lifetime -b -q "$work/l.mtr")
	ht=$(timed heaptrack_print "$work"/ht.*)
	mk=$(rss cmd/mt-lifetime -b -q "$work/l.mtr")
	hk=$(rss heaptrack_print "$work"/ht.*)
	printf '%-10s %9.2f %9.2f %13.2f %8.2f %6.2fx %7d %8d %7d %8d\n' "$n" "$rmt" "$rht" "$mt" "$ht" \
		"$(echo "$mt / $ht" | bc -l)" $((mk / 1024)) $((hk / 1024)) \
		$((mk * 1024 / n)) $((hk * 1024 / n))
done

echo
printf '%-28s %10s %8s %9s %7s\n' layout mt-s mt-MiB ns/event mt-B/bl
for spec in "1000000 8" "1000000 16" "6000000 32" "10000000 16"; do
	set -- $spec
	awk -v n="$1" -v step="$2" -f tests/live-set.awk | tests/progs/mtr-encode >"$work/g.mtr"
	mt=$(timed cmd/mt-lifetime -b -q "$work/g.mtr")
	mk=$(rss cmd/mt-lifetime -b -q "$work/g.mtr")
	printf '%-28s %10.2f %8d %9.1f %7d\n' "$1 blocks $2 bytes apart" "$mt" $((mk / 1024)) \
		"$(echo "$mt * 1000000000 / (2 * $1)" | bc -l)" $((mk * 1024 / $1))
done
