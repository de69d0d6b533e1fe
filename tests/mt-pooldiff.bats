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
	run -0 --separate-stderr mt-pooldiff --format tsv "$log"
	tsv=$output
	has_line "$tsv" '^#mt-pooldiff time=2026-11-22T00:15:00Z host=.* snapshots=4 changes-since=2026-11-22T00:10:00Z$'
	# Step 3: leaky 1150 objects (+50), noisy_a 5300 (+300), once 900 (+800);
	# raw bytes in TSV, and the Allocs and Frees /proc does not have.
	has_line "$tsv" '^leaky_cache\tslab\t-\t-\t-\t-\t1150\t50\t147200\t6400\t128$'
	has_line "$tsv" '^noisy_a\tslab\t-\t-\t-\t-\t5300\t300\t339200\t19200\t64$'
	has_line "$tsv" '^once_cache\tslab\t-\t-\t-\t-\t900\t800\t460800\t409600\t512$'
}

@test "table for people: Bytes largest first as poolmon /b, in KiB, without the columns /proc does not have" {
	make_log 4
	log=$BATS_TEST_TMPDIR/pool.log
	run -0 --separate-stderr mt-pooldiff "$log"
	table=$output
	has_line "$table" '^#mt-pooldiff time=2026-11-22T00:15:00Z host=.* snapshots=4 changes-since=2026-11-22T00:10:00Z$'
	# /proc counts no allocations or frees: not a column of '-' each
	has_line "$table" '^#Tag +Type +Diff +Bytes +PerAlloc$'
	has_line "$table" '^leaky_cache +slab +1150 \(\+50\) +143\.8 KiB \(\+6\.2 KiB\) +128 B$'
	has_line "$table" '^once_cache +slab +900 \(\+800\) +450\.0 KiB \(\+400\.0 KiB\) +512 B$'
	# the order of the raw bytes, largest first, as sort(1) puts them
	want=$(mt-pooldiff -F tsv "$log" | awk -F '\t' 'NR > 2 { print $9, $1 }' | sort -k1,1nr -k2,2 | cut -d' ' -f2)
	[ "$(awk '!/^#/ { print $1 }' <<<"$table")" = "$want" ]
	[ "$(head -1 <<<"$want")" = noisy_b ]
	# --help and the man page say so
	mt-pooldiff --help | grep -q 'bytes (default'
	# -s tag: A to Z, as before
	run -0 --separate-stderr bash -c "mt-pooldiff -s tag '$log' | awk '!/^#/ { print \$1 }'"
	[ "$output" = "$(printf 'leaky_cache\nmostly_cache\nnoisy_a\nnoisy_b\nonce_cache\nsteady')" ]
	# --by-change alone: the change of Bytes
	run -0 --separate-stderr bash -c "mt-pooldiff -d '$log' | awk '!/^#/ { print \$1 }' | head -2"
	[ "$output" = "$(printf 'once_cache\nnoisy_a')" ]
	run -2 --separate-stderr mt-pooldiff -F csv "$log"
	[ "$stderr" = "mt-pooldiff: bad format 'csv' (table, tsv)" ]
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
	run -0 --separate-stderr bash -c "mt-pooldiff -s tag --regex -m '^(leaky|once)_' '$log' | awk '!/^#/ { print \$1 }'"
	[ "$output" = "$(printf 'leaky_cache\nonce_cache')" ]
	run -0 --separate-stderr mt-pooldiff -F tsv --totals -m 'leaky*' -m 'once*' "$log"
	has_line "$output" '^TOTAL\t-\t-\t-\t-\t-\t2050\t850\t608000\t416000\t296$'
	run -0 --separate-stderr mt-pooldiff --totals -m 'leaky*' -m 'once*' "$log"
	has_line "$output" '^TOTAL +- +2050 \(\+850\) +593\.8 KiB \(\+406\.2 KiB\) +296 B$'
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
	# 2 s of ticks: 9 intervals, or 10 when the trace ends past half of
	# its last (the program starting later in it, as under ASan)
	run -0 awk '!/^#/ && NF == 7 { print $1, $2, $3 }' <<<"$output"
	[[ "$output" =~ ^LeakyCache\ malloc\ (9/9|10/10)$ ]]
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
	has_line "$output" '^LeakyCache +malloc +(9/9|10/10) '
	run -0 --separate-stderr mt-pooldiff --interval 200ms --tag heap leak.txt
	has_line "$output" '^malloc +malloc +'
}

