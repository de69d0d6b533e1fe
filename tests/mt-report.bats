#!/usr/bin/env bats
# mt-report: the summary against heaptrack_print where both measure the
# same thing, against mt-window and mt-group where they do; the page's
# data against mt-window | mt-group through an oracle of its own
# (tests/report-table.py).
load helpers

setup_file() {
	record_walkthrough
}

# heaptrack_print's summary of a trace as "calls temporary peak leaked",
# its sizes in bytes as it rounds them (K, M, G: powers of 1000).
ht_summary() {
	heaptrack_print "$1" 2>/dev/null | awk '
		function bytes(s) { m = 1; if (s ~ /K$/) m = 1e3; else if (s ~ /M$/) m = 1e6;
			else if (s ~ /G$/) m = 1e9; sub(/[KMGB]$/, "", s); return s * m }
		/^calls to allocation functions:/ { c = $5 }
		/^temporary memory allocations:/ { t = $4 }
		/^peak heap memory consumption:/ { p = bytes($5) }
		/^total memory leaked:/ { l = bytes($4) }
		END { printf "%d %d %d %d\n", c, t, p, l }'
}

# Ours, for the malloc heap of the one process: the same four, exact.
mt_summary() {
	mt-report -B --no-suppress "$1" | awk '
		/^temporary:/ { t = $2 }
		$3 == "malloc" && $2 ~ /^[0-9]+$/ { c = $NF; p = $4; l = $7 }
		END { printf "%d %d %d %d\n", c, t, p, l }'
}

# What heaptrack's own library allocates in a C program (libstdc++'s
# pool, which a C++ program has anyway): "calls peak".
ht_own() {
	heaptrack -o "$BATS_TEST_TMPDIR/true" /bin/true >/dev/null 2>&1
	ht_summary "$BATS_TEST_TMPDIR"/true.* | cut -d' ' -f1,3
}

# heaptrack prints three digits: the same figure is within its rounding.
near() {	# ours theirs percent
	local d=$(( $1 > $2 ? $1 - $2 : $2 - $1 ))
	[ $(( d * 1000 )) -le $(( $2 * ${3:-5} )) ] || { echo "ours $1, heaptrack's $2" >&2; return 1; }
}

@test "the walkthrough: the leak to its line, the mappings' peak, each part's pipeline shows it whole" {
	cd "$BATS_FILE_TMPDIR"
	run -0 mt-report wpa.mtr
	has_line "$output" '^wpa\.mtr: [0-9.]+ s, 1 process, 263 allocations \([0-9]+/s\), 12 frees$'
	has_line "$output" '^memtestapp +[0-9]+ mmap +30\.0 MiB +[0-9.]+ s +0 B +0 B +120\.0 MiB +12$'
	has_line "$output" '^ +9\.8 KiB +250 blocks InnerLoopOperation  tests/progs/memtestapp\.c:46$'
	has_line "$output" '^  \$ mt-symbolize wpa\.mtr \| mt-lifetime \| mt-group --by type,function,line$'
	# The spikes, told from the steady state by their stack.
	has_line "$output" '^ +10\.0 MiB x10 +at [0-9.]+ s, [0-9.]+ s, [0-9.]+ s, \.\.\. for '
	has_line "$output" '^ +commit < ManipulateTemporaryBuffer < Operation1 < \.\.\.  tests/progs/memtestapp\.c:31$'
	has_line "$output" '^ +10\.0 MiB x2 +at '
	# What the parts say is what their pipelines print.
	hint=$(printf '%s\n' "$output" | grep -m1 -A8 '^Leaked' | sed -n 's/^  \$ //p')
	run -0 bash -c "$hint"
	has_line "$output" '^leaked +InnerLoopOperation +tests/progs/memtestapp\.c:46 +250 +9\.8 KiB +9\.8 KiB +40 B$'
	run -0 mt-report wpa.mtr
	hint=$(printf '%s\n' "$output" | grep -A8 '^Live at the peaks' | sed -n 's/^  \$ //p')
	[[ $hint == *"mt-window --at peak"* ]]
	run -0 bash -c "$hint -F tsv"
	has_line "$output" "^memtestapp\tmmap\tcommit\ttests/progs/memtestapp\.c:31\t3\t$((30 * MiB))\t$((30 * MiB))\t"
	run -0 mt-report -B wpa.mtr
	has_line "$output" "^ +$((30 * MiB)) +3 blocks commit  tests/progs/memtestapp\.c:31$"
	has_line "$output" "^ +10000 +250 blocks InnerLoopOperation  tests/progs/memtestapp\.c:46$"
}

