#!/usr/bin/env bats
# mt-pooldiff: PoolMon snapshots from fixture /proc trees (golden), the
# table with its changes, the growth verdict on generated logs, and a
# leaking process recorded for real.

load helpers

@test "snapshot of every source from a fixture /proc tree (golden)" {
	golden mt-pooldiff snapshot-all
}

@test "snapshot with the default sources: allocinfo where the kernel has it (golden)" {
	golden mt-pooldiff snapshot-default
}

@test "snapshot of a process that is not there: said, no snapshot written, exit 2 (golden)" {
	golden mt-pooldiff snapshot-nopid
}

@test "snapshot of an unknown source: exit 2 (golden)" {
	golden mt-pooldiff snapshot-badsource
}

@test "snapshot rows are fixed columns, one a line, tags without blanks" {
	cd "$TESTS/fixtures/mt-pooldiff"
	run -0 --separate-stderr mt-pooldiff --snapshot --proc root/proc pid:4242
	snap=$output
	# Every row has seven fields, whatever its tag.
	run -0 awk '!/^#/ && NF != 7 { bad++ } END { exit bad > 0 }' <<<"$snap"
	has_line "$snap" '^/opt/My\\040App/lib\\040app.so +file +- +- +1 +155648 +155648$'
	# Bytes are Rss + Swap: 1588 kB + 100 kB.
	has_line "$snap" '^\[heap\] +heap +- +- +1 +1728512 +1728512$'
}

# A /proc tree for step $1 of a log: one cache leaking, two noisy ones,
# one that grew once and then held, one steady, one that grows in all
# intervals but one.
proc_step() {
	local i=$1 d=$BATS_TEST_TMPDIR/s$1/proc
	mkdir -p "$d"
	{
		echo "slabinfo - version: 2.1"
		echo "# name <active_objs> <num_objs> <objsize> ..."
		printf 'leaky_cache %d %d 128 32 1 : tunables 0 0 0 : slabdata 1 1 0\n' $((1000 + 50 * i)) $((1000 + 50 * i))
		printf 'noisy_a %d %d 64 64 1 : tunables 0 0 0 : slabdata 1 1 0\n' $((5000 + (i % 2) * 300)) 6000
		printf 'noisy_b %d %d 256 16 1 : tunables 0 0 0 : slabdata 1 1 0\n' $((2000 + (i * 7 % 5) * 40)) 3000
		printf 'once_cache %d %d 512 8 1 : tunables 0 0 0 : slabdata 1 1 0\n' $((i < 3 ? 100 : 900)) 1000
		printf 'steady %d %d 96 42 1 : tunables 0 0 0 : slabdata 1 1 0\n' 777 800
		# Grows in every interval but one (6 to 7).
		printf 'mostly_cache %d %d 32 128 1 : tunables 0 0 0 : slabdata 1 1 0\n' $((300 + 20 * (i <= 6 ? i : i - 1))) 600
	} >"$d/slabinfo"
	printf 'MemTotal: 1000 kB\nSlab: %d kB\n' $((100 + i)) >"$d/meminfo"
}

# A log of $1 snapshots five minutes apart, as cron would append them.
make_log() {
	local i
	for ((i = 0; i < $1; i++)); do
		proc_step $i
		mt-pooldiff --snapshot --proc "$BATS_TEST_TMPDIR/s$i/proc" --time @$((1795305600 + 300 * i)) slab
	done >"$BATS_TEST_TMPDIR/pool.log"
}

@test "growth: the leaking cache out of noisy neighbours, not the one that grew once" {
	make_log 12
	run -1 --separate-stderr mt-pooldiff --growth "$BATS_TEST_TMPDIR/pool.log"
	has_line "$output" '^#mt-pooldiff growth: 1 of 6 tags grew in at least 11 of the last 11 intervals, 2026-11-22T00:00:00Z to 2026-11-22T00:55:00Z$'
	# 50 objects of 128 bytes every 5 minutes: 6400 B, 76800 B an hour.
	has_line "$output" '^leaky_cache +slab +11/11 +128000 +198400 +\+70400 +\+75.0KiB$'
	run grep -c '^#evidence' <<<"$output"
	[ "$output" = 1 ]
}