@test "the table of a recorded process: Allocs and Frees counted, Diff and Bytes outstanding" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o leak.mtr -- "$PROGS/poolleak" >/dev/null 2>&1
	mt-symbolize leak.mtr >leak.txt
	run -0 --separate-stderr mt-pooldiff -F tsv --interval 1s -m '[A-Z]*' leak.txt
	# At the end: 1000 leaked blocks of 48; noisy 1020 allocs all freed;
	# GrowOnce's ten blocks freed at the end; GrowThenShrink 200 and 200.
	has_line "$output" '^LeakyCache\tmalloc\t1000\t[0-9]+\t0\t0\t1000\t[0-9]+\t48000\t[0-9]+\t48$'
	has_line "$output" '^NoisyBuffers\tmalloc\t1020\t[0-9]+\t1020\t[0-9]+\t0\t-?[0-9]+\t0\t-?[0-9]+\t0$'
	has_line "$output" '^GrowOnce\tmalloc\t10\t0\t10\t10\t0\t-10\t0\t-1024000\t0$'
	has_line "$output" '^GrowThenShrink\tmalloc\t200\t[0-9]+\t200\t[0-9]+\t0\t'
	# for people: bytes in KiB and MiB
	run -0 --separate-stderr mt-pooldiff --interval 1s -m '[A-Z]*' leak.txt
	has_line "$output" '^LeakyCache +malloc +1000 \(\+[0-9]+\) +0 \(\+0\) +1000 \(\+[0-9]+\) +46\.9 KiB \(\+[0-9.]+ (B|KiB)\) +48 B$'
	has_line "$output" '^GrowOnce +malloc +10 \(\+0\) +10 \(\+10\) +0 \(-10\) +0 B \(-1000\.0 KiB\) +0 B$'
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
	run -0 --separate-stderr mt-pooldiff -F tsv p.txt
	has_line "$output" '^#mt-pooldiff time=2026-11-22T00:10:00Z host=h snapshots=3 changes-since=2026-11-22T00:05:00Z$'
	has_line "$output" '^foo\tslab\t30\t10\t2\t0\t28\t10\t2800\t1000\t100$'
	has_line "$output" '^bar\tslab\t9\t0\t9\t1\t0\t-1\t0\t-100\t0$'
	run -1 --separate-stderr mt-pooldiff --growth p.txt
	has_line "$output" '^foo +slab +2/2 +800 +2800 +\+2000 +\+11.7KiB$'
}

@test "the header's start and host: its own fields, not a key that ends in start= or host=" {
	cd "$BATS_TEST_TMPDIR"
	printf '#mt-events\t1\tx=start=7\tstart=1795305600000000000\tnote=host=no\thost=h\n' >p.txt
	printf 'alloc\t%s\t10\t10\tmalloc\t0x%x\t8\t-\n' 1000000 16 2000000000 32 >>p.txt
	run -0 --separate-stderr mt-pooldiff --interval 1s p.txt
	[ "${lines[0]}" = "#mt-pooldiff time=2026-11-22T00:00:02Z host=h snapshots=2 changes-since=2026-11-22T00:00:01Z last-interval=1.000s" ]
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
	run -0 --separate-stderr mt-pooldiff -F tsv --interval 1s --tag heap s.txt
	has_line "$output" '^#mt-pooldiff time=2026-11-22T00:00:04.150Z host=h snapshots=4 changes-since=2026-11-22T00:00:03Z last-interval=1.150s$'
	has_line "$output" '^malloc\tmalloc\t42\t12\t0\t0\t42\t12\t4200\t1200\t100$'
}