@test "each process and heap's peak and its instant are mt-window --at peak's, from events and life lines" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o f.mtr -- "$PROGS/procs-many" 20 >/dev/null 2>&1
	mt-symbolize f.mtr | mt-lifetime -q >f.life
	mt-window --at peak f.life | awk -F'\t' '$1 == "sample" { print $3, $4, $5, $2 }' | sort >want
	[ "$(wc -l <want)" -ge 21 ]
	for input in f.mtr f.life; do
		mt-report -B -n 1000 "$input" | awk '$2 ~ /^[0-9]+$/ && NF == 10 { print $2, $3, $4 }' |
			sort >got
		# the instant to the millisecond the summary shows
		cut -d' ' -f1-3 want | diff - got
	done
	mt-report -B -n 1000 f.mtr | awk '$2 ~ /^[0-9]+$/ && NF == 10 { print $2, $3, $5 }' | sort >at
	mt-window --at peak f.life | awk -F'\t' '$1 == "sample" {
		printf "%s %s %d.%03d\n", $3, $4, $2 / 1e9, ($2 % 1e9) / 1e6 }' | sort | diff - at
}

@test "heaptrack_print's figures: calls, peak and leaked of a C++ program and of the walkthrough" {
	cd "$BATS_TEST_TMPDIR"
	heaptrack -o hc "$PROGS/peak-cxx" >/dev/null 2>&1
	mt-record -o c.mtr -- "$PROGS/peak-cxx" >/dev/null 2>&1
	read -r hcalls htemp hpeak hleak < <(ht_summary hc.*)
	read -r calls temp peak leak < <(mt_summary c.mtr)
	[ "$calls" = "$hcalls" ]
	near "$peak" "$hpeak"
	[ "$temp" -ge 1 ] && [ "$htemp" -ge 1 ]
	# The walkthrough's leak: 250 blocks of 40 and stdout's buffer.
	heaptrack -o hw "$PROGS/memtestapp" >/dev/null 2>&1
	read -r hcalls htemp hpeak hleak < <(ht_summary hw.*)
	read -r calls temp peak leak < <(mt_summary "$BATS_FILE_TMPDIR/wpa.mtr")
	[ "$leak" = 14096 ]
	near "$leak" "$hleak"
	[ "$temp" = "$htemp" ]
	# heaptrack's library brings libstdc++, whose pool is one more call.
	read -r own_calls own_peak < <(ht_own)
	[ "$calls" = $((hcalls - own_calls)) ]
	near $((peak + own_peak)) "$hpeak"
}

@test "heaptrack_print's figures on python3: calls, temporary, peak" {
	cd "$BATS_TEST_TMPDIR"
	script='import json
out = [json.loads(json.dumps({"id": i, "t": [i] * (i % 5)})) for i in range(20000)]
print(len(out))'
	PYTHONMALLOC=malloc heaptrack -o hp /usr/bin/python3 -c "$script" >/dev/null 2>&1
	PYTHONMALLOC=malloc mt-record -o p.mtr -- /usr/bin/python3 -c "$script" >/dev/null 2>&1
	read -r hcalls htemp hpeak hleak < <(ht_summary hp.*)
	read -r calls temp peak leak < <(mt_summary p.mtr)
	read -r own_calls own_peak < <(ht_own)
	[ "$hcalls" -gt 100000 ]
	# Two runs of python: within 0.5% (they differ by a few dozen calls).
	near $((calls + own_calls)) "$hcalls" 5
	near "$temp" "$htemp" 5
	near $((peak + own_peak)) "$hpeak" 5
}