@test "growth K/N: nearly every interval; a pool that grew once then held stays quiet" {
	make_log 12
	log=$BATS_TEST_TMPDIR/pool.log
	# 10 of 11 takes mostly_cache too; the noisy ones grow in 6 and 7.
	run -1 --separate-stderr mt-pooldiff --growth 10/11 "$log"
	run -0 awk '!/^#/ && NF == 7 { print $1, $3 }' <<<"$output"
	[ "$output" = "$(printf 'leaky_cache 11/11\nmostly_cache 10/11')" ]
	# Loose enough, the noisy ones that end higher show (fastest first),
	# never once_cache.
	run -1 --separate-stderr mt-pooldiff --growth 6/11 "$log"
	run -0 awk '!/^#/ && NF == 7 { print $1, $3 }' <<<"$output"
	[ "$output" = "$(printf 'leaky_cache 11/11\nnoisy_b 7/11\nnoisy_a 6/11\nmostly_cache 10/11')" ]
	# once_cache grew from step 2 to 3 and held: quiet over the last 2.
	run -0 --separate-stderr mt-pooldiff --growth 1/2 -m 'once*' "$log"
	[ "$output" = "#mt-pooldiff growth: 0 of 1 tags grew in at least 1 of the last 2 intervals, 2026-11-22T00:45:00Z to 2026-11-22T00:55:00Z" ]
	run -1 --separate-stderr mt-pooldiff --growth 1/9 -m 'once*' "$log"
	has_line "$output" '^once_cache +slab +1/9 +51200 +460800 '
}

@test "no growth: exit 0; too few snapshots or a bad K/N: exit 2" {
	make_log 12
	log=$BATS_TEST_TMPDIR/pool.log
	run -0 --separate-stderr mt-pooldiff --growth -x leaky_cache "$log"
	has_line "$output" '^#mt-pooldiff growth: 0 of 5 tags'
	head -8 "$log" >"$BATS_TEST_TMPDIR/one.log"
	run -2 --separate-stderr mt-pooldiff --growth "$BATS_TEST_TMPDIR/one.log"
	[ "$stderr" = "mt-pooldiff: growth needs two snapshots, the input has one" ]
	run -2 --separate-stderr mt-pooldiff --growth 5/3 "$log"
	[ "$stderr" = "mt-pooldiff: bad growth '5/3' (K/N: grew in K of the last N intervals)" ]
	run -2 --separate-stderr mt-pooldiff --growth 20/40 "$log"
	[ "$stderr" = "mt-pooldiff: 40 intervals asked for, the input has 11" ]
}

@test "table: the latest snapshot with each change since the one before" {
	make_log 4
	log=$BATS_TEST_TMPDIR/pool.log
	run -0 --separate-stderr mt-pooldiff "$log"
	has_line "$output" '^#mt-pooldiff time=2026-11-22T00:15:00Z host=.* snapshots=4 changes-since=2026-11-22T00:10:00Z$'
	# Step 3: leaky 1150 objects (+50), noisy_a 5300 (+300), once 900 (+800).
	has_line "$output" '^leaky_cache +slab +- \(-\) +- \(-\) +1150 \(\+50\) +147200 \(\+6400\) +128$'
	has_line "$output" '^noisy_a +slab +- \(-\) +- \(-\) +5300 \(\+300\) +339200 \(\+19200\) +64$'
	has_line "$output" '^once_cache +slab +- \(-\) +- \(-\) +900 \(\+800\) +460800 \(\+409600\) +512$'
	# Sorted by tag unless asked.
	run -0 awk '!/^#/ { print $1 }' <<<"$output"
	[ "$output" = "$(printf 'leaky_cache\nmostly_cache\nnoisy_a\nnoisy_b\nonce_cache\nsteady')" ]
}