@test "the table for people: a tag's blanks as blanks; a 60-character tag and a long type keep the columns in line" {
	cd "$BATS_TEST_TMPDIR"
	long=namespace::Template_with_a_long_name::allocate_the_thing_xyz
	[ "${#long}" = 60 ]
	huge=$(printf 'a%.0s' $(seq 70))_middle_$(printf 'z%.0s' $(seq 70))
	for t in 0 5; do
		printf '#mt-pool 1 time=2026-11-22T00:%02d:00Z host=h\n' $t
		printf 'my\\040tag slab 1 0 1 %d 10\n' $((10 + t))
		printf '%s slab 2 0 2 %d 10\n' "$long" $((20 + t * 1000))
		printf 'short cache:kmalloc-rcl-192-of-a-module 3 0 3 %d 10\n' $((3000000 + t))
		printf '%s slab 4 0 4 %d 10\n' "$huge" $((40 + t))
	done >l.log
	run -0 --separate-stderr mt-pooldiff -s tag l.log
	has_line "$output" '^my tag +slab +1 \(\+0\)'
	# the 60-character tag whole; a longer one cut in its middle to fit
	# 120 columns, its start and end kept; the type's too
	has_line "$output" "^$long +slab +2 \\(\\+0\\)"
	has_line "$output" '^aaaaaaaaaaaaaaaaaa+\.\.\.z+ +slab '
	has_line "$output" '^short +cache:.*\.\.\..*module +3 \(\+0\)'
	# every row's Type, and each counter's change, in one column
	[ "$(awk '!/^#mt/ { print match($0, / (slab|cache:[^ ]*|Type) /) }' <<<"$output" | sort -u)" != 0 ]
	[ "$(awk '!/^#mt/ { print match($0, / (slab|cache:[^ ]*|Type) /) }' <<<"$output" | sort -u | wc -l)" = 1 ]
	[ "$(awk '!/^#/ { print index($0, "(") }' <<<"$output" | sort -u | wc -l)" = 1 ]
	# the end of the Bytes column: its change's "(" in line too
	[ "$(awk '!/^#/ { n = split($0, a, "("); print length($0) - length(a[n]) - length(a[n - 1]) }' <<<"$output" | sort -u | wc -l)" = 1 ]
	# a row of too many fields is said, not read past its end
	printf 'x slab 1 0 1 10 10 9 9\n' >>l.log
	run -2 --separate-stderr mt-pooldiff l.log
	[ "$stderr" = "mt-pooldiff: l.log:11: bad snapshot row 'x slab 1 0 1 10 10 9 9'" ]
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
	run -2 --separate-stderr mt-pooldiff -F tsv --interval 50ms --tag heap big.txt
	run -0 awk -F '\t' 'NR > 2 && $9 < 0' <<<"$output"
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
	cd "$BATS_TEST_TMPDIR"
	printf '#mt-events\t1\tstart=1795400000000000000\thost=h\nproc\t1\t0\t0\t/x\tx\n' >live.txt
	printf 'alloc\t100\t1\t1\tmalloc\t0x10\t100\t-\nalloc\t1500000000\t1\t1\tmalloc\t0x20\t100\t-\n' >>live.txt
	printf 'free\t2500000000\t1\t1\tmalloc\t0x10\t-\nalloc\t3200000000\t1\t1\tmalloc\t0x30\t50\t-\n' >>live.txt
	run -0 mt-pooldiff --interval 1s --tag heap --live live.txt
	# intervals 0, 1 and 2 closed by the events after them, then the end
	[ "$(echo "$output" | grep -c '^#mt-pooldiff time=')" = 4 ]
	[ "$(echo "$output" | awk '$1 == "malloc" { printf "%s %s ", $9, $10 }')" = "100 B 200 B 100 B 150 B " ]
	has_line "$output" '^#mt-pooldiff time=2026-11-23T02:13:23.200Z host=h snapshots=4 changes-since=2026-11-23T02:13:23Z$'
	# the end's table counts what the table without --live counts
	run -0 mt-pooldiff -F tsv --interval 1s --tag heap live.txt
	[ "$(echo "$output" | awk -F '\t' '$1 == "malloc" { printf "%s %s %s", $3, $5, $9 }')" = "3 1 150" ]
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
	run -0 --separate-stderr mt-pooldiff --format tsv --interval 50ms --tag heap ev.txt
	has_line "$output" '^malloc\tmalloc\t4\t1\t1\t1\t3\t0\t6000000000000000108\t-5999999999999999992\t2000000000000000036$'
	[ -z "$stderr" ]
	run -2 --separate-stderr mt-pooldiff -F tsv --interval 50ms --tag heap --live ev.txt
	has_line "$output" "^malloc\tmalloc\t3\t-\t0\t-\t3\t-\t$M\t-\t4000000000000000033$"
	has_line "$output" '^malloc\tmalloc\t3\t0\t1\t1\t2\t-1\t6000000000000000100\t-6000000000000000000\t3000000000000000050$'
	[ "$stderr" = "mt-pooldiff: Bytes saturated at $M $up" ]
	# a log's values fit; their changes, totals and growth may not
	printf '#mt-pool 1 time=2026-11-22T00:00:00Z host=h\nx slab 1 0 1 -9000000000000000000 1\ny slab 1 0 1 9000000000000000000 1\n' >c.log
	printf '#mt-pool 1 time=2026-11-22T00:05:00Z host=h\nx slab 1 0 1 9000000000000000000 1\ny slab 1 0 1 9000000000000000000 1\n' >>c.log
	run -2 --separate-stderr mt-pooldiff -F tsv --totals c.log
	has_line "$output" "^x\tslab\t1\t0\t0\t0\t1\t0\t9000000000000000000\t$M\t9000000000000000000\$"
	has_line "$output" "^TOTAL\t-\t2\t0\t0\t0\t2\t0\t$M\t$M\t9000000000000000000\$"
	[ "$stderr" = "mt-pooldiff: Bytes saturated at $M $up" ]
	# for people: at least 8 EiB, and the exact bytes in TSV
	run -2 --separate-stderr mt-pooldiff --totals c.log
	has_line "$output" "^TOTAL +- +2 \(\+0\) +0 \(\+0\) +2 \(\+0\) +>=8\.0 EiB \(>=8\.0 EiB\) +7\.8 EiB\$"
	[ "$stderr" = "mt-pooldiff: Bytes saturated at $M $up" ]
	run -2 --separate-stderr mt-pooldiff --growth c.log
	has_line "$output" "^x +slab +1/1 +-9000000000000000000 +9000000000000000000 +\+$M +>=8\.0EiB\$"
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

@test "--since-first: each change against the first snapshot of a log, the header says so" {
	make_log 12
	log=$BATS_TEST_TMPDIR/pool.log
	run -0 --separate-stderr mt-pooldiff -F tsv --since-first "$log"
	has_line "$output" '^#mt-pooldiff time=2026-11-22T00:55:00Z host=.* snapshots=12 changes-since=2026-11-22T00:00:00Z against=first$'
	# each tag's Diff and Bytes now less in the first snapshot, by hand from the log
	want=$(awk '!/^#/ { if (!($1 in f)) { f[$1] = $5; fb[$1] = $6 }; l[$1] = $5; lb[$1] = $6 }
		END { for (t in f) print t, l[t] - f[t], lb[t] - fb[t] }' "$log" | sort)
	[ "$(awk -F '\t' 'NR > 2 { print $1, $8, $9 - 0 == $9 ? $10 : "x" }' <<<"$output" | sort)" = "$want" ]
	has_line "$output" '^leaky_cache\tslab\t-\t-\t-\t-\t1550\t550\t198400\t70400\t128$'
	# without it, against the one before
	run -0 --separate-stderr mt-pooldiff -F tsv "$log"
	has_line "$output" '^leaky_cache\tslab\t-\t-\t-\t-\t1550\t50\t198400\t6400\t128$'
	# the table for people and the sort by change follow
	run -0 --separate-stderr mt-pooldiff --since-first -d "$log"
	has_line "$output" '^leaky_cache +slab +1550 \(\+550\) +193\.8 KiB \(\+68\.8 KiB\) +128 B$'
	[ "$(awk '!/^#/ { print $1; exit }' <<<"$output")" = once_cache ]
	# the growth verdict's evidence: each snapshot against the first
	run -1 --separate-stderr mt-pooldiff --since-first --growth 11/11 "$log"
	has_line "$output" '^#mt-pooldiff growth: 1 of 6 tags grew in at least 11 of the last 11 intervals, 2026-11-22T00:00:00Z to 2026-11-22T00:55:00Z changes-since=2026-11-22T00:00:00Z against=first$'
	has_line "$output" '^2026-11-22T00:10:00Z +140800 \(\+12800\)$'
	has_line "$output" '^2026-11-22T00:55:00Z +198400 \(\+70400\)$'
}

# Events every 100 ms from 50 ms to $1 ms, 100 bytes each, never freed.
leak_stream() {
	printf '#mt-events\t1\tstart=1795305600000000000\thost=h\nproc\t10\t1\t0\t/bin/a\ta\n'
	awk -v end="$1" 'BEGIN { for (t = 50; t <= end; t += 100)
		printf "alloc\t%d000000\t10\t10\tmalloc\t0x%x\t100\t-\n", t, 4096 + t * 2 }'
}

@test "--since-first with an --interval stream and --live: against the first interval's snapshot" {
	cd "$BATS_TEST_TMPDIR"
	leak_stream 7950 >s.txt
	# snapshots at 2, 4, 6 s and the end, 7.95 s: 20, 40, 60, 80 blocks
	run -0 --separate-stderr mt-pooldiff -F tsv -i 2s -k heap --since-first s.txt
	has_line "$output" '^#mt-pooldiff time=2026-11-22T00:00:07\.950Z host=h snapshots=4 changes-since=2026-11-22T00:00:02Z against=first$'
	has_line "$output" '^malloc\tmalloc\t80\t60\t0\t0\t80\t60\t8000\t6000\t100$'
	run -0 --separate-stderr mt-pooldiff -F tsv -i 2s -k heap --since-first --live s.txt
	[ "$(awk -F '\t' '$1 == "malloc" { printf "%s ", $10 }' <<<"$output")" = "- 2000 4000 6000 " ]
	[ "$(grep -c 'against=first$' <<<"$output")" = 3 ]
}

@test "--growth K/N counts the intervals a user expects: an 8 s stream at 2 s is judged at 2, 4, 6 and 8 s" {
	cd "$BATS_TEST_TMPDIR"
	# the stream ends a little before 8 s, or a little after: the same 3 intervals
	for end in 7950 8050; do
		leak_stream $end >s$end.txt
		for live in "" --live; do
			run -1 --separate-stderr mt-pooldiff -i 2s -k heap $live --growth 3/3 s$end.txt
			has_line "$output" '^#mt-pooldiff growth: 1 of 1 tags grew in at least 3 of the last 3 intervals, 2026-11-22T00:00:02Z to 2026-11-22T00:00:0(7\.950|8|8\.050)Z$'
			# (without --live the 50 ms past 8 s join the interval before)
			has_line "$output" '^malloc +malloc +3/3 +2000 +8[01]00 +\+6[01]00 '
			run -2 --separate-stderr mt-pooldiff -i 2s -k heap $live --growth 4/4 s$end.txt
			[ "$stderr" = "mt-pooldiff: 4 intervals asked for, the input has 3" ]
		done
	done
	# a last interval shorter than half of one is not judged: 6 s to 6.95 s
	leak_stream 6950 >short.txt
	run -2 --separate-stderr mt-pooldiff -i 2s -k heap --live --growth 3/3 short.txt
	[ "$stderr" = "mt-pooldiff: 3 intervals asked for, the input has 2" ]
	run -1 --separate-stderr mt-pooldiff -i 2s -k heap --growth 2/2 short.txt
	has_line "$output" 'last 2 intervals, 2026-11-22T00:00:02Z to 2026-11-22T00:00:06\.950Z$'
}

@test "--live --growth 3/3 at 2 s on a program recorded for nearly 8 s: a verdict, the leaking function" {
	cd "$BATS_TEST_TMPDIR"
	# 1380 lines 5 ms apart and their work, 100 bytes leaked a line in
	# leak_here: about 7.4 s, its last interval (6 s to the end) judged
	# (once "3 intervals asked for, the input has 2", exit 2)
	{ set +e; mt-record -o - -- "$PROGS/attach-target" 1380 2>/dev/null; } 3>&- |
		mt-symbolize | { set +e; mt-pooldiff -i 2s --live --growth 3/3; echo $? >status; } >out.txt
	[ "$(cat status)" = 1 ]
	has_line "$(cat out.txt)" '^#mt-pooldiff growth: [1-9][0-9]* of [0-9]+ tags grew in at least 3 of the last 3 intervals'
	has_line "$(cat out.txt)" '^leak_here +malloc +3/3 '
}

@test "mt-group's suppressions on process tags: a runtime's one-time blocks are no growth; valgrind's leak" {
	cd "$BATS_TEST_TMPDIR"
	valgrind "$PROGS/leak-cxx" 2>vg.txt >/dev/null
	# valgrind frees libstdc++'s pool and stdio's buffers at exit (freeres)
	theirs=$(sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks/\1 \2/p' vg.txt | tr -d ,)
	mt-record -o l.mtr -- "$PROGS/leak-cxx" >/dev/null 2>&1
	mt-symbolize l.mtr >l.txt
	for live in "" --live; do
		run -0 --separate-stderr mt-pooldiff -F tsv -i 100ms --totals $live l.txt
		# (--live: the last table, at the end)
		[ "$(awk -F '\t' '$1 == "TOTAL" { t = $9 " " $7 } END { print t }' <<<"$output")" = "$theirs" ]
		has_line "$stderr" '^mt-pooldiff: suppressed 2 lifetimes never freed, 75\.0 KiB \(mt-suppress:[0-9]+ 1, mt-suppress:[0-9]+ 1\); --no-suppress shows them$'
	done
	run -0 --separate-stderr mt-pooldiff -F tsv -i 100ms --no-suppress l.txt
	[ -z "$stderr" ]
	has_line "$output" '^(__GI_)?_IO_file_doallocate\tmalloc\t1\t'
	# rules of one's own, as mt-group's
	printf '# ours\n\nfunction _M_construct module leak-cxx$\n' >mine.supp
	# One interval, the whole run: on a loaded machine main's two leaks
	# can fall in two 100 ms intervals, its last row's changes then
	# numbers, not '-'.
	run -0 --separate-stderr mt-pooldiff -F tsv -i 1h --suppress mine.supp l.txt
	# the string's 100 characters and their nul (a stack through
	# _M_construct) kept apart; main's other two leaks stay
	has_line "$output" "^main\tmalloc\t2\t-\t0\t-\t2\t-\t$((${theirs% *} - 101))\t"
	has_line "$stderr" 'mine\.supp:3 1'
	printf 'function\n' >bad.supp
	run -2 --separate-stderr mt-pooldiff -i 100ms --suppress bad.supp l.txt
	[ "$stderr" = "mt-pooldiff: bad.supp:1: a rule without its pattern 'function'" ]
	# a program that prints at its end: stdio's buffer is no growth of its own
	mt-record -o p.mtr -- "$PROGS/poolleak" >/dev/null 2>&1
	mt-symbolize p.mtr >p.txt
	run -1 --separate-stderr mt-pooldiff -i 200ms --growth 1/9 --no-suppress p.txt
	has_line "$output" '^(__GI_)?_IO_file_doallocate +malloc +1/9 '
	run -1 --separate-stderr mt-pooldiff -i 200ms --growth 1/9 p.txt
	! has_line "$output" '_IO_file_doallocate' || false
	has_line "$output" '^LeakyCache +malloc +(9/9|10/10) '
	has_line "$stderr" '^mt-pooldiff: suppressed 1 lifetimes never freed, 4\.0 KiB'
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

@test "events that lost some in recording: their double frees in one line, the snapshots made" {
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN { OFS = "\t"; print "proc", 1, 0, 0, "/bin/x", "x"; print "lost", 5, 1, 1200, "ring full"
		for (i = 1; i <= 30; i++) {
			print "alloc", i * 10, 1, 1, "malloc", sprintf("0x%x", i * 256), 8, "-"
			print "free", i * 10 + 1, 1, 1, "malloc", sprintf("0x%x", i * 256), "-"
			print "free", i * 10 + 2, 1, 1, "malloc", sprintf("0x%x", i * 256), "-" } }' >l.txt
	run -2 --separate-stderr mt-pooldiff --interval 100ns l.txt
	[ "$stderr" = "mt-pooldiff: l.txt: 30 double frees after 1200 events were lost in recording: their allocations were among them" ]
	has_line "$output" '^-    malloc      30 '
}