@test "a kernel trace: [kernel] and its heaps, the page blocks' peak" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '#mt-events	1	start=1	host=h	resolution=100' \
		'proc	0	0	0	[kernel]	[kernel]' '#task	11	kworker/0:1' '#task	12	python3' \
		'sym	0xffffffff81000010	alloc_pipe_info	-	[kernel.kallsyms]' 'stack	1	0xffffffff81000010' \
		'life	100	200	0	11	page	0x1000	4096	1	aifi	0' \
		'life	100	-	0	11	page	0x3000	4096	1	aifo	4096' \
		'life	300	-	0	12	page	0x5000	8192	1	aifo	8192' \
		'life	400	500	0	12	page	0x200000	2097152	1	aifi	0' \
		'life	600	-	0	12	kmalloc	0xffff8880	64	1	aifo	64' >k.life
	run -0 mt-report -B k.life
	has_line "$output" '^\[kernel\] +0 page +2109440 +0\.000 s +0 +12288 +2113536 +4$'
	has_line "$output" '^\[kernel\] +0 kmalloc +64 +0\.000 s +0 +64 +64 +1$'
	has_line "$output" '^ +12352 +3 blocks alloc_pipe_info  -$'
	has_line "$output" '^ +2109504 +4 blocks alloc_pipe_info  -$'
	has_line "$output" '^  \$ mt-group --by type,function,line k\.life$'
}

@test "events and life lines, .mtr and text, file and stdin: one summary" {
	cd "$BATS_FILE_TMPDIR"
	mt-report wpa.mtr | sed 1,2d | grep -v '^  \$' >a
	mt-report wpa.life | sed 1,2d | grep -v '^  \$' >b
	mt-symbolize wpa.mtr | mt-report | sed 1,2d | grep -v '^  \$' >c
	mt-decode wpa.mtr | mt-report | sed 1,2d | grep -v '^  \$' >d
	diff a b
	diff a c
	diff a d
}

@test "the stacks' names kept in TMPDIR, or in memory when it cannot be written" {
	cd "$BATS_TEST_TMPDIR"
	mt-report "$BATS_FILE_TMPDIR/wpa.mtr" >a
	TMPDIR=/nonexistent mt-report "$BATS_FILE_TMPDIR/wpa.mtr" >b
	diff a b
	has_line "$(cat a)" 'InnerLoopOperation'
}

@test "bad input: said with file:line, the rest summarized, exit 1; bad options exit 2" {
	cd "$BATS_TEST_TMPDIR"
	{ head -20 "$BATS_FILE_TMPDIR/wpa.life"; echo 'life	bogus'; sed 1,20d "$BATS_FILE_TMPDIR/wpa.life"; } >bad.life
	run -1 --separate-stderr mt-report bad.life
	[[ $stderr == *"mt-report: bad.life:21: "* ]]
	has_line "$output" 'InnerLoopOperation'
	head -c $(( $(stat -c %s "$BATS_FILE_TMPDIR/wpa.mtr") - 150 )) "$BATS_FILE_TMPDIR/wpa.mtr" >cut.mtr
	run -1 --separate-stderr mt-report cut.mtr
	[[ $stderr == *cut.mtr* ]]
	# No mt-symbolize to be found: the summary with addresses, said, exit 1.
	mkdir alone
	cp "$(command -v mt-report)" alone/
	run -1 --separate-stderr env PATH=/usr/bin:/bin alone/mt-report "$BATS_FILE_TMPDIR/wpa.mtr"
	[[ $stderr == *"mt-report: mt-symbolize failed: stacks are addresses"* ]]
	has_line "$output" '^memtestapp +[0-9]+ +mmap '
	# A file is read again for its stacks, standard input's were kept.
	has_line "$output" '^ +250 calls +9\.8 KiB  0x[0-9a-f]+  -$'
	run -1 --separate-stderr env PATH=/usr/bin:/bin sh -c 'alone/mt-report <"$1"' sh \
		"$BATS_FILE_TMPDIR/wpa.mtr"
	[[ $stderr == *"mt-report: mt-symbolize failed: stacks are addresses"* ]]
	has_line "$output" '^ +250 calls +9\.8 KiB  0x[0-9a-f]+  -$'
	run -2 mt-report --top x wpa.mtr
	run -2 mt-report a b
	run -1 --separate-stderr mt-report /nonexistent
	[ "$stderr" = "mt-report: /nonexistent: No such file or directory" ]
}

# The tables the page's data gives for windows on its unit, by several
# keys, against mt-window --from A --to B | mt-group -F tsv --by KEYS.
data_agrees() {	# json life A B keys...
	local json=$1 life=$2 a=$3 b=$4 by n
	shift 4
	for by in "$@"; do
		n=$(( $(tr , '\n' <<<"$by" | wc -l) + 3 ))
		diff <(mt-window --from "${a}ns" --to "${b}ns" "$life" 2>/dev/null |
			mt-group -F tsv --by "$by" 2>/dev/null | sed 1d | cut -f1-$n | sort) \
			<("$TESTS/report-table.py" "$json" "$a" "$b" "$by" | sort)
	done
}