@test "table: sort by value or change, include and exclude by glob or regex, totals" {
	make_log 4
	log=$BATS_TEST_TMPDIR/pool.log
	run -0 --separate-stderr bash -c "mt-pooldiff -s bytes '$log' | awk '!/^#/ { print \$1 }' | head -2"
	[ "$output" = "$(printf 'noisy_b\nonce_cache')" ]
	run -0 --separate-stderr bash -c "mt-pooldiff -s bytes --by-change '$log' | awk '!/^#/ { print \$1 }' | head -2"
	[ "$output" = "$(printf 'once_cache\nnoisy_a')" ]
	run -0 --separate-stderr bash -c "mt-pooldiff -s diff -m 'noisy*' -m steady -x '*_b' '$log' | awk '!/^#/ { print \$1 }'"
	[ "$output" = "$(printf 'noisy_a\nsteady')" ]
	run -0 --separate-stderr bash -c "mt-pooldiff --regex -m '^(leaky|once)_' '$log' | awk '!/^#/ { print \$1 }'"
	[ "$output" = "$(printf 'leaky_cache\nonce_cache')" ]
	run -0 --separate-stderr mt-pooldiff --totals -m 'leaky*' -m 'once*' "$log"
	has_line "$output" '^TOTAL +- +- \(-\) +- \(-\) +2050 \(\+850\) +608000 \(\+416000\) +296$'
	run -2 --separate-stderr mt-pooldiff -s size "$log"
	[ "$stderr" = "mt-pooldiff: bad sort key 'size' (tag, allocs, frees, diff, bytes, per-alloc)" ]
}

@test "a bad row or header in a log: file:line, the rest read, exit 2" {
	make_log 3
	log=$BATS_TEST_TMPDIR/pool.log
	sed -i '4s/.*/leaky_cache slab - - x 1 1/; 17s/^#mt-pool 1 time=[^ ]*/#mt-pool 1 time=yesterday/' "$log"
	run -2 --separate-stderr mt-pooldiff "$log"
	[ "${stderr_lines[0]}" = "mt-pooldiff: $log:4: bad counter 'x'" ]
	[ "${stderr_lines[1]}" = "mt-pooldiff: $log:17: bad snapshot time 'time=yesterday'" ]
	has_line "$output" '^noisy_a '
}

@test "a leaking process recorded: names exactly the leaking function, with its rate" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o leak.mtr -- "$PROGS/poolleak" >prog.out 2>/dev/null
	read -r leaked secs <prog.out
	mt-symbolize leak.mtr >leak.txt
	run -1 --separate-stderr mt-pooldiff --interval 200ms --growth leak.txt
	run -0 awk '!/^#/ && NF == 7 { print $1, $2, $3 }' <<<"$output"
	[ "$output" = "LeakyCache malloc 9/9" ]
	# The rate: what the program leaked over the time it ran, within 15%.
	run -1 --separate-stderr mt-pooldiff --interval 200ms --growth leak.txt
	# PerHour in units for people: +82.4MiB
	rate=$(awk '$1 == "LeakyCache" { v = $7 + 0; u = $7; sub(/^[-+0-9.]*/, "", u)
		m = u == "KiB" ? 1024 : u == "MiB" ? 1048576 : u == "GiB" ? 1073741824 : 1
		printf "%d", v * m }' <<<"$output")
	want=$(awk -v l="$leaked" -v s="$secs" 'BEGIN { printf "%d", l / s * 3600 }')
	awk -v r="$rate" -v w="$want" 'BEGIN { exit !(r > w * 0.85 && r < w * 1.15) }'
	# The same from its lifetimes, and tagged by heap: the heap grows.
	run -1 --separate-stderr bash -c "mt-lifetime -q leak.txt | mt-pooldiff --interval 200ms --growth"
	has_line "$output" '^LeakyCache +malloc +9/9 '
	run -0 --separate-stderr mt-pooldiff --interval 200ms --tag heap leak.txt
	has_line "$output" '^malloc +malloc +'
}

