#!/usr/bin/env bats
# --memory: pairing past a budget, through partitions in TMPDIR, gives
# what pairing in memory gives, byte for byte (mt-lifetime, mt-report).

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Both ways the same: mt-lifetime's lines in memory and past a budget of
# $2 (text; -b, decoded), its warnings and summary; and that the budget
# was passed.
same_both_ways() {
	local t=$1 budget=$2
	mt-lifetime "$t" >mem.txt 2>mem.err || true
	mt-lifetime --memory "$budget" "$t" >spill.txt 2>spill.err || true
	cmp mem.txt spill.txt
	grep -q '^mt-lifetime: past --memory ' spill.err
	diff <(sort mem.err) <(grep -v '^mt-lifetime: past --memory ' spill.err | sort)
	mt-lifetime -b -q "$t" | mt-decode >mem.b.txt
	mt-lifetime -b -q --memory "$budget" "$t" | mt-decode >spill.b.txt
	cmp mem.b.txt spill.b.txt
	[ -s mem.txt ]
}

@test "a budget of a tenth of the table: the same lifetimes, from a file and from stdin" {
	# 20000 blocks live at once: a table of 32768 slots, 768 KiB.
	"$PROGS/gen-trace" -l 20000 -t 4 300000 >g.mtr
	same_both_ways g.mtr 76k
	[ "$(grep -c '^life' mem.txt)" -gt 150000 ]
	# Survivors in address order (gen-trace's addresses have one length).
	grep 'exit$' mem.txt | cut -f7 >surv
	[ "$(wc -l <surv)" -gt 10000 ]
	LC_ALL=C sort -c surv
	# The heapsort that bounds the quicksort's depth sorts them alike.
	MT_SORT_HEAP=1 mt-lifetime -q g.mtr | cmp mem.txt -
	mt-lifetime -q --memory 76k <g.mtr >stdin.txt
	cmp mem.txt stdin.txt
	# A pipe by name (read twice: from a copy), and a file beside it.
	mt-lifetime -q --memory 76k <(cat g.mtr) g.mtr >pipe.txt
	mt-lifetime -q g.mtr g.mtr >twice.txt
	cmp twice.txt pipe.txt
	# Its memory: the budget bounds what grows with the live set (a 96 MiB table).
	"$PROGS/gen-trace" -l 2000000 -t 4 3000000 >big.mtr
	peak_rss m.rss mt-lifetime -q big.mtr >/dev/null
	peak_rss s.rss mt-lifetime -q --memory 1M big.mtr >/dev/null
	m=$(cat m.rss) s=$(cat s.rss)
	echo "in memory $m KiB, past 1M $s KiB"
	# (ASan's quarantine holds the partitions' freed tables: not there.)
	ldd "$MT_BINDIR/mt-lifetime" | grep -q libasan || [ "$s" -lt $((m / 2)) ]
}