@test "the page's data: any window's table as mt-window | mt-group, exact times and buckets" {
	cd "$BATS_FILE_TMPDIR"
	mt-report --json wpa.json wpa.mtr
	grep -q '"u":1,"exact":true' wpa.json
	end=$(awk -F'\t' '$1 == "life" { for (k = 2; k <= 3; k++) if ($k != "-" && $k > e) e = $k } END { printf "%.0f\n", e + 1 }' wpa.life)
	s1=$(spike 1) s9=$(spike 9) up=$(step_up)
	for w in "0 $end" "$s9 $end" "$((up - 1000)) $((up + 1000))" "$s1 $((s1 + 1))" "$((s1 + 1)) $s9"; do
		data_agrees wpa.json wpa.life $w type,function process,heap,type,stack \
			size-class,task,type line,module,file,pid
	done
	# A million lifetimes: in buckets, still exact on them.
	cd "$BATS_TEST_TMPDIR"
	mt-record -o p.mtr -- "$PROGS/pairs" 600000 >/dev/null 2>&1
	mt-symbolize p.mtr | mt-lifetime -q >p.life
	mt-report --json p.json p.mtr
	u=$(grep -o '"u":[0-9]*' p.json | cut -d: -f2)
	[ "$u" -gt 1 ]
	end=$(grep -o '"end":[0-9]*' p.json | cut -d: -f2)
	for w in "0 $(( (end / u + 1) * u ))" "$((u * 10)) $((u * 500))" "$((u * 300)) $((u * 301))"; do
		data_agrees p.json p.life $w type,function stack,type,size-class
	done
}

@test "the page's data of 60,000 stacks: 50,000 keys and [other], said; by process and heap still mt-group's" {
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN { OFS = "\t"
		print "#mt-events", 1, "start=1", "host=h", "resolution=1"
		print "proc", 10, 1, 0, "/bin/app", "app"
		for (i = 1; i <= 60000; i++) {
			printf "sym\t0x%x\tf%d\ta.c:%d\t/bin/app\n", 4096 + i, i, i
			printf "stack\t%d\t0x%x\n", i, 4096 + i
			print "life", i * 10, (i % 3 ? i * 10 + 5 : "-"), 10, 10, "malloc", sprintf("0x%x", i * 64), i % 1000 + 1, i, (i % 3 ? "aifi" : "aifo"), (i % 3 ? 0 : i % 1000 + 1)
		} }' >many.life
	mt-report --json many.json many.life
	grep -q '"capped":"10000 of 60000 keys' many.json
	[ "$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["keys"]["process"]))' many.json)" = 50001 ]
	data_agrees many.json many.life 0 600010 process,heap,type
	data_agrees many.json many.life 100000 300000 process,heap,type
}