@test "the table of a recorded process: Allocs and Frees counted, Diff and Bytes outstanding" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o leak.mtr -- "$PROGS/poolleak" >/dev/null 2>&1
	run -0 --separate-stderr bash -c "mt-symbolize leak.mtr | mt-pooldiff --interval 1s -m '[A-Z]*'"
	# At the end: 1000 leaked blocks of 48; noisy 1020 allocs all freed;
	# GrowOnce's ten blocks freed at the end; GrowThenShrink 200 and 200.
	has_line "$output" '^LeakyCache +malloc +1000 \(\+[0-9]+\) +0 \(\+0\) +1000 \(\+[0-9]+\) +48000 \(\+[0-9]+\) +48$'
	has_line "$output" '^NoisyBuffers +malloc +1020 \(\+[0-9]+\) +1020 \(\+[0-9]+\) +0 \([-+][0-9]+\) +0 \([-+][0-9]+\) +0$'
	has_line "$output" '^GrowOnce +malloc +10 \(\+0\) +10 \(\+10\) +0 \(-10\) +0 \(-1024000\) +0$'
	has_line "$output" '^GrowThenShrink +malloc +200 \(\+[0-9]+\) +200 \(\+[0-9]+\) +0 '
}

@test "events without --interval, or nothing to read: exit 2" {
	cd "$BATS_TEST_TMPDIR"
	printf 'alloc\t5\t1\t1\tmalloc\t0x10\t8\t-\n' >e.txt
	run -2 --separate-stderr mt-pooldiff e.txt
	[ "$stderr" = "mt-pooldiff: events need --interval to make snapshots" ]
	: >empty.txt
	run -2 --separate-stderr mt-pooldiff empty.txt
	[ "$stderr" = "mt-pooldiff: empty.txt: empty: not an mt trace or event text
mt-pooldiff: no snapshots in the input" ]
	run -2 --separate-stderr mt-pooldiff --interval 0 e.txt
	[ "$stderr" = "mt-pooldiff: bad duration for --interval '0'" ]
	run -2 --separate-stderr mt-pooldiff --interval 5 e.txt
	[ "$stderr" = "mt-pooldiff: --interval '5' needs a unit: ns, us, ms, s, m or h" ]
}

@test "snapshots of a live process that leaks: its [heap] grows in every interval, /proc says" {
	cd "$BATS_TEST_TMPDIR"
	# Its first second: the heap takes the leak and the functions that
	# grow; in the second, freed blocks are reused.
	"$PROGS/poolleak" >/dev/null &
	pid=$!
	for i in 1 2 3 4; do
		sleep 0.15
		mt-pooldiff --snapshot pid:$pid >>live.log
	done
	wait $pid
	run -1 --separate-stderr mt-pooldiff --growth live.log
	has_line "$output" '^\[heap\] +heap +3/3 '
	# Bytes of [heap] are Rss + Swap of the mapping, in every snapshot.
	[ "$(grep -c '^\[heap\] ' live.log)" = 4 ]
}

@test "pool records of mt-events(5): the records of one time make a snapshot" {
	cd "$BATS_TEST_TMPDIR"
	printf '#mt-events\t1\tstart=1795305600000000000\thost=h\n' >p.txt
	printf 'pool\t%s\t%s\tslab\t%s\t%s\t%s\n' \
		0 foo 10 2 800  0 bar 5 5 0 \
		300000000000 foo 20 2 1800  300000000000 bar 9 8 100 \
		600000000000 foo 30 2 2800  600000000000 bar 9 9 0 >>p.txt
	run -0 --separate-stderr mt-pooldiff p.txt
	has_line "$output" '^#mt-pooldiff time=2026-11-22T00:10:00Z host=h snapshots=3 changes-since=2026-11-22T00:05:00Z$'
	has_line "$output" '^foo +slab +30 \(\+10\) +2 \(\+0\) +28 \(\+10\) +2800 \(\+1000\) +100$'
	has_line "$output" '^bar +slab +9 \(\+0\) +9 \(\+1\) +0 \(-1\) +0 \(-100\) +0$'
	run -1 --separate-stderr mt-pooldiff --growth p.txt
	has_line "$output" '^foo +slab +2/2 +800 +2800 +\+2000 +\+11.7KiB$'
}

@test "a snapshot without rows (a source that failed) is left out, said: --growth judges the others" {
	make_log 12
	log=$BATS_TEST_TMPDIR/pool.log
	# a failed snapshot as an older mt-pooldiff wrote it, header only
	sed -i "$(grep -n '^#mt-pool ' "$log" | sed -n 7p | cut -d: -f1)i #mt-pool 1 time=2026-11-22T00:32:00Z host=h\n#Tag Type Allocs Frees Diff Bytes PerAlloc" "$log"
	line=$(grep -n '^#mt-pool 1 time=2026-11-22T00:32:00Z' "$log" | cut -d: -f1)
	run -2 --separate-stderr mt-pooldiff --growth "$log"
	has_line "$output" '^#mt-pooldiff growth: 1 of 6 tags grew in at least 11 of the last 11 intervals'
	[ "$stderr" = "mt-pooldiff: $log:$line: snapshot without rows left out '#mt-pool'" ]
	# and a failed source writes none
	run -2 --separate-stderr mt-pooldiff --snapshot --proc "$BATS_TEST_TMPDIR/s0/proc" slab pid:999999
	[ -z "$output" ]
}

@test "--snapshot --sort bytes: the rows biggest first, as PoolMon's /b" {
	cd "$TESTS/fixtures/mt-pooldiff"
	run -0 --separate-stderr mt-pooldiff --snapshot --proc root/proc -s bytes slab
	run -0 awk '!/^#/ { print $6 }' <<<"$output"
	[ "$output" = "$(sort -rn <<<"$output")" ]
	[ "${#lines[@]}" -gt 3 ]
}

@test "a stream's short last interval joins the whole one before: changes over a whole interval" {
	cd "$BATS_TEST_TMPDIR"
	# 100 bytes every 100 ms from 0.05 s to 4.15 s: the last interval,
	# 4 s to 4.15 s, is short
	{
		printf '#mt-events\t1\tstart=1795305600000000000\thost=h\n'
		printf 'proc\t10\t1\t0\t/bin/a\ta\n'
		for i in $(seq 0 41); do
			printf 'alloc\t%d\t10\t10\tmalloc\t0x%x\t100\t-\n' $((50000000 + i * 100000000)) $((4096 + i * 128))
		done
	} >s.txt
	run -0 --separate-stderr mt-pooldiff --interval 1s --tag heap s.txt
	has_line "$output" '^#mt-pooldiff time=2026-11-22T00:00:04.150Z host=h snapshots=4 changes-since=2026-11-22T00:00:03Z last-interval=1.150s$'
	has_line "$output" '^malloc +malloc +42 \(\+12\) +0 \(\+0\) +42 \(\+12\) +4200 \(\+1200\) +100$'
}

@test "the table for people: a tag's blanks as blanks, a long tag cut in the middle to its column" {
	cd "$BATS_TEST_TMPDIR"
	long=namespace::Template_with_a_long_name::allocate_the_thing
	printf '#mt-pool 1 time=2026-11-22T00:00:00Z host=h\nmy\\040tag slab 1 0 1 10 10\n%s slab 2 0 2 20 10\n' "$long" >l.log
	printf '#mt-pool 1 time=2026-11-22T00:05:00Z host=h\nmy\\040tag slab 2 0 2 20 10\n%s slab 3 0 3 30 10\n' "$long" >>l.log
	run -0 --separate-stderr mt-pooldiff l.log
	has_line "$output" '^my tag +slab +2 \(\+1\)'
	has_line "$output" '^namespace::Tem\.\.\.ocate_the_thing slab +3 \(\+1\)'
	# every row's Type starts in the same column
	[ "$(awk '!/^#/ { print index($0, "slab") }' <<<"$output" | sort -u)" = 34 ]
	# a row of too many fields is said, not read past its end
	printf 'x slab 1 0 1 10 10 9 9\n' >>l.log
	run -2 --separate-stderr mt-pooldiff l.log
	[ "$stderr" = "mt-pooldiff: l.log:7: bad snapshot row 'x slab 1 0 1 10 10 9 9'" ]
}

@test "out of range: times past the intervals, sums past 2^63, the year 4000, -2^63, long /proc lines, an empty slabinfo, format 2, a tag twice" {
	cd "$BATS_TEST_TMPDIR"
	# a time of 2^63-2 at 50 ms once asked for all memory
	printf '#mt-events\t1\tstart=0\thost=h\nproc\t5\t1\t0\t/bin/x\tx\n' >big.txt
	printf 'alloc\t%s\t5\t5\tmalloc\t0x%x\t%s\t-\n' 1000 16 100 9223372036854775806 32 8 2000 48 9223372036854775000 \
		3000 64 9223372036854775000 >>big.txt
	run -2 --separate-stderr timeout 60 mt-pooldiff --interval 50ms --tag heap big.txt
	[ "${stderr_lines[0]}" = "mt-pooldiff: a time of 9223372036854775806 ns is more than 10000000 intervals in: a longer --interval (what lies there is not counted)" ]
	[ "${stderr_lines[1]}" = "mt-pooldiff: Bytes saturated at 9223372036854775807 (more than 2^63-1: read it as at least that)" ]
	run -0 awk '!/^#/ && $9 < 0' <<<"$output"
	[ -z "$output" ]
	# times and counters of a log
	printf '#mt-pool 1 time=4000-01-01T00:00:00Z host=h\nx slab 1 0 1 -9223372036854775808 1\n' >y.log
	run -2 --separate-stderr mt-pooldiff y.log
	[ "${stderr_lines[0]}" = "mt-pooldiff: y.log:1: bad snapshot time 'time=4000-01-01T00:00:00Z'" ]
	[ "${stderr_lines[1]}" = "mt-pooldiff: y.log:2: bad counter '-9223372036854775808'" ]
	run -2 --separate-stderr mt-pooldiff --snapshot --time @99999999999 slab
	printf '#mt-pool 2 time=2026-11-22T00:00:00Z host=h\nx slab 1 0 1 10 10\n#mt-pool 1 time=2026-11-22T00:05:00Z host=h\nx slab 1 0 1 10 10\nx slab 2 0 2 20 10\n' >f.log
	run -2 --separate-stderr mt-pooldiff f.log
	[ "${stderr_lines[0]}" = "mt-pooldiff: f.log:1: snapshot format this mt-pooldiff does not read '2'" ]
	[ "${stderr_lines[1]}" = "mt-pooldiff: f.log:5: tag twice in one snapshot 'x'" ]
	has_line "$output" '^x +slab +1 \(-\)'
	# /proc as a hostile kernel would write it
	mkdir -p p/proc p/sys/kernel/slab
	printf 'MemTotal: 1000 kB\n' >p/proc/meminfo
	printf 'slabinfo - version: 2.1\n' >p/proc/slabinfo
	run -0 --separate-stderr mt-pooldiff --snapshot --proc p/proc slab
	printf 'big 4611686018427387904 4611686018427387904 4 1 1 : tunables 0 0 0\n%s 1 1 8 1 1\nok 10 10 8 1 1\n' \
		"$(printf 'x%.0s' $(seq 1100))" >>p/proc/slabinfo
	run -2 --separate-stderr mt-pooldiff --snapshot --proc p/proc slab
	[ "${stderr_lines[0]}" = "mt-pooldiff: p/proc/slabinfo:2: bytes out of range 'big'" ]
	[[ "${stderr_lines[1]}" == "mt-pooldiff: p/proc/slabinfo:3: line too long 'xxxx"* ]]
	[ -z "$output" ]
}

@test "20,000 snapshots of a churning tag set in bounded memory (once a counter a snapshot for every tag: 2.35 GB)" {
	cd "$BATS_TEST_TMPDIR"
	# 10 tags a snapshot, each new tag for 10 snapshots: 20,000 tags in all;
	# and one that grows in every snapshot
	awk 'BEGIN { for (s = 0; s < 20000; s++) {
		printf "#mt-pool 1 time=@%d host=h\n", 1795305600 + 60 * s
		for (k = 0; k < 10; k++) { t = s - k; if (t >= 0) printf "tag%d slab - - 1 %d %d\n", t, 100 + k, 100 + k }
		printf "grower slab - - %d %d 8\n", s + 1, 8 * (s + 1) } }' >churn.log
	# peak RSS, not ulimit -v: a sanitizer's shadow takes address space
	# (and its allocator keeps what is freed: a looser bound there)
	run -1 --separate-stderr peak_rss rss mt-pooldiff --growth 100/100 churn.log
	[ "$(tail -n 1 rss)" -lt "$(rss_bound 500000)" ]
	has_line "$output" '^#mt-pooldiff growth: 1 of 20001 tags grew in at least 100 of the last 100 intervals'
	has_line "$output" '^grower +slab +100/100 '
}

