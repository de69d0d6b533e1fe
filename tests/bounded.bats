#!/usr/bin/env bats
# Memory bounded by the live set, not by the number of events: synthetic
# traces (tests/progs/gen-trace: 4096 blocks live, 300 stacks) of N and
# 10 N events through the analysers, each process's peak RSS on the
# larger within 1.3 times the smaller's and 8 MiB.  tests/bench/billion.sh
# takes it to a billion events, with times.
load helpers

# rss FILE COMMAND...: COMMAND's peak RSS in KiB appended to FILE.
rss() {
	local f=$1
	shift
	/usr/bin/time -a -o "$f" -f %M "$@"
}

# The two files' lines pairwise: the second within 1.3 times the first
# and 8 MiB.
bounded() {
	paste "$1" "$2" | awk '{ print; if ($2 > 1.3 * $1 + 8192) bad = 1 } END { exit bad }'
}

# Skipped per test: bats 1.8 counts a skip in setup_file as a failure.
needs_time() {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time (Debian's time) to measure peak RSS"
}

@test "gen-trace: N events, the same for a seed, paired as mt-lifetime sees them" {
	cd "$BATS_TEST_TMPDIR"
	"$PROGS/gen-trace" -s 7 100000 >a.mtr
	"$PROGS/gen-trace" -s 7 100000 >b.mtr
	"$PROGS/gen-trace" -s 8 100000 >c.mtr
	cmp a.mtr b.mtr
	! cmp -s a.mtr c.mtr || false
	run -0 --separate-stderr mt-decode -c a.mtr
	mt-decode a.mtr | awk -F'\t' '
		$1 == "alloc" { a++; live[$6] = 1; if ($2 < t) bad = "time" ; t = $2 }
		$1 == "free" { f++; if (!($6 in live)) bad = "free of " $6; delete live[$6]; t = $2 }
		$1 == "stack" { s++ }
		$1 == "proc" || $1 == "exit" { p++ }
		END { n = 0; for (k in live) n++
			printf "%d %d %d %s\n", a + f, n <= 4096, s <= 300 && p == 2, bad }' >counts
	[ "$(cat counts)" = "100000 1 1 " ]
	run -0 --separate-stderr mt-lifetime a.mtr
	[[ $stderr == *"0 frees of blocks allocated before recording; 0 double frees"* ]]
}

@test "mt-lifetime, mt-window, mt-group and mt-report's summary: 10M events in the memory of 1M" {
	needs_time
	cd "$BATS_TEST_TMPDIR"
	for n in 1000000 10000000; do
		"$PROGS/gen-trace" $n >t.mtr
		# The window: the trace's second tenth (some 52 ns an event).
		rss w$n mt-lifetime -qb t.mtr | rss w$n mt-window -b --from $((n / 200))us \
		    --to $((n / 100))us | rss w$n mt-group --by process,heap,type,function >/dev/null
		rss g$n mt-lifetime -qb t.mtr | rss g$n mt-group --by type,function,line >/dev/null
		rss s$n mt-report -q --no-symbolize t.mtr >/dev/null
	done
	bounded w1000000 w10000000
	bounded g1000000 g10000000
	bounded s1000000 s10000000
}

# A series and the peaks keep the changes at the times where something
# changed, at most 2^22 of them, in coarser buckets past that: their
# memory is flat from some 4M events on.
@test "mt-window --series and --at peak: 10M events in the memory of 5M" {
	needs_time
	cd "$BATS_TEST_TMPDIR"
	for n in 5000000 10000000; do
		"$PROGS/gen-trace" $n | mt-lifetime -qb >t.life
		rss s$n mt-window -b --series 10ms t.life >/dev/null
		rss p$n mt-window -b --at peak t.life 2>/dev/null | mt-group --tree >/dev/null
	done
	bounded s5000000 s10000000
	bounded p5000000 p10000000
}

# Life lines come in the order of their frees: mt-report sorts their
# changes in runs on disk past 2^22 of them, and its graph and peaks are
# those it finds in the events, where it needs no sorting.
@test "mt-report's page from life lines: its memory and its size bounded, its peaks exact" {
	needs_time
	cd "$BATS_TEST_TMPDIR"
	for n in 3000000 9000000; do
		"$PROGS/gen-trace" $n >t.mtr
		mt-lifetime -qb t.mtr >t.life
		rss p$n mt-report -q --no-symbolize -o p$n.html t.life
	done
	bounded p3000000 p9000000
	[ "$(stat -c %s p9000000.html)" -lt 32000000 ]
	diff <(mt-report --no-symbolize t.mtr | sed -n '/^process/,/^$/p') \
	    <(mt-report --no-symbolize t.life | sed -n '/^process/,/^$/p')
}