# Every figure of the summary's process table, "pid heap peak leaked
# live-end allocated calls" in bytes, beside what the filters give: the
# peak as mt-window --series samples it, the rest summed from
# mt-lifetime's lines.
summary_agrees() {	# trace
	local got want
	got=$(mt-report -B --no-suppress "$1" 2>/dev/null | awk '
		/^process +pid heap/ { on = 1; next } on && NF == 0 { exit }
		on { print $2, $3, $4, $7, $8, $9, $10 }' | sort)
	want=$({ mt-lifetime "$1" 2>/dev/null | awk -F'\t' '$1 == "life" {
			k = $4 " " $6; seen[k] = 1
			if ($2 != "-") { al[k] += $8; n[k]++ }
			if ($12 == "exit") lk[k] += $8; else if ($12 == "end") le[k] += $8 }
			END { for (k in seen) print k, "L", lk[k] + 0, le[k] + 0, al[k] + 0, n[k] + 0 }'
		mt-lifetime -q "$1" 2>/dev/null | mt-window --series 1ms | awk -F'\t' '
			$1 == "sample" { k = $3 " " $4; if (!(k in p) || $7 > p[k]) p[k] = $7 }
			END { for (k in p) print k, "P", p[k] }'; } | awk '
		$3 == "L" { l[$1 " " $2] = $4 " " $5 " " $6 " " $7 } $3 == "P" { p[$1 " " $2] = $4 }
		END { for (k in l) print k, p[k] + 0, l[k] }' | sort)
	[ -n "$got" ]
	if [ "$got" != "$want" ]; then
		diff <(echo "$want") <(echo "$got") || true
		return 1
	fi
}

@test "the summary's figures are the filters': a trace from -p, a --circular one, a cut one" {
	cd "$BATS_TEST_TMPDIR"
	summary_agrees "$BATS_FILE_TMPDIR/wpa.mtr"
	# Attached to: what it mapped and allocated before is held from the
	# start, counted once (the mmap peak was twice the live bytes).
	need_ptrace
	start_target "$PROGS/attach-target" 300 0 maps
	sleep 0.3
	mt-record -p "$TARGET" -d 0.6s -o a.mtr 2>/dev/null
	wait_target
	[ "$(mt-decode a.mtr | awk -F'\t' '$1 == "alloc" && $2 == "-"' | wc -l)" -gt 0 ]
	summary_agrees a.mtr
	mt-record --max-size 64K --circular -o c.mtr -- "$PROGS/pairs" 200000 >/dev/null 2>&1
	summary_agrees c.mtr
	mt-record -o whole.mtr -- "$PROGS/pairs" 300000 >/dev/null 2>&1
	head -c $(( $(stat -c %s whole.mtr) / 2 )) whole.mtr >cut.mtr
	summary_agrees cut.mtr
}

@test "double frees: ten said with their lines, the rest counted; after a loss of events, one line" {
	cd "$BATS_TEST_TMPDIR"
	# 30 blocks, each freed twice.
	awk 'BEGIN { OFS = "\t"; print "proc", 1, 0, 0, "/bin/x", "x"
		for (i = 1; i <= 30; i++) {
			print "alloc", i * 10, 1, 1, "malloc", sprintf("0x%x", i * 256), 8, "-"
			print "free", i * 10 + 1, 1, 1, "malloc", sprintf("0x%x", i * 256), "-"
			print "free", i * 10 + 2, 1, 1, "malloc", sprintf("0x%x", i * 256), "-" } }' >d.txt
	run -1 --separate-stderr mt-report d.txt
	[ "$(grep -c "^mt-report: d.txt:[0-9]*: double free '0x" <<<"$stderr")" = 10 ]
	has_line "$stderr" '^mt-report: d.txt: 20 more double frees$'
	# The same after a lost line: the allocations were among the lost.
	{ sed -n 1p d.txt; printf 'lost\t5\t1\t1200\tring full\n'; sed 1d d.txt; } >l.txt
	run -1 --separate-stderr mt-report l.txt
	[ "$(grep -c 'double free ' <<<"$stderr")" = 0 ]
	has_line "$stderr" '^mt-report: l.txt: 30 double frees after 1200 events were lost in recording: their allocations were among them$'
	run -1 --separate-stderr mt-lifetime l.txt
	has_line "$stderr" '^mt-lifetime: l.txt: 30 double frees after 1200 events were lost'
}

@test "-o and --json: never over the input, never half a file" {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR/wpa.mtr" t.mtr
	cp t.mtr orig.mtr
	run -2 --separate-stderr mt-report -o t.mtr t.mtr
	[ "$stderr" = "mt-report: t.mtr: the input itself: not written over" ]
	cmp t.mtr orig.mtr
	run -2 --separate-stderr mt-report --json t.mtr t.mtr
	ln -s t.mtr link.html
	run -2 --separate-stderr mt-report -o link.html - <t.mtr
	[ "$stderr" = "mt-report: link.html: the input itself: not written over" ]
	cmp t.mtr orig.mtr
	# A write that fails leaves the old page as it was, and nothing beside.
	echo old >p.html
	chmod 640 p.html
	run -1 --separate-stderr bash -c "trap '' XFSZ; ulimit -f 64; mt-report -o p.html t.mtr"
	[ "$stderr" = "mt-report: p.html: File too large" ]
	[ "$(cat p.html)" = old ]
	[ "$(ls -A | grep -c '^\.p\.html')" = 0 ]
	# Written whole: the file's mode kept; a new one's from the umask.
	run -0 mt-report -o p.html t.mtr
	[ "$(stat -c %a p.html)" = 640 ]
	grep -q '</html>' p.html
	(umask 027; mt-report -q -o new.html t.mtr)
	[ "$(stat -c %a new.html)" = 640 ]
	# Not a regular file: written in place.
	run -0 mt-report -o /dev/null t.mtr
}

@test "-n limits the table of processes too: the biggest peaks, and how many more" {
	cd "$BATS_TEST_TMPDIR"
	# Six processes whose peaks are 100 to 600 blocks of 1000 bytes.
	mt-record -o sh.mtr -- sh -c "for i in 1 2 3 4 5 6; do \"$PROGS/live-set\" \${i}00 1000; done" \
		>/dev/null 2>&1
	rows() { awk '/^process +pid heap/ { on = 1; next } on && NF == 0 { exit } on' <<<"$1"; }
	run -0 mt-report -B -n 100 sh.mtr
	all=$(rows "$output")
	n=$(wc -l <<<"$all")
	[ "$(grep -c '^live-set ' <<<"$all")" -ge 6 ]
	! grep -q 'more processes' <<<"$all" || false
	run -0 mt-report -B -n 3 sh.mtr
	cut=$(rows "$output")
	[ "$(wc -l <<<"$cut")" = 4 ]
	[ "$(tail -1 <<<"$cut")" = "  ($((n - 3)) more processes and heaps, the biggest peaks first: -n $n shows them all)" ]
	[ "$(head -1 <<<"$cut" | awk '{ print $4 }')" = 600000 ]
	# The three are the biggest peaks of all.
	[ "$(head -3 <<<"$cut" | awk '{ print $4 }')" = "$(awk '{ print $4 }' <<<"$all" | sort -rn | head -3)" ]
}

@test "Most temporary allocations: heaptrack's rule first, as the first line and heaptrack_print count; mt's beside" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o t.mtr -- "$PROGS/temps" >/dev/null 2>&1
	run -0 mt-report -n 10 t.mtr
	has_line "$output" '^temporary: 1000 freed right after their allocation \(heaptrack.s count\), 1500 freed before their thread allocated again$'
	section=$(sed -n '/^Most temporary allocations/,/^  \$ /p' <<<"$output")
	# churn's blocks are temporary by both rules; pairs' second blocks by
	# mt's alone (a free came between), as temps.c says.
	has_line "$section" '^ +1000 heaptrack.s +1000 mt.s +1000 calls  churn  tests/progs/temps\.c:\d+$'
	has_line "$section" '^ +0 heaptrack.s +500 mt.s +500 calls  pairs  tests/progs/temps\.c:\d+$'
	# The columns' sums are the first line's counts; heaptrack_print's own.
	[ "$(awk '$2 == "heaptrack'"'"'s" { s += $1 } END { print s }' <<<"$section")" = 1000 ]
	[ "$(awk '$4 == "mt'"'"'s" { s += $3 } END { print s }' <<<"$section")" = 1500 ]
	command -v heaptrack >/dev/null || skip "heaptrack is not installed: its count not compared"
	heaptrack -o ht "$PROGS/temps" >/dev/null 2>&1
	[ "$(heaptrack_print ht.* 2>/dev/null | sed -n 's/^temporary memory allocations: \([0-9]*\).*/\1/p')" = 1000 ]
}

@test "two runs and -o: one page with both runs' data; two without -o refused" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o twice.mtr -- "$PROGS/memtestapp" 2 >/dev/null 2>&1
	run -0 --separate-stderr mt-report -o d.html "$BATS_FILE_TMPDIR/wpa.mtr" twice.mtr
	[ "$(grep -c '<script id="mt-data" type="application/json">' d.html)" = 1 ]
	[ "$(grep -c '<script id="mt-data-old" type="application/json">' d.html)" = 1 ]
	grep -q '"trace":"twice.mtr"' d.html
	run -2 --separate-stderr mt-report "$BATS_FILE_TMPDIR/wpa.mtr" twice.mtr
	run -2 --separate-stderr mt-report --json d.json "$BATS_FILE_TMPDIR/wpa.mtr" twice.mtr
	run -2 --separate-stderr mt-report -o twice.mtr "$BATS_FILE_TMPDIR/wpa.mtr" twice.mtr
	[ "$stderr" = "mt-report: twice.mtr: the input itself: not written over" ]
}