@test "a stream cut at 1 ns: the changes of the intervals that change, not a counter an interval for every tag" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o d.mtr -- "$PROGS/demo" >/dev/null 2>&1
	# its times moved to start 1 ms in, a tenth as far apart: how long the
	# program took to start and run (25 ms under ASan) is not what this tests
	mt-lifetime -q d.mtr | awk -F '\t' -v OFS='\t' '
		function at(t) { return t == "-" ? t : int((t - base) / 10) + 1000000 }
		$1 == "proc" && base == "" { base = $4 }
		$1 == "proc" { $4 = at($4) } $1 == "life" { $2 = at($2); $3 = at($3) }
		$1 == "exit" { $2 = at($2) } { print }' >l.txt
	# a few ms of trace: millions of intervals (once 320 MB)
	run -0 --separate-stderr peak_rss rss mt-pooldiff --interval 1ns --tag heap l.txt
	[ "$(tail -n 1 rss)" -lt "$(rss_bound 150000)" ]
	has_line "$output" '^malloc +malloc +9 '
}

@test "--live: a table as each interval closes, the stream's time deciding, and the short last one" {
	printf '#mt-events\t1\tstart=1795400000000000000\thost=h\nproc\t1\t0\t0\t/x\tx\n' >live.txt
	printf 'alloc\t100\t1\t1\tmalloc\t0x10\t100\t-\nalloc\t1500000000\t1\t1\tmalloc\t0x20\t100\t-\n' >>live.txt
	printf 'free\t2500000000\t1\t1\tmalloc\t0x10\t-\nalloc\t3200000000\t1\t1\tmalloc\t0x30\t50\t-\n' >>live.txt
	run -0 mt-pooldiff --interval 1s --tag heap --live live.txt
	# intervals 0, 1 and 2 closed by the events after them, then the end
	[ "$(echo "$output" | grep -c '^#mt-pooldiff time=')" = 4 ]
	[ "$(echo "$output" | awk '$1 == "malloc" { printf "%s ", $9 }')" = "100 200 100 150 " ]
	has_line "$output" '^#mt-pooldiff time=2026-11-23T02:13:23.200Z host=h snapshots=4 changes-since=2026-11-23T02:13:23Z$'
	# the end's table counts what the table without --live counts
	run -0 mt-pooldiff --interval 1s --tag heap live.txt
	[ "$(echo "$output" | awk '$1 == "malloc" { printf "%s %s %s", $3, $5, $9 }')" = "3 1 150" ]
	run -0 mt-pooldiff --interval 1s --tag heap --live --growth 2/2 live.txt
	has_line "$output" '^#mt-pooldiff growth: 0 of 1 tags grew'
	run -2 --separate-stderr mt-pooldiff --live live.txt
	[ "$stderr" = "mt-pooldiff: --live needs --interval" ]
}