@test "the hard cases past a budget: exec, exit, frees of blocks made before, double frees, mappings, lost lines" {
	awk 'BEGIN { OFS = "\t"
		print "proc", 1, 0, 0, "/bin/x", "x"
		print "proc", 2, 1, 0, "/bin/y", "y"
		for (i = 1; i <= 300; i++) {
			t = i * 100
			print "alloc", t, 1, 1, "malloc", sprintf("0x%x", 4096 + i * 16), i, "-"
			print "alloc", t + 1, 2, 2 + i % 3, "malloc", sprintf("0x%x", 4096 + i * 48), 8, i % 7
			print "alloc", t + 2, 1, 1, "mmap", sprintf("0x%x", 1048576 * i), 65536, "-"
			print "alloc", t + 3, 1, 1, "cache:kmalloc-64", sprintf("0x%x", 65536 + i * 8), 64, "-"
			if (i % 3 == 0) print "free", t + 4, 1, 1, "malloc", sprintf("0x%x", 4096 + (i - 2) * 16), "-"
			if (i % 5 == 0) print "free", t + 5, 2, 2 + i % 3, "malloc", sprintf("0x%x", 4096 + i * 48), "-"
			if (i % 5 == 0) print "free", t + 6, 2, 2, "malloc", sprintf("0x%x", 4096 + i * 48), "-"
			if (i % 7 == 0) print "free", t + 7, 1, 1, "malloc", sprintf("0x%x", 900000 + i), "-", 24
			if (i % 11 == 0) print "alloc", t + 8, 1, 1, "malloc", sprintf("0x%x", 4096 + i * 16), 3, "-"
			if (i % 13 == 0) print "free", t + 9, 1, 1, "mmap", sprintf("0x%x", 1048576 * i + 4096), "-", 8192
			if (i == 100) print "exit", t + 10, 2, 0
			if (i == 150) print "proc", 1, 0, t + 11, "/bin/z", "z"
			if (i == 200) print "lost", t + 12, 1, 5, "ring"
			if (i % 17 == 0) print "free", t + 13, 1, 1, "cache:kmalloc-64", sprintf("0x%x", 65536 + i * 8), "-"
		}
		print "alloc", 99999, 3, 3, "malloc", "0x10", 5, "-" }' >h.txt
	same_both_ways h.txt 1
	grep -q 'double free' mem.err
	grep -q 'allocation of a live block' mem.err
	grep -q 'exit$' mem.txt
	grep -q 'end$' mem.txt
	# And mt-report: the summary and the page's data.
	mt-report -B --no-symbolize h.txt >r.mem 2>/dev/null || true
	mt-report -B --no-symbolize --memory 1 h.txt >r.spill 2>/dev/null || true
	cmp r.mem r.spill
	mt-report --no-symbolize --json j.mem h.txt >/dev/null 2>&1 || true
	mt-report --no-symbolize --memory 1 --json j.spill h.txt >/dev/null 2>&1 || true
	cmp j.mem j.spill
	# Double frees before the budget is passed and after, in two inputs:
	# ten said, the rest counted in one line an input, as in memory.
	for f in 1 2; do
		awk -v f="$f" 'BEGIN { OFS = "\t"; print "proc", f, 0, 0, "/bin/x", "x"
			for (i = 1; i <= 30; i++) {
				print "alloc", i, f, f, "malloc", sprintf("0x%x", 256 * i), 8, "-"
				print "free", i + 1, f, f, "malloc", sprintf("0x%x", 256 * i), "-"
				print "free", i + 2, f, f, "malloc", sprintf("0x%x", 256 * i), "-" }
			for (i = 1; i <= 5000; i++)
				print "alloc", 100 + i, f, f, "malloc", sprintf("0x%x", 1048576 + 16 * i), 8, "-"
			for (i = 31; i <= 60; i++) {
				print "alloc", 6000 + i, f, f, "malloc", sprintf("0x%x", 256 * i), 8, "-"
				print "free", 6001 + i, f, f, "malloc", sprintf("0x%x", 256 * i), "-"
				print "free", 6002 + i, f, f, "malloc", sprintf("0x%x", 256 * i), "-" } }' >d$f.txt
	done
	mt-lifetime d1.txt d2.txt >mem.txt 2>mem.err || true
	mt-lifetime --memory 64k d1.txt d2.txt >spill.txt 2>spill.err || true
	cmp mem.txt spill.txt
	grep -q 'past --memory 64.0 KiB at record [1-9][0-9][0-9][0-9]:' spill.err
	diff mem.err <(grep -v '^mt-lifetime: past --memory ' spill.err)
	has_line "$(cat mem.err)" '^mt-lifetime: d1.txt: 50 more double frees$'
	has_line "$(cat mem.err)" '^mt-lifetime: d2.txt: 60 more double frees$'
}

@test "recorded traces past a budget: threads' temporaries, free stacks, forks and execs, a circular and a cut one" {
	mt-record -o t.mtr -- "$PROGS/threads" >/dev/null 2>&1
	same_both_ways t.mtr 1
	mt-record -F -o f.mtr -- "$PROGS/demo" >/dev/null 2>&1
	same_both_ways f.mtr 1
	grep -q 'temporary$' mem.txt
	awk -F'\t' '$1 == "life" && NF >= 13 && $13 ~ /^[0-9]+$/ { n++ } END { exit !n }' mem.txt
	mt-record -o x.mtr -- "$PROGS/forkexec" >/dev/null 2>&1
	same_both_ways x.mtr 1
	mt-record --max-size 64K --circular -o c.mtr -- "$PROGS/pairs" 200000 >/dev/null 2>&1
	same_both_ways c.mtr 1k
	mt-record -o whole.mtr -- "$PROGS/pairs" 300000 >/dev/null 2>&1
	head -c $(( $(stat -c %s whole.mtr) / 2 )) whole.mtr >cut.mtr
	same_both_ways cut.mtr 1k
	mt-report -B cut.mtr >r.mem 2>/dev/null || true
	mt-report -B --memory 1k cut.mtr >r.spill 2>/dev/null || true
	cmp r.mem r.spill
}

@test "the dense layouts of tests/bench/pairing.sh past a budget" {
	for step in 8 16 32; do
		awk -v n=50000 -v step="$step" -f "$TESTS/live-set.awk" | "$PROGS/mtr-encode" >l.mtr
		same_both_ways l.mtr 100k
	done
}

@test "--memory: a bad size and a TMPDIR that cannot be written are errors" {
	"$PROGS/gen-trace" -l 2000 20000 >g.mtr
	run -2 --separate-stderr mt-lifetime --memory lots g.mtr
	[ "$stderr" = "mt-lifetime: bad size for --memory 'lots' (as 64K, 64KiB, 1.5M, 2G)" ]
	run -1 --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/none" mt-lifetime -q --memory 1k g.mtr
	has_line "$stderr" "^mt-lifetime: making a temporary file in $BATS_TEST_TMPDIR/none: No such file or directory$"
	run -1 --separate-stderr env TMPDIR="$BATS_TEST_TMPDIR/none" mt-report --memory 1k g.mtr
	has_line "$stderr" "^mt-report: making a temporary file in $BATS_TEST_TMPDIR/none: No such file or directory$"
}