@test "sums past 2^63-1: exact where they fit again, saturated where shown, the column said, exit 2; a log's changes, totals, growth" {
	cd "$BATS_TEST_TMPDIR"
	M=9223372036854775807
	up="(more than 2^63-1: read it as at least that)"
	A=6000000000000000000
	# two blocks of 6e18 bytes in the first interval, one freed in the next
	printf '#mt-events\t1\tstart=0\thost=h\n' >ev.txt
	printf 'alloc\t%s\t5\t5\tmalloc\t0x%s\t%s\t-\n' 10000000 10 $A 20000000 20 $A 30000000 30 100 >>ev.txt
	printf 'free\t60000000\t5\t5\tmalloc\t0x10\t-\nalloc\t100000000\t5\t5\tmalloc\t0x40\t8\t-\n' >>ev.txt
	# the first snapshot's 2^64 bytes once stopped at 2^63-1: the second said 3223372036854775815
	run -0 --separate-stderr mt-pooldiff --interval 50ms --tag heap ev.txt
	has_line "$output" '^malloc +malloc +4 \(\+1\) +1 \(\+1\) +3 \(\+0\) +6000000000000000108 \(-5999999999999999992\) 2000000000000000036$'
	[ -z "$stderr" ]
	run -2 --separate-stderr mt-pooldiff --interval 50ms --tag heap --live ev.txt
	has_line "$output" "^malloc +malloc +3 \(-\) +0 \(-\) +3 \(-\) +$M \(-\) +4000000000000000033$"
	has_line "$output" '^malloc +malloc +3 \(\+0\) +1 \(\+1\) +2 \(-1\) +6000000000000000100 \(-6000000000000000000\) 3000000000000000050$'
	[ "$stderr" = "mt-pooldiff: Bytes saturated at $M $up" ]
	# a log's values fit; their changes, totals and growth may not
	printf '#mt-pool 1 time=2026-11-22T00:00:00Z host=h\nx slab 1 0 1 -9000000000000000000 1\ny slab 1 0 1 9000000000000000000 1\n' >c.log
	printf '#mt-pool 1 time=2026-11-22T00:05:00Z host=h\nx slab 1 0 1 9000000000000000000 1\ny slab 1 0 1 9000000000000000000 1\n' >>c.log
	run -2 --separate-stderr mt-pooldiff --totals c.log
	has_line "$output" "^x +slab .* 9000000000000000000 \(\+$M\) 9000000000000000000\$"
	has_line "$output" "^TOTAL +- +2 \(\+0\) +0 \(\+0\) +2 \(\+0\) +$M \(\+$M\) 9000000000000000000\$"
	[ "$stderr" = "mt-pooldiff: Bytes saturated at $M $up" ]
	run -2 --separate-stderr mt-pooldiff --growth c.log
	has_line "$output" "^x +slab +1/1 -9000000000000000000 9000000000000000000 \+$M +>=8\.0EiB\$"
	has_line "$output" "^2026-11-22T00:05:00Z +9000000000000000000 \(\+$M\)\$"
	[ "$stderr" = "mt-pooldiff: Growth saturated at $M $up
mt-pooldiff: PerHour saturated at $M $up" ]
	# /proc/allocinfo's counts are unsigned: -2^63 bytes in -1 calls once divided to a crash
	mkdir -p p/proc
	printf 'MemTotal: 1000 kB\n' >p/proc/meminfo
	printf -- '-9223372036854775808 -1 mm/x.c:1 func:f\n5 1 mm/y.c:2 func:g\n' >p/proc/allocinfo
	run -2 --separate-stderr mt-pooldiff --snapshot --proc p/proc allocinfo
	[ "$stderr" = "mt-pooldiff: p/proc/allocinfo:1: bad allocinfo line '-9223372036854775808 -1 mm/x.c:1 func:f'
mt-pooldiff: no snapshot written" ]
}

@test "--tag function: a Rust leak tagged by the program's function, the allocation API skipped as in mt-group" {
	rust_leak
	cd "$BATS_FILE_TMPDIR"
	mt-lifetime -q rl.sym >rl.life
	run -0 --separate-stderr mt-pooldiff --interval 1h --tag function rl.life
	# 20 Vecs forgotten (tests/progs/rust-leak: a hand count), none freed
	has_line "$output" '^rust_leak::leak_records +malloc +20 \(-\) +0 \(-\) +20 \(-\) '
	has_line "$output" '^rust_leak::make_allocator +malloc +1 \(-\) +1 \(-\) '
	! has_line "$output" '^(<+)?(alloc::|hashbrown::|__rust|__rdl|core::)' || false
	# the tags are mt-group's allocating functions
	a=$(awk '!/^#/ { print $1 }' <<<"$output" | sort -u)
	b=$(mt-group --by function --format tsv --no-suppress --no-shorten rl.life | tail -n +2 | cut -f1 | sort -u)
	[ "$(grep -c . <<<"$a")" = "$(grep -c . <<<"$b")" ]
	grep -qx 'rust_leak::leak_records' <<<"$b"
}
