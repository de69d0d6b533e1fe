#!/usr/bin/env bats
# mt-group: WPA's tables from the walkthrough recording (memtestapp),
# and the leaks at exit per function against heaptrack_print.

load helpers

setup_file() {
	record_walkthrough
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

@test "the whole run by process, heap, type, function: Size 120 MiB of mmap, impact 0; the leak" {
	run -0 bash -c "mt-window wpa.life | mt-group --by process,heap,type,function --format tsv"
	[ "${lines[0]}" = "$(printf 'process\theap\ttype\tfunction\tcount\tsize\timpact\tper-alloc')" ]
	has_line "$output" "^memtestapp\tmmap\ttransient\tcommit\t12\t$((120 * MiB))\t0\t$((10 * MiB))$"
	# the leak: never freed when memtestapp ended, which ended the trace
	has_line "$output" '^memtestapp\tmalloc\tleaked\tInnerLoopOperation\t250\t10000\t10000\t40$'
}

@test "the last four spikes: transient, Count 4, Size 40 MiB, impact 0, main -> Operation1 -> ManipulateTemporaryBuffer" {
	from=$(spike 7)
	to=$(awk -F'\t' -v a="$(spike 10)" '$1 == "life" && $2 == a { print $3 }' wpa.life)
	run -0 bash -c "mt-window --from $((from - 1000000))ns --to $((to + 1000000))ns --heap mmap wpa.life |
		mt-group --by type,stack --format tsv"
	has_line "$output" "^transient\t.*;main;Operation1;ManipulateTemporaryBuffer;commit\t4\t$((40 * MiB))\t0\t$((10 * MiB))$"
	has_line "$output" "^outstanding\t.*;main;commit\t2\t0\t0\t0$"
}

@test "a window over the step-up: +10 MiB impacting from main" {
	step=$(step_up)
	run -0 bash -c "mt-window --from $((step - 1000000))ns --to $((step + 1000000))ns --heap mmap wpa.life |
		mt-group --by type,function --format tsv"
	has_line "$output" "^impacting\tcommit\t1\t$((10 * MiB))\t$((10 * MiB))\t$((10 * MiB))$"
	has_line "$output" "^outstanding\tcommit\t1\t0\t0\t0$"
	run -0 bash -c "mt-window --from $((step - 1000000))ns --to $((step + 1000000))ns --heap mmap wpa.life |
		mt-group --tree"
	has_line "$output" "^ {10}main +2 +10\.0 MiB +10\.0 MiB +5\.0 MiB$"
}

@test "sort, top, json, folded, bottom-up tree" {
	run -0 --separate-stderr bash -c "mt-window wpa.life | mt-group --by function --sort size --top 1 --format tsv"
	[ "${lines[1]}" = "$(printf 'commit\t12\t%d\t0\t%d' $((120 * MiB)) $((10 * MiB)))" ]
	[ "${#lines[@]}" = 2 ]
	run -0 bash -c "mt-window wpa.life | mt-group --by function --sort count --format json --top 1"
	has_line "$output" '"function": "InnerLoopOperation", "count": 250, "size": 10000, "impact": 10000, "per-alloc": 40'
	run -0 bash -c "mt-window wpa.life | mt-group --format folded --weight impact"
	[ "$output" = "$(printf 'memtestapp;_start;__libc_start_main_impl;__libc_start_call_main;main;Operation1;InnerLoopOperation 10000\nmemtestapp;_start;__libc_start_main_impl;__libc_start_call_main;_IO_printf;_IO_new_file_xsputn;_IO_new_file_overflow;_IO_file_doallocate 4096')" ] ||
		has_line "$output" '^memtestapp;.*;main;Operation1;InnerLoopOperation 10000$'
	run -0 bash -c "mt-window --heap mmap wpa.life | mt-group --tree=bottom-up"
	has_line "$output" '^ {4}commit +12 +120\.0 MiB +0 B +10\.0 MiB$'
	has_line "$output" '^ {6}ManipulateTemporaryBuffer +10 +100\.0 MiB +0 B +10\.0 MiB$'
}

# Every function heaptrack_print lists as leaking, with its calls and
# bytes, found in our leaks at exit by function.  heaptrack runs glibc's
# freeres at exit, so it lists fewer than we do; its bytes are rounded.
agree_with_heaptrack() {	# heaptrack-file life-file
	heaptrack_print -l 1 --disable-builtin-suppressions "$1" 2>/dev/null |
		awk '/^MEMORY LEAKS/ { on = 1; next } on && /^$/ { exit }
		on && / leaked over [0-9]+ calls from$/ { n = $4; b = $1; getline f; print f, n, b }' >ht.txt
	mt-window "$2" | mt-group --no-suppress --by function --format tsv |
		awk -F'\t' 'NR > 1 && $4 > 0 { print $1, $2, $4 }' >mt.txt
	[ -s ht.txt ]
	while read -r fn n b; do
		grep -q "^$fn $n " mt.txt
		ours=$(awk -v f="$fn" '$1 == f { print $3 }' mt.txt)
		theirs=$(echo "$b" | sed 's/K$/*1000/; s/M$/*1000000/; s/B$//' | bc | cut -d. -f1)
		[ $((ours - theirs)) -le 50 ]
		[ $((theirs - ours)) -le 50 ]
	done <ht.txt
}

@test "leaks at exit per function agree with heaptrack_print: the walkthrough" {
	heaptrack -o ht "$PROGS/memtestapp" >/dev/null 2>&1
	agree_with_heaptrack ht.* wpa.life
	grep -q '^InnerLoopOperation 250 ' ht.txt
}

@test "leaks at exit per function agree with heaptrack_print: sort, a real program" {
	seq 1 50000 | awk '{ print ($1 * 7919) % 50021 }' >in.txt
	heaptrack -o hs sort in.txt -o /dev/null >/dev/null 2>&1
	mt-record -o s.mtr -- sort in.txt -o /dev/null 2>/dev/null
	mt-symbolize s.mtr | mt-lifetime -q >s.life
	agree_with_heaptrack hs.* s.life
}

@test "bad options" {
	run -2 --separate-stderr mt-group --by bogus wpa.life
	[ "$stderr" = "mt-group: bad key 'bogus' (process, pid, heap, type, class, function, stack, module, file, line, free-function, free-stack, task, temporary, size-class, order, commit-time, decommit-time)" ]
	run -2 --separate-stderr mt-group --format xml wpa.life
	[ "$stderr" = "mt-group: bad format 'xml' (table, tsv, json, folded, pprof)" ]
}

@test "pid, class, module and file keys" {
	pid=$(awk -F'\t' '$1 == "proc" { print $2 }' wpa.life)
	run -0 bash -c "mt-window wpa.life | mt-group --by pid,class,module,file --format tsv"
	has_line "$output" "^$pid\taifo\t\Q$PROGS/memtestapp\E\t.*memtestapp\.c\t250\t10000\t10000\t40$"
	has_line "$output" "^$pid\taifi\t\Q$PROGS/memtestapp\E\t.*memtestapp\.c\t12\t$((120 * MiB))\t0\t$((10 * MiB))$"
}

@test "a process renamed by exec starts groups of its own, from a trace too" {
	printf 'proc\t100\t1\t0\t/bin/a\ta\nstack\t1\t0x1000\nlife\t10\t20\t100\t100\tmalloc\t0x10\t8\t1\taifi\t0\nlife\t11\t21\t100\t100\tmalloc\t0x20\t8\t1\taifi\t0\nproc\t100\t1\t30\t/bin/b\tb\nlife\t31\t40\t100\t100\tmalloc\t0x10\t16\t1\taifi\t0\n' >ren.txt
	"$PROGS/mtr-encode" ren.txt >ren.mtr
	for f in ren.txt ren.mtr; do
		run -0 mt-group --by process,heap,class --format tsv $f
		[ "${lines[1]}" = "a	malloc	aifi	2	16	0	8" ]
		[ "${lines[2]}" = "b	malloc	aifi	1	16	0	16" ]
	done
}

@test "folded: a ';' in a name escaped, a stack cut at the depth marked, negative impacts under [freed]" {
	cd "$BATS_TEST_TMPDIR"
	{
		printf 'proc\t10\t1\t0\t/bin/app\tapp\n'
		printf 'stack\t1\t0x10\t0x20\n'
		printf 'stack\t2\t0x30\t...\n'
		printf 'sym\t0x10\tfn;with;semis\ta.c:1\t/bin/app\n'
		printf 'sym\t0x20\tmain\ta.c:9\t/bin/app\n'
		printf 'sym\t0x30\tdeep\ta.c:5\t/bin/app\n'
		printf 'life\t1\t-\t10\t10\tmalloc\t0x100\t100\t1\taifo\t100\n'
		printf 'life\t-\t5\t10\t10\tmalloc\t0x200\t70\t2\taofi\t-70\n'
		printf 'life\t2\t-\t10\t10\tmalloc\t0x300\t30\t2\taifo\t30\n'
	} >f.life
	run -0 mt-group --format folded f.life
	[ "$output" = "$(printf 'app;main;fn\\;with\\;semis 100\napp;[...];deep 30')" ]
	# split as the flame-graph tools do, but on ';' not escaped: 3 frames
	[ "$(printf '%s\n' "${lines[0]% *}" | sed 's/\\;/X/g' | awk -F';' '{ print NF }')" = 3 ]
	run -0 mt-group --format folded --weight impact f.life
	[ "$output" = "$(printf 'app;main;fn\\;with\\;semis 100\n[freed];app;[...];deep 40')" ] ||
	[ "$output" = "$(printf '[freed];app;[...];deep 40\napp;main;fn\\;with\\;semis 100')" ]
	# the tree reads the escapes back: the name whole, one node
	run -0 mt-group --tree f.life
	has_line "$output" '^ *fn;with;semis +1 '
	has_line "$output" '^ *\[\.\.\.\] +2 '
}

@test "free stacks (mt-record -F) carried on the life lines, grouped by --by free-function and free-stack" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -F -o f.mtr -- "$PROGS/demo" 2>/dev/null
	mt-symbolize f.mtr >f.txt
	# every free with a stack ends a lifetime that carries that stack
	awk -F'\t' '$1 == "free" && $7 != "-" { print $6, $7 }' f.txt | sort >frees
	[ "$(wc -l <frees)" = 6 ]
	mt-lifetime f.txt 2>/dev/null >l.txt
	diff frees <(awk -F'\t' '$1 == "life" && $13 != "" { print $7, $13 }' l.txt | sort)
	# leaks have a fate and no free stack; older fields unchanged
	[ "$(awk -F'\t' '$1 == "life" && $12 == "exit" && $13 == ""' l.txt | wc -l)" = 3 ]
	# the same through .mtr streams
	diff l.txt <(mt-lifetime -b f.txt 2>/dev/null | mt-decode)
	run -0 mt-group --by function,free-function --format tsv l.txt
	has_line "$output" $'^make_name\tmain\t5\t160\t0\t32$'
	has_line "$output" $'^make_name\t-\t3\t96\t96\t32$'
	has_line "$output" $'^main\tmain\t1\t100\t0\t100$'
	run -0 mt-group --by free-stack --format tsv l.txt
	has_line "$output" $'^_start;__libc_start_main_impl;__libc_start_call_main;main\t6\t260\t0\t43$'
	run -2 mt-group --by free-functions l.txt
}

@test "hostile names: a NUL refused with file:line, CRLF read as LF once said, JSON valid, tables never send control bytes" {
	cd "$BATS_TEST_TMPDIR"
	# a NUL in the heap once freed a name still in use (SIGSEGV)
	printf 'life\t1\t2\t10\t10\tmal\0loc\t0x10\t8\t-\taifi\t0\nlife\t1\t2\t10\t10\tmalloc\t0x20\t8\t-\taifi\t0\n' >nul.life
	run -1 --separate-stderr mt-group --format tsv nul.life
	[ "$stderr" = "mt-group: nul.life:1: NUL byte in line 'life?1?2?10?10?mal'" ]
	has_line "$output" $'^\\?\tmalloc\ttransient\t-\t1\t8\t0\t8$'
	# CRLF: the same as LF, said once
	printf 'proc\t10\t1\t0\t/bin/app\tapp\r\nlife\t1\t-\t10\t10\tmalloc\t0x10\t8\t-\taifo\t8\r\nlife\t1\t-\t10\t10\tmalloc\t0x20\t8\t-\taifo\t8\r\n' >crlf.life
	run -0 --separate-stderr mt-group --format tsv crlf.life
	[ "$stderr" = "mt-group: crlf.life:1: note: CRLF line ends read as LF" ]
	has_line "$output" $'^app\tmalloc\timpacting\t-\t2\t16\t16\t8$'
	# invalid UTF-8 and control bytes in names
	{
		printf 'proc\t10\t1\t0\t/bin/a\033[31mb\ta\n'
		printf 'stack\t1\t0x10\n'
		printf 'sym\t0x10\tf\377\376o\a\tf.c:1\t/bin/a\n'
		printf 'life\t1\t-\t10\t10\tmalloc\t0x100\t100\t1\taifo\t100\n'
	} >u.life
	mt-group --format json u.life | python3 -c 'import json, sys; json.load(sys.stdin)'
	run -0 mt-group --format json u.life
	has_line "$output" '"function": "f\\\\xff\\\\xfeo\\u0007"'
	run -0 mt-group u.life
	[[ "$output" != *$'\033'* && "$output" != *$'\a'* ]]
	has_line "$output" '^a\\x1b\[31mb +malloc'
	run -0 mt-group --tree u.life
	[[ "$output" != *$'\033'* && "$output" != *$'\a'* ]]
}

# t.life: app's lifetimes under main: 3 blocks a() allocates itself, 1
# through b(), 2 through c() of which one is freed; one with no stack.
tree_input() {
	printf '%s\n' 'proc	5	1	0	/bin/app	app' \
		'sym	0x10	main	m.c:1	/bin/app' 'sym	0x20	a	m.c:2	/bin/app' \
		'sym	0x30	b	m.c:3	/bin/app' 'sym	0x40	c	m.c:4	/bin/app' \
		'sym	0x50	malloc	-	/lib/libc.so.6' \
		'stack	1	0x50	0x20	0x10' 'stack	2	0x50	0x30	0x20	0x10' \
		'stack	3	0x50	0x40	0x10' \
		'life	1	-	5	5	malloc	0x100	10	1	aifo	10' \
		'life	2	-	5	5	malloc	0x110	10	1	aifo	10' \
		'life	3	-	5	5	malloc	0x120	10	1	aifo	10' \
		'life	4	-	5	5	malloc	0x130	100	2	aifo	100' \
		'life	5	-	5	5	malloc	0x140	7	3	aifo	7' \
		'life	6	9	5	5	malloc	0x150	5	3	aifi	0' \
		'life	7	-	5	5	malloc	0x160	1	-	aifo	1' >t.life
}

@test "--tree nests the --by keys, then the stacks; [self] where a function allocated itself" {
	cd "$BATS_TEST_TMPDIR"
	tree_input
	run -0 mt-group --tree --by process,type t.life
	[ "${lines[0]%% *}" = process ] && [[ "${lines[0]}" == "process > type > stack "* ]]
	has_line "$output" '^all +7 +143 B +138 B +20 B$'
	has_line "$output" '^  app +7 +143 B +138 B +20 B$'
	has_line "$output" '^    impacting +6 +138 B +138 B +23 B$'
	has_line "$output" '^    transient +1 +5 B +0 B +5 B$'
	has_line "$output" '^      main +5 +137 B +137 B +27 B$'
	has_line "$output" '^        a +4 +130 B +130 B +32 B$'
	has_line "$output" '^          b +1 +100 B +100 B +100 B$'
	has_line "$output" '^          \[self\] +3 +30 B +30 B +10 B$'
	has_line "$output" '^      \[no stack\] +1 +1 B +1 B +1 B$'
	# children biggest first: b (100) before [self] (30)
	[[ "$output" == *"  b "*"[self]"* ]]
	# no [self] where a function only allocated itself
	run -0 mt-group --tree t.life
	[ -z "$(printf '%s\n' "$output" | grep -A1 '^ *c ' | grep self)" ]
	[ "$(printf '%s\n' "$output" | grep -c '\[self\]')" = 1 ]
	# bottom-up: the allocating functions first, their callers under them
	run -0 mt-group --tree=bottom-up t.life
	has_line "$output" '^    a +3 +30 B +30 B +10 B$'
	has_line "$output" '^    b +1 +100 B +100 B +100 B$'
	has_line "$output" '^      a +1 +100 B +100 B +100 B$'
	has_line "$output" '^    c +2 +12 B +7 B +6 B$'
}

@test "--tree with --top, --depth, --sort, TSV and JSON; the combinations it refuses" {
	cd "$BATS_TEST_TMPDIR"
	tree_input
	run -0 mt-group --tree --top 1 t.life
	has_line "$output" '^    main +6 +142 B +137 B +23 B$'
	has_line "$output" '^    \[1 more\] +1 +1 B +1 B +1 B$'
	has_line "$output" '^      a +4 +130 B +130 B +32 B$'
	has_line "$output" '^      \[1 more\] +2 +12 B +7 B +6 B$'
	run -0 mt-group --tree --sort count --top 1 t.life
	has_line "$output" '^      a +4 '
	run -0 mt-group --tree --depth 1 t.life
	has_line "$output" '^    main +6 +142 B +137 B +23 B$'
	[ -z "$(printf '%s\n' "$output" | grep '^      a ')" ]
	run -0 mt-group --tree --depth 0 --by heap t.life
	[ "${#lines[@]}" = 3 ]
	run -0 mt-group --tree --format tsv t.life
	[ "${lines[0]}" = "$(printf 'id\tparent\tlevel\tname\tcount\tsize\timpact\tper-alloc')" ]
	has_line "$output" '^0\t-\tall\tall\t7\t143\t138\t20$'
	has_line "$output" '^1\t0\tprocess\tapp\t7\t143\t138\t20$'
	# every parent is a row before its children; the sums add up
	printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { seen[$1] = 1; if ($2 != "-" && !($2 in seen)) exit 1
		if ($2 != "-") kids[$2] += $5; cnt[$1] = $5 }
		END { for (p in kids) if (kids[p] != cnt[p]) exit 1 }'
	run -0 mt-group --tree --format json t.life
	printf '%s\n' "$output" | python3 -c '
import json, sys
t = json.load(sys.stdin)
def check(n):
    kids = n.get("children", [])
    assert not kids or sum(k["count"] for k in kids) == n["count"], n["name"]
    for k in kids: check(k)
check(t)
app = t["children"][0]
assert (app["level"], app["name"], app["count"]) == ("process", "app", 7)'
	run -2 mt-group --tree --format folded t.life
	has_line "$output" 'folded stacks are a tree already'
	run -2 mt-group --tree --by stack,process t.life
	has_line "$output" 'stack is the last key'
	run -2 mt-group --depth 3 t.life
	run -2 mt-group --tree --depth -1 t.life
	run -0 mt-group --tree --by process,stack t.life
	has_line "$output" '^      a +4 '
}

@test "a child's leak is leaked, with a window or without, as valgrind's memcheck counts it" {
	cd "$BATS_TEST_TMPDIR"
	valgrind --leak-check=full "$PROGS/demo" 2>vg.txt >/dev/null
	lost=$(sed -n 's/.* \([0-9,]*\) bytes in \([0-9]*\) blocks are definitely lost.*/\2 \1/p' vg.txt | tr -d ,)
	[ -n "$lost" ]
	# the child ends long before the shell that ends the trace
	mt-record -o c.mtr -- sh -c "$PROGS/demo >/dev/null & sleep 0.3; ls >/dev/null; wait" 2>/dev/null
	mt-symbolize c.mtr | mt-lifetime -q >c.life
	run -0 bash -c "mt-window c.life | mt-group --by process,type --format tsv"
	windowed=$output
	run -0 mt-group --by process,type --format tsv c.life
	[ "$output" = "$windowed" ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "demo" && $2 == "leaked" { print $3, $4 }')" = "$lost" ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "demo" && $2 == "transient" { n++ } END { print n + 0 }')" -le 1 ]
	# a window after the child's exit: its leak still held, the baseline
	end=$(mt-decode c.mtr | awk -F'\t' '$1 == "proc" && $5 ~ /demo$/ { p = $2 } $1 == "exit" && $3 == p { print $2 }')
	run -0 bash -c "mt-window --from $((end + 1000))ns c.life | mt-group --by process,type --format tsv"
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "demo" { print $2, $3, $5 }')" = "leaked ${lost% *} 0" ]
	# the graph: nothing of it after its exit
	run -0 mt-window --at $((end + 1000))ns c.life
	[ "$(printf '%s\n' "$output" | awk -F'\t' -v p="$(mt-decode c.mtr | awk -F'\t' '$1 == "proc" && $5 ~ /demo$/ { print $2 }')" '$1 == "life" && $4 == p' | wc -l)" = 0 ]
}

@test "from leak to line: --by function,line names the line valgrind's memcheck names for the leak" {
	cd "$BATS_TEST_TMPDIR"
	valgrind --leak-check=full "$PROGS/demo" 2>vg.txt
	theirs=$(grep -A2 'definitely lost in' vg.txt | sed -n 's/.* by 0x[0-9A-F]*: \([a-z_]*\) (\(.*\))$/\1 \2/p' | head -n 1)
	lost=$(sed -n 's/.* \([0-9,]*\) bytes in \([0-9]*\) blocks are definitely lost.*/\1 \2/p' vg.txt | tr -d ,)
	[ -n "$theirs" ] && [ -n "$lost" ]
	mt-record -o d.mtr -- "$PROGS/demo" 2>/dev/null
	run -0 bash -c "mt-symbolize d.mtr | mt-lifetime -q | mt-window | mt-group --by type,function,line --format tsv"
	# the leaked row: its function, its line's file name and number, its bytes
	row=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "leaked"')
	[ "$(printf '%s\n' "$row" | wc -l)" = 1 ]
	fn=$(printf '%s' "$row" | cut -f2)
	line=$(printf '%s' "$row" | cut -f3)
	[ "$fn ${line##*/}" = "$theirs" ]
	[ "$(printf '%s' "$row" | cut -f6)" = "${lost% *}" ]
	# a frame without a line: '-'
	printf '%s\n' 'proc	1	0	0	/bin/a	a' 'sym	0x10	f	-	/bin/a' 'stack	1	0x10' \
		'life	1	-	1	1	malloc	0x100	10	1	aifo	10' >n.life
	run -0 mt-group --by function,file,line --format tsv n.life
	[ "${lines[1]}" = "$(printf 'f\t-\t-\t1\t10\t10\t10')" ]
}

@test "C++ names: template arguments shown as <> in the table (--shorten), whole in TSV and JSON; rows within 120 columns" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o p.mtr -- "$PROGS/peak-cxx" >/dev/null 2>&1
	mt-symbolize p.mtr | mt-lifetime -q >p.life
	run -0 mt-group p.life
	# build's 20000 strings, 20000 map nodes and their strings, and 16
	# vector buffers (to 32768): the containers' frames are the API's
	has_line "$output" '^peak-cxx +malloc +transient +build<> +60016 '
	# every line of the default table within 120 columns, cut names marked
	[ "$(printf '%s\n' "$output" | awk '{ n = length($0) > n ? length($0) : n } END { print n }')" -le 120 ]
	run -0 mt-group --format tsv p.life
	has_line "$output" '\tbuild<std::map<int, std::__cxx11::basic_string<char'
	run -0 mt-group --format tsv --shorten p.life
	has_line "$output" '\tbuild<>\t60016\t'
	run -0 mt-group --no-shorten --by function p.life
	has_line "$output" '^build<std::map<int, std::__cxx11::basic_string'
	run -0 mt-group --tree p.life
	[ "$(printf '%s\n' "$output" | awk '{ n = length($0) > n ? length($0) : n } END { print n }')" -le 120 ]
	has_line "$output" '^ +build<> +60016 '
	# operators with angle brackets are not templates
	printf '%s\n' 'proc	1	0	0	/bin/a	a' \
		'sym	0x10	operator<<(std::ostream&, foo<int, bar<char> > const&)	-	/bin/a' \
		'sym	0x20	bool operator< <int>(v<int> const&)	-	/bin/a' \
		'sym	0x30	x::operator->() const	-	/bin/a' 'sym	0x40	broken<int	-	/bin/a' \
		'stack	1	0x10' 'stack	2	0x20' 'stack	3	0x30' 'stack	4	0x40' \
		'life	1	-	1	1	malloc	0x100	10	1	aifo	10' 'life	1	-	1	1	malloc	0x200	10	2	aifo	10' \
		'life	1	-	1	1	malloc	0x300	10	3	aifo	10' 'life	1	-	1	1	malloc	0x400	10	4	aifo	10' >o.life
	run -0 mt-group --by function --format tsv --shorten o.life
	has_line "$output" '^operator<<\(std::ostream&, foo<> const&\)\t'
	has_line "$output" '^bool operator< <>\(v<> const&\)\t'
	has_line "$output" '^x::operator->\(\) const\t'
	has_line "$output" '^broken<int\t'
}

@test "--diff: two runs compared, the changes biggest first, new and gone marked; exit 0, 1 or 2 as diff's" {
	cd "$BATS_TEST_TMPDIR"
	for n in 1000 3000; do
		mt-record -o r$n.mtr -- "$PROGS/live-set" $n >/dev/null 2>&1
		mt-symbolize r$n.mtr | mt-lifetime -q >r$n.life
	done
	mt-group --by heap,function --format tsv r1000.life >old.tsv
	# the same run against itself: no change
	run -0 --separate-stderr mt-group --by heap,function --diff old.tsv r1000.life
	[ "${#lines[@]}" = 1 ]
	has_line "$stderr" '^mt-group: 0 groups changed \(0 new, 0 gone\), [1-9][0-9]* the same$'
	# 2,000 more blocks of 16 bytes, from main
	run -1 --separate-stderr mt-group --by heap,function --sort count --diff old.tsv --format tsv r3000.life
	[ "${lines[0]}" = "$(printf 'heap\tfunction\tcount\tsize\timpact\told-count\told-size\told-impact\tstate')" ]
	has_line "${lines[1]}" '^malloc\tmain\t3000\t48000\t0\t1000\t16000\t0\tchanged$'
	# the array of pointers, mapped: 8 bytes a block more, never unmapped
	has_line "$output" '^mmap\tmain\t1\t24576\t24576\t1\t8192\t8192\tchanged$'
	run -1 --separate-stderr mt-group --by heap,function --sort count --diff old.tsv r3000.life
	has_line "${lines[1]}" '^malloc +main +3000 +\+2000 +46\.9 KiB +\+31\.2 KiB +0 B +0 B$'
	run -1 --separate-stderr mt-group --by heap,function --diff old.tsv --format json r3000.life
	printf '%s\n' "$output" | python3 -c 'import json, sys
d = [r for r in json.load(sys.stdin) if r["heap"] == "malloc"]
assert (d[0]["count"], d[0]["old-count"], d[0]["state"]) == (3000, 1000, "changed")'
	# new and gone groups
	printf 'function\tcount\tsize\timpact\nvanished\t2\t20\t20\n' >gone.tsv
	run -1 --separate-stderr mt-group --by function --diff gone.tsv --format tsv r1000.life
	has_line "$output" '^vanished\t0\t0\t0\t2\t20\t20\tgone$'
	has_line "$output" '^main\t1001\t24192\t8192\t0\t0\t0\tnew$'
	# other keys, a bad row, an unreadable file: trouble, said
	run -2 --separate-stderr mt-group --by function --diff old.tsv r1000.life
	has_line "$stderr" "^mt-group: old.tsv:1: the columns are not those of --by: 'heap\\?function\\?count\\?size\\?impact\\?per-alloc' \\(want 'function\\?count\\?size\\?impact\\?per-alloc'\\)$"
	printf 'function\tcount\tsize\timpact\nmain\tmany\t1\t1\nx\t1\t1\n' >bad.tsv
	run -2 --separate-stderr mt-group --by function --diff bad.tsv r1000.life
	has_line "$stderr" "^mt-group: bad.tsv:2: bad number 'many'"
	has_line "$stderr" "^mt-group: bad.tsv:3: bad row: fields 'x'"
	run -2 mt-group --diff nothing.tsv r1000.life
	run -2 mt-group --tree --diff old.tsv r1000.life
}

@test "temporary allocations (freed before their thread allocates again): --by temporary, as heaptrack counts them" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o t.mtr -- "$PROGS/temps" >/dev/null 2>&1
	mt-symbolize t.mtr >t.txt
	run -0 bash -c "mt-lifetime -q t.txt | mt-group --by function,temporary --format tsv"
	has_line "$output" '^churn\ttemporary\t1000\t64000\t0\t64$'
	has_line "$output" '^pairs\ttemporary\t500\t24000\t0\t48$'
	has_line "$output" '^pairs\tother\t500\t16000\t0\t32$'
	has_line "$output" '^keep\tother\t100\t1600\t1600\t16$'
	[ -z "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "churn" && $2 == "other"')" ]
	# the same through a .mtr stream
	run -0 bash -c "mt-lifetime -q -b t.txt | mt-group --by function,temporary --format tsv"
	has_line "$output" '^churn\ttemporary\t1000\t64000\t0\t64$'
	has_line "$output" '^pairs\ttemporary\t500\t24000\t0\t48$'
	# the life line's last field; fate and free stack '-' before it
	mt-lifetime -q t.txt | awk -F'\t' '$1 == "life" && NF == 14 && $12 == "-" && $13 == "-" && $14 == "temporary" { n++ } END { exit n != 1500 }'
	# heaptrack counts churn's the same; pairs' b not, as a free came between
	heaptrack -o ht "$PROGS/temps" >/dev/null 2>&1
	heaptrack_print ht.* 2>/dev/null | grep -A1 '^1000 temporary allocations of 1000 allocations' | grep -q '^churn$'
	# a bad value is said
	printf 'life\t1\t2\t1\t1\tmalloc\t0x10\t8\t-\taifi\t0\t-\t-\tsoon\n' >b.life
	run -1 --separate-stderr mt-group b.life
	has_line "$stderr" "^mt-group: b.life:1: bad temporary 'soon'"
}

@test "--histogram: count and bytes by power-of-two size class, in order, under the --by keys" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o t.mtr -- "$PROGS/temps" >/dev/null 2>&1
	mt-lifetime -q t.mtr >t.life
	run -0 mt-group --histogram --format tsv t.life
	[ "$output" = "$(printf 'size-class\tcount\tsize\timpact\tper-alloc\n16-31\t100\t1600\t1600\t16\n32-63\t1000\t40000\t0\t40\n64-127\t1000\t64000\t0\t64')" ]
	# against awk's own classes of a larger trace, every lifetime counted
	mt-record -o d.mtr -- "$PROGS/peak-cxx" >/dev/null 2>&1
	mt-lifetime -q d.mtr >d.life
	run -0 mt-group --histogram --by heap --format tsv d.life
	diff <(printf '%s\n' "$output" | tail -n +2 | cut -f1-4) <(awk -F'\t' '$1 == "life" && $8 != "-" {
		c = "0"; if ($8 > 0) { lo = 1; while (lo * 2 <= $8) lo *= 2; c = lo "-" (lo * 2 - 1) }
		k = $6 "\t" c; n[k]++; b[k] += ($10 ~ /^ai/) ? $8 : 0 }
		END { for (k in n) print k "\t" n[k] "\t" b[k] }' d.life | sort -t"$(printf '\t')" -k1,1 -k2,2V)
	run -2 mt-group --histogram --tree t.life
}

@test "suppressions: what every C++ program keeps is counted apart, the real leaks are what valgrind finds lost" {
	cd "$BATS_TEST_TMPDIR"
	valgrind "$PROGS/leak-cxx" 2>vg.txt >/dev/null
	# valgrind frees libstdc++'s pool and stdio's buffers at exit (freeres)
	theirs=$(sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks/\1 \2/p' vg.txt | tr -d ,)
	mt-record -o l.mtr -- "$PROGS/leak-cxx" >/dev/null 2>&1
	mt-symbolize l.mtr | mt-lifetime -q >l.life
	run -0 --separate-stderr mt-group --by type --format tsv l.life
	ours=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "leaked" { print $4, $2 }')
	[ "$ours" = "$theirs" ]
	has_line "$stderr" '^mt-group: suppressed 2 lifetimes never freed, 75\.0 KiB \(mt-suppress:[0-9]+ 1, mt-suppress:[0-9]+ 1\); --no-suppress shows them$'
	run -0 --separate-stderr mt-group --no-suppress --by type --format tsv l.life
	[ -z "$stderr" ]
	has_line "$output" "^leaked\t5\t"
	# C's leak and the walkthrough's stay: the list hides no leak of ours
	for p in demo memtestapp poolleak; do
		mt-record -o p.mtr -- "$PROGS/$p" >/dev/null 2>&1
		mt-symbolize p.mtr | mt-lifetime -q >p.life
		a=$(mt-group --by type,function --format tsv p.life 2>/dev/null | grep -vP '^leaked\t(__GI_)?_IO_file_doallocate\t')
		b=$(mt-group --no-suppress --by type,function --format tsv p.life | grep -vP '^leaked\t(__GI_)?_IO_file_doallocate\t')
		[ "$a" = "$b" ]
	done
	# rules of one's own: a function anywhere in the stack, the allocating module
	printf '# ours\n\nfunction ^main$ module leak-cxx$\n' >mine.supp
	run -0 --separate-stderr mt-group --suppress mine.supp --by function --format tsv l.life
	# main's three leaks: the string's characters too, made by
	# libstdc++'s _M_construct, whose frames are the API's
	[ -z "$(printf '%s\n' "$output" | grep -e '^main' -e '_M_allocate' -e '_M_construct')" ]
	has_line "$stderr" 'mine\.supp:3 3'
	# the module is the allocating frame's: main's, not libstdc++'s
	printf 'function ^main$ module libstdc\n' >lib.supp
	run -0 --separate-stderr mt-group --suppress lib.supp --by function --format tsv l.life
	has_line "$output" '^main\t3\t'
	! has_line "$stderr" 'lib\.supp' || false
	printf 'function\nstack x\n' >bad.supp
	run -2 --separate-stderr mt-group --suppress bad.supp l.life
	has_line "$stderr" "^mt-group: bad.supp:1: a rule without its pattern 'function'"
	has_line "$stderr" "^mt-group: bad.supp:2: bad rule 'stack'"
}

# views_agree LIFE: the tree, the histogram and the table sum to the same
# counts; the peaks are the series' most.
views_agree() {
	local n
	n=$(awk -F'\t' '$1 == "life"' "$1" | wc -l)
	[ "$n" -gt 0 ]
	run -0 --separate-stderr mt-group --no-suppress --tree --by process,heap --top 3 --depth 4 --format tsv "$1"
	has_line "$output" "^0\t-\tall\tall\t$n\t"
	run -0 --separate-stderr mt-group --no-suppress --histogram --by heap --format tsv "$1"
	[ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { s += $3 } END { print s }')" = "$n" ]
	run -0 --separate-stderr mt-group --no-suppress --by task,temporary --format tsv "$1"
	[ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { s += $3 } END { print s }')" = "$n" ]
	mt-group --no-suppress --by process,heap --format tsv "$1" >before.tsv
	run -0 --separate-stderr mt-group --no-suppress --by process,heap --diff before.tsv "$1"
	# each process and heap's peak: the most of its series at any step
	mt-window --at peak "$1" | awk -F'\t' '$1 == "sample" { print $3, $4, $5 }' | sort >peaks
	mt-window --series 7ms "$1" | awk -F'\t' '$1 == "sample" { k = $3 " " $4
		if (!(k in m) || $7 > m[k]) m[k] = $7 } END { for (k in m) print k, m[k] }' | sort >most
	[ -s peaks ]
	diff peaks most
}

@test "the suppression note on standard error in every format, stdout the rows alone; a bad pattern in --suppress said with its file:line" {
	printf 'proc\t10\t1\t0\t/bin/x\tx\nstack\t1\t0x1000\nsym\t0x1000\t_IO_file_doallocate\t-\t/lib/libc.so.6\nstack\t2\t0x2000\nsym\t0x2000\tmain\tx.c:3\t/bin/x\nlife\t1\t-\t10\t10\tmalloc\t0x10\t1024\t1\taifo\t1024\tend\nlife\t2\t-\t10\t10\tmalloc\t0x20\t16\t2\taifo\t16\tend\n' >stdio.life
	for f in "--format table" "--format tsv" "--format json" "--format folded" "--tree" "--histogram"; do
		run -0 --separate-stderr mt-group $f stdio.life
		[[ $stderr =~ ^mt-group:\ suppressed\ 1\ lifetimes\ never\ freed,\ 1\.0\ KiB\ \(mt-suppress:[0-9]+\ 1\)\;\ --no-suppress\ shows\ them$ ]]
		[[ $output != *suppress* ]]
		[[ $output == *main* || $f == --histogram ]]
	done
	run -0 --separate-stderr mt-group --format tsv stdio.life
	[ "$output" = "$(printf 'process\theap\ttype\tfunction\tcount\tsize\timpact\tper-alloc\nx\tmalloc\timpacting\tmain\t1\t16\t16\t16')" ]
	printf 'function ok\nfunction (\nmodule [z-a] function x\nfunction fine\n' >re.supp
	run -2 --separate-stderr mt-group --suppress re.supp stdio.life
	[ -z "$output" ]
	[ "$stderr" = "mt-group: re.supp:2: bad regular expression '(': missing closing parenthesis at 1
mt-group: re.supp:3: bad regular expression '[z-a]': range out of order in character class at 3" ]
}

@test "every view on a multi-process trace (make -j2), python3, and a kernel trace" {
	cd "$BATS_TEST_TMPDIR"
	PYTHONMALLOC=malloc mt-record -o py.mtr -- /usr/bin/python3 -c \
		'd = {str(i): [i] * (i % 7) for i in range(20000)}; print(len(d))' >/dev/null 2>&1
	mt-symbolize py.mtr | mt-lifetime -q >py.life
	views_agree py.life
	mkdir mk
	for i in 1 2 3 4 5 6; do printf 'int f%d(int x) { return x * %d; }\n' $i $i >mk/f$i.c; done
	printf 'all: f1.o f2.o f3.o f4.o f5.o f6.o\n%%.o: %%.c\n\tcc -O2 -c $< -o $@\n' >mk/Makefile
	mt-record -o mk.mtr -- make -s -j2 -C mk >/dev/null 2>&1
	mt-symbolize mk.mtr | mt-lifetime -q >mk.life
	[ "$(awk -F'\t' '$1 == "proc"' mk.life | wc -l)" -ge 12 ]
	views_agree mk.life
	[ "$(wc -l <peaks)" -ge 12 ]
	[ "$(id -u)" = 0 ] && grep -qw tracefs /proc/filesystems ||
		skip "kernel tracing needs root and tracefs (the make -j2 part passed)"
	mt-record --kernel -d 1s -o k.mtr >/dev/null 2>&1 &
	for i in $(seq 50); do cat /etc/hostname >/dev/null; done
	wait
	mt-symbolize k.mtr | mt-lifetime -q >k.life
	views_agree k.life
}

@test "sums past 2^63-1 saturate, Impacting Size both ways, never wrap: the bound shown, the column said, exit 1" {
	cd "$BATS_TEST_TMPDIR"
	M=9223372036854775807
	{
		printf 'proc\t10\t1\t0\t/bin/app\tapp\nstack\t1\t0x10\nsym\t0x10\tmain\ta.c:1\t/bin/app\n'
		printf 'life\t%s\t-\t10\t10\tmalloc\t0x%s\t%s\t-\taifo\t%s\n' 1 100 $M $M 2 200 $M $M
		printf 'life\t-\t3\t10\t10\tmmap\t0x300\t%s\t-\taofi\t-%s\n' $M $M
		printf 'life\t-\t4\t10\t10\tmmap\t0x400\t%s\t-\taofi\t-%s\n' $M $M
	} >big.life
	up="(more than 2^63-1: read it as at least that)"
	down="(less than -(2^63-1): read it as at most that)"
	said="mt-group: Size saturated at $M $up
mt-group: Impacting Size saturated at $M $up
mt-group: Impacting Size saturated at -$M $down"
	# once two lifetimes of 2^63-1 bytes made Size -2 B
	run -1 --separate-stderr mt-group --by heap --format tsv big.life
	[ "$output" = "$(printf 'heap\tcount\tsize\timpact\tper-alloc\nmalloc\t2\t%s\t%s\t%s\nmmap\t2\t0\t-%s\t0' $M $M $M $M)" ]
	[ "$stderr" = "$said" ]
	run -1 --separate-stderr mt-group --by heap --format json big.life
	has_line "$output" "^  {\"heap\": \"malloc\", \"count\": 2, \"size\": $M, \"impact\": $M, \"per-alloc\": $M},\$"
	has_line "$output" "^  {\"heap\": \"mmap\", \"count\": 2, \"size\": 0, \"impact\": -$M, \"per-alloc\": 0}\$"
	[ "$stderr" = "$said" ]
	run -1 --separate-stderr mt-group --by heap big.life
	has_line "$output" '^malloc +2 +>=8\.0 EiB +>=8\.0 EiB +8\.0 EiB$'
	has_line "$output" '^mmap +2 +0 B +<=-8\.0 EiB +0 B$'
	[ "$stderr" = "$said" ]
	# kept wide until shown: what the frees took back is not lost
	run -1 --separate-stderr mt-group --by process --format tsv big.life
	[ "${lines[1]}" = "$(printf 'app\t4\t%s\t0\t%s' $M $((M / 2)))" ]
	[ "$stderr" = "mt-group: Size saturated at $M $up" ]
	run -1 --separate-stderr mt-group --tree --by heap big.life
	has_line "$output" '^all +4 +>=8\.0 EiB +0 B +4\.0 EiB$'
	[ "$stderr" = "$said" ]
	run -1 --separate-stderr mt-group --format folded big.life
	[ "$output" = "app $M" ]
	# --diff: its changes too; trouble, as diff(1) says it
	printf 'heap\tcount\tsize\timpact\nmalloc\t2\t0\t-%s\n' $M >old.tsv
	run -2 --separate-stderr mt-group --by heap --diff old.tsv big.life
	has_line "$output" '^malloc +2 +\+0 +>=8\.0 EiB +>=8\.0 EiB +>=8\.0 EiB +>=8\.0 EiB$'
	[ "${stderr_lines[0]}" = "mt-group: 2 groups changed (1 new, 0 gone), 0 the same" ]
	has_line "$stderr" "^mt-group: the change of Impacting Size saturated at $M \\Q$up\\E\$"
	has_line "$stderr" "^mt-group: the change of Impacting Size saturated at -$M \\Q$down\\E\$"
	# what the suppressions kept out
	printf 'function ^main$\n' >main.supp
	{
		head -n 3 big.life
		printf 'life\t%s\t-\t10\t10\tmalloc\t0x%s\t%s\t1\taifo\t%s\n' 5 500 $M $M 6 600 $M $M
	} >sup.life
	run -1 --separate-stderr mt-group --suppress main.supp --format tsv sup.life
	[ "$stderr" = "mt-group: suppressed 2 lifetimes never freed, >=8.0 EiB (main.supp:1 2); --no-suppress shows them
mt-group: the suppressed bytes saturated at $M $up" ]
}

# api_stream FILE NAME...: a stream with a stack a NAME, the NAME's frame
# innermost and caller_K (K its position) calling it, a life of K bytes
# a stack.
api_stream() {
	local out=$1 n=0 name
	shift
	{
		printf 'proc\t10\t1\t0\t/bin/x\tx\n'
		for name in "$@"; do
			n=$((n + 1))
			printf 'stack\t%d\t0x%x\t0x%x\n' $n $((n * 16 + 4096)) $((n * 16 + 4104))
			printf 'sym\t0x%x\t%s\t-\t/lib/liba.so\n' $((n * 16 + 4096)) "$name"
			printf 'sym\t0x%x\tcaller_%d\tx.c:%d\t/bin/x\n' $((n * 16 + 4104)) $n $n
			printf 'life\t1\t-\t10\t10\tmalloc\t0x%x\t%d\t%d\taifo\t%d\n' $n $n $n $n
		done
	} >"$out"
}

@test "every language's allocation API is skipped by default; a program's function named like one is not" {
	cd "$BATS_TEST_TMPDIR"
	# each skipped: its caller is the allocating function
	local -a api=(
		'__rust_alloc' '__rustc::__rust_alloc_zeroed' '__rdl_alloc' '__rustc::__rdl_realloc'
		'alloc::alloc::alloc' 'alloc::alloc::Global::alloc_impl'
		'<alloc::alloc::Global as core::alloc::Allocator>::allocate'
		'<alloc::raw_vec::RawVecInner>::try_allocate_in'
		'alloc::raw_vec::RawVec<T,A>::grow_one' 'alloc::raw_vec::finish_grow'
		'alloc::vec::Vec<T>::with_capacity' '<alloc::vec::Vec<u8>>::push'
		'<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem' 'alloc::vec::from_elem'
		'<alloc::string::String as core::clone::Clone>::clone' 'alloc::fmt::format::format_inner'
		'<std::alloc::System as core::alloc::global::GlobalAlloc>::alloc'
		'std::sys::alloc::unix::<impl core::alloc::global::GlobalAlloc for std::alloc::System>::alloc'
		'hashbrown::raw::RawTableInner::fallible_with_capacity' 'hashbrown::raw::alloc::inner::do_alloc'
		'std::collections::hash::map::HashMap<K,V,S>::insert' 'core::iter::traits::iterator::Iterator::collect'
		'std::path::Path::_join' '<<alloc::boxed::Box<str> as core::convert::From<&str>>::from as core::ops::function::FnOnce<(&str,)>>::call_once'
		'g_malloc' 'g_malloc0_n' 'g_try_malloc' 'g_realloc' 'g_try_realloc_n' 'g_slice_alloc0' 'g_new0' 'g_strdup'
		'CRYPTO_malloc' 'CRYPTO_zalloc' 'CRYPTO_secure_malloc' 'CRYPTO_realloc' 'CRYPTO_strdup'
		'sqlite3Malloc' 'sqlite3MallocZero' 'sqlite3MemMalloc' 'sqlite3DbMallocRawNN' 'sqlite3DbMallocZero'
		'sqlite3_malloc64' 'sqlite3DbStrDup'
		'operator new(unsigned long)' 'operator new[](unsigned long, std::nothrow_t const&)'
		'std::__new_allocator<int>::allocate(unsigned long, void const*)'
		'__gnu_cxx::new_allocator<char>::allocate(unsigned long, void const*)'
		'std::_Vector_base<int, std::allocator<int> >::_M_allocate(unsigned long)'
		'void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, int const&)'
		'std::vector<int, std::allocator<int> >::push_back(int const&)'
		'std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_create(unsigned long&, unsigned long)'
		'std::_Rb_tree_node<std::pair<int const, int> >* std::_Rb_tree<int, std::pair<int const, int>, std::_Select1st<std::pair<int const, int> >, std::less<int>, std::allocator<std::pair<int const, int> > >::_M_get_node()'
		'std::__detail::_Hashtable_alloc<std::allocator<std::__detail::_Hash_node<std::pair<int const, int>, false> > >::_M_allocate_buckets(unsigned long)'
		'std::shared_ptr<int> std::make_shared<int, int>(int&&)'
		'std::__1::vector<int, std::__1::allocator<int> >::__append(unsigned long)'
		'unsigned long std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_create_x()'
		'__gnu_cxx::__aligned_membuf<int>::_M_addr()'
		'je_malloc' 'je_arena_malloc_hard' '_rjem_malloc' '_rjem_je_tcache_alloc_small_hard' 'imalloc_body'
		'arena_malloc' 'tcache_alloc_small'
		'tc_malloc' 'tc_newarray' 'tcmalloc::ThreadCache::FetchFromCentralCache(unsigned int, int, void* (*)(unsigned long))'
		'(anonymous namespace)::do_malloc(unsigned long)' 'TCMallocInternalNew'
		'mi_malloc' 'mi_heap_malloc_small' '_mi_malloc_generic' 'mi_page_fresh_alloc' '_mi_os_alloc'
		'_int_malloc' 'sysmalloc' '__GI___libc_malloc' 'PyMem_Malloc' 'kmalloc_noprof'
		'xmalloc' 'xcalloc' 'xrealloc' 'xstrdup' 'xmemdupz' 'palloc' 'palloc0' 'repalloc'
		'MemoryContextAlloc' 'MemoryContextAllocZero' 'AllocSetAlloc' 'pstrdup'
		'ggc_internal_alloc(unsigned long, void (*)(void*), unsigned long, unsigned long)'
		'ggc_internal_cleared_alloc' '_obstack_newchunk')
	api_stream api.life "${api[@]}"
	run -0 mt-group --by function,line --format tsv api.life
	[ "${#lines[@]}" = $((${#api[@]} + 1)) ]
	# every row is caller_K at x.c:K with K bytes: the name K skipped
	[ -z "$(printf '%s\n' "${lines[@]:1}" | awk -F'\t' '$1 != "caller_" $4 || $2 != "x.c:" $4 || $5 != $4')" ]
	# a program's own: named, however close to the API's names
	local -a own=(
		'make_allocator' 'my_malloc_wrapper' 'arena_of' 'mi_parse' 'tc_connect' 'g_mallocator'
		'CRYPTO_THREAD_lock_new' 'sqlite3Prepare' 'je_ne_sais_quoi_x' 'mallocate'
		'rust_leak::make_allocator' 'myapp::alloc::Pool::get' 'core::Buffer::grow(unsigned long)'
		'<myapp::Foo as core::clone::Clone>::clone' '<myapp::Pool as myapp::Alloc>::alloc'
		'myns::fill<std::vector<int, std::allocator<int> > >(std::vector<int, std::allocator<int> >&)'
		'fill(std::vector<int, std::allocator<int> >&)' 'std_vector_like' 'Vec::push'
		'std::ios_base::Init::Init()' 'std::rt::lang_start_internal'
		'std::io::stdio::_print' 'unsigned long myns::build<std::map<int, int> >()'
		'std::basic_filebuf<char, std::char_traits<char> >::_M_allocate_internal_buffer()'
		'xmalloc_stats' 'pallocate' 'liba.so+0x1a2b' '0x7f0012345678' 'ggc_collect')
	api_stream own.life "${own[@]}"
	run -0 mt-group --by function --format tsv own.life
	[ "${#lines[@]}" = $((${#own[@]} + 1)) ]
	[ -z "$(printf '%s\n' "${lines[@]:1}" | grep '^caller_')" ]
	# --skip adds to the list
	run -0 mt-group --skip '^make_allocator$' --by function --format tsv own.life
	has_line "$output" '^caller_1\t1\t1\t1\t1$'
	! has_line "$output" '^make_allocator\t' || false
}

@test "an unnamed frame of the C library, the C++ runtime or an allocator is the API's; another module's is not" {
	{
		printf 'proc\t10\t1\t0\t/bin/x\tx\n'
		n=0
		for m in /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30 \
		    /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/libtcmalloc_minimal.so.4 \
		    /usr/lib/x86_64-linux-gnu/libmimalloc.so.2.0 /usr/lib/libfoo.so.1 /usr/bin/libc.so.6x; do
			n=$((n + 1))
			base=${m##*/}
			printf 'stack\t%d\t0x%x\t0x%x\n' $n $((n * 16 + 4096)) $((n * 16 + 4104))
			printf 'sym\t0x%x\t%s+0x%x\t-\t%s\n' $((n * 16 + 4096)) "$base" $((n * 256)) "$m"
			printf 'sym\t0x%x\tcaller_%d\tx.c:%d\t/bin/x\n' $((n * 16 + 4104)) $n $n
			printf 'life\t1\t-\t10\t10\tmalloc\t0x%x\t%d\t%d\taifo\t%d\n' $n $n $n $n
		done
	} >m.life
	run -0 mt-group --by function --format tsv m.life
	# The five runtimes' frames seen through to their callers.
	for k in 1 2 3 4 5; do has_line "$output" "^caller_$k\t"; done
	# Another library's unnamed frame is where its allocations come from.
	has_line "$output" '^libfoo\.so\.1\+0x600\t'
	has_line "$output" '^libc\.so\.6x\+0x700\t'
	[ "${#lines[@]}" = 8 ]
}

@test "a program's own xmalloc and xcalloc are seen through: its rows are their callers'" {
	run -0 --separate-stderr mt-record -o x.mtr -- "$PROGS/xwrap"
	run -0 --separate-stderr bash -c 'mt-symbolize x.mtr | mt-lifetime -q | mt-group --by function --format tsv'
	# xwrap.c: build_list, 100 x 48 through xmalloc and 100 pointers
	# through xcalloc; read_config, 7 x 96 through xcalloc.
	has_line "$output" '^build_list\t101\t5600\t'
	has_line "$output" '^read_config\t7\t672\t'
	[ "${#lines[@]}" = 3 ]
}

# valgrind's definitely lost records of rust-leak whose stack has $1, as
# "bytes blocks line" (the line of $1's frame in main.rs).
vg_lost() {
	valgrind --leak-check=full "$RUST_LEAK" 2>&1 | awk -v fn="$1" '
		/are definitely lost/ { gsub(",", ""); b = $2; n = $5; rec = 1; next }
		rec && /^==[0-9]+== *$/ { rec = 0 }
		rec && index($0, " " fn " (") && match($0, /main\.rs:[0-9]+\)/) {
			B += b; N += n; L = substr($0, RSTART + 8, RLENGTH - 9); rec = 0 }
		END { print B + 0, N + 0, L }'
}

@test "a Rust leak (mem::forget of a Vec): its function and src/main.rs line with no --skip, as valgrind finds it" {
	rust_leak
	mt-lifetime -q rl.sym >rl.life
	run -0 --separate-stderr mt-group --by function,line --format tsv rl.life
	# valgrind: 20 blocks, 20000 bytes, at the marked line
	read -r vb vn vl <<<"$(vg_lost rust_leak::leak_records)"
	[ "$vl" = "$(rust_line LEAK)" ]
	[ "$vn" = 20 ] && [ "$vb" = 20000 ]
	has_line "$output" "^rust_leak::leak_records\tsrc/main.rs:$vl\t$vn\t$vb\t$vb\t$((vb / vn))$"
	# the program's functions named at their lines, make_allocator too
	has_line "$output" "^rust_leak::make_allocator\tsrc/main.rs:$(rust_line ALLOCATOR)\t1\t512\t0\t512$"
	has_line "$output" "^rust_leak::count_words\tsrc/main.rs:$(rust_line MAP)\t"
	# no row of the allocation plumbing, and one form of std's paths
	! has_line "$output" '^(<+)?(alloc::|hashbrown::|__rust|__rdl|core::)' || false
	! has_line "$output" '/rustc/' || false
}

@test "the trees start at the user's function: a Rust leak bottom-up, its leaf top-down" {
	rust_leak
	mt-lifetime -q rl.sym >rl.life
	run -0 --separate-stderr mt-group --tree=bottom-up --by heap --depth 2 --format tsv rl.life
	# the malloc heap's first frames: the program's and std's runtime own
	heapid=$(printf '%s\n' "$output" | awk -F'\t' '$3 == "heap" && $4 == "malloc" { print $1 }')
	first=$(printf '%s\n' "$output" | awk -F'\t' -v h="$heapid" '$2 == h { print $4 "\t" $5 "\t" $6 }')
	has_line "$first" "^rust_leak::leak_records\t20\t20000$"
	has_line "$first" '^rust_leak::make_allocator\t'
	! has_line "$first" '^(<+)?(alloc::|hashbrown::|__rust|__rdl|core::|std::collections)' || false
	# top-down, the leak's branch ends at leak_records: its leaf
	run -0 --separate-stderr mt-group --tree --by heap --format tsv rl.life
	leaf=$(printf '%s\n' "$output" | awk -F'\t' '{ name[$1] = $4; kids[$2]++ } $4 == "rust_leak::leak_records" { id = $1 }
		END { print (id in kids) ? "has children" : name[id] }')
	[ "$leaf" = rust_leak::leak_records ]
}

@test "glib's, OpenSSL's and SQLite's APIs recorded: the program's function calling them is named, with what it leaked" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o a.mtr -- "$PROGS/api-users" >a.out 2>/dev/null
	[ -s a.out ] || skip "none of libglib-2.0.so.0, libcrypto.so.3, libsqlite3.so.0 here"
	mt-symbolize a.mtr 2>/dev/null | mt-lifetime -q >a.life
	run -0 --separate-stderr mt-group --no-suppress --by function,module --format tsv a.life
	# what the program says it leaked, a function a library
	while read -r lib n bytes; do
		if [ "$lib" = sqlite ] && has_line "$output" '^libsqlite3[^\t]*\+0x[0-9a-f]+\t[^\t]*libsqlite3[^\t]*\t'; then
			# Debian's libsqlite3 is stripped of its static functions
			# (sqlite3Malloc): unnamed, they are named by their module
			# and offset, never a bare ??.
			echo "# sqlite: libsqlite3 without symbols for sqlite3Malloc: by module" >&3
			run -1 has_line "$output" '^\?\?'
			continue
		fi
		has_line "$output" "^${lib}_user\t[^\t]*api-users\t$n\t$bytes\t$bytes\t$((bytes / n))$"
	done <a.out
	! has_line "$output" '^(g_malloc|g_malloc0|CRYPTO_malloc|sqlite3_?[Mm]alloc)\t' || false
}

# deep.life: one block of 100 bytes under main and 40 frames of Rust
# names, crate_N::alloc::raw_vec::RawVec<T,A>::grow_amortized at level N,
# each with its line.
deep_input() {
	{
		printf 'proc\t5\t1\t0\t/bin/app\tapp\n'
		printf 'sym\t0x1000\tmalloc\t-\t/lib/libc.so.6\n'
		printf 'sym\t0x1001\t_start\t-\t/bin/app\nsym\t0x1002\t__libc_start_main\t-\t/lib/libc.so.6\n'
		printf 'sym\t0x1003\tmain\t/src/app/src/main.c:3\t/bin/app\n'
		for d in $(seq 1 40); do
			printf 'sym\t0x%x\tcrate_%d::alloc::raw_vec::RawVec<T,A>::grow_amortized\t/rustc/0123abcd/library/alloc/src/raw_vec.rs:%d\t/bin/app\n' \
				$((0x2000 + d)) $d $((100 + d))
		done
		printf 'stack\t1\t0x1000'
		for d in $(seq 40 -1 1); do printf '\t0x%x' $((0x2000 + d)); done
		printf '\t0x1003\t0x1002\t0x1001\n'
		printf 'life\t1\t-\t5\t5\tmalloc\t0x10\t100\t1\taifo\t100\n'
	} >deep.life
}

@test "--tree: the columns in line at any depth, with --no-shorten too; names cut keeping their last components" {
	cd "$BATS_TEST_TMPDIR"
	deep_input
	for f in --tree --tree=bottom-up "--tree --no-shorten" "--tree --by line" "--tree --by line --no-shorten"; do
		run -0 mt-group $f deep.life
		# the header, all, app, 3 frames of start-up, 40 of Rust
		[ "${#lines[@]}" = 46 ]
		# every row as long as the header: the numbers in line
		[ "$(printf '%s\n' "$output" | awk '{ print length($0) }' | sort -u | wc -l)" = 1 ]
		has_line "$output" ' +1 +100 B +100 B +100 B$'
		[ "$(printf '%s\n' "$output" | grep -c ' 1  *100 B  *100 B  *100 B$')" = 45 ]
	done
	# past the sixteenth level the level said; every Rust frame keeps its
	# type and method, the crate said where it fits, its line in its file
	run -0 mt-group --tree deep.life
	has_line "$output" '^ {32}#17 [^ ]*::RawVec<>::grow_amortized +1 '
	[ "$(printf '%s\n' "$output" | grep -c 'RawVec<>::grow_amortized  ')" = 40 ]
	has_line "$output" '^ {10}crate_1::alloc::raw_vec::RawVec<>::grow_amortized +1 '
	has_line "$output" '^ {32}#43 \.\.\.::\S*RawVec<>::grow_amortized +1 '
	run -0 mt-group --tree --by line deep.life
	has_line "$output" '^ {32}#44 \.\.\.::grow_amortized raw_vec\.rs:140 +1 '
	[ "$(printf '%s\n' "$output" | grep -c 'grow_amortized raw_vec\.rs:1[0-9][0-9] ')" = 41 ]
	run -0 mt-group --tree --no-shorten deep.life
	has_line "$output" '^ {32}#43 crate_39::alloc::raw_vec::RawVec<T,A>::grow_amortized +1 '
}

@test "--tree --by function,line: the leak's function and its callers at their lines; --from-main from main" {
	cd "$BATS_TEST_TMPDIR"
	# the lines, by hand from the source
	src=$PROGS/memtestapp.c
	leak=$(grep -n 'sink = malloc(40)' "$src" | cut -d: -f1)
	inner=$(grep -n '^	InnerLoopOperation();' "$src" | cut -d: -f1)
	op=$(grep -n '^		Operation1();' "$src" | cut -d: -f1)
	[ -n "$leak" ] && [ -n "$inner" ] && [ -n "$op" ]
	run -0 mt-group --tree --from-main --by function,line "$BATS_FILE_TMPDIR/wpa.life"
	[[ ${lines[0]} == "line > stack "* ]]
	has_line "$output" "^  InnerLoopOperation memtestapp\\.c:$leak +250 +9\\.8 KiB +9\\.8 KiB +40 B\$"
	has_line "$output" "^    \\[start-up\\] +250 "
	has_line "$output" "^      main memtestapp\\.c:$op +250 "
	has_line "$output" "^        Operation1 memtestapp\\.c:$inner +250 "
	has_line "$output" "^          InnerLoopOperation memtestapp\\.c:$leak +250 "
	# the runtime's frames above main, never shown
	! grep -Eq '^ *(_start|__libc_start_main\w*|__libc_start_call_main) ' <<<"$output" || false
	# TSV and JSON name the file as the sym line does
	run -0 --separate-stderr mt-group --tree --from-main --by function,line --format tsv "$BATS_FILE_TMPDIR/wpa.life"
	has_line "$output" "^[0-9]+\t[0-9]+\tline\tInnerLoopOperation \\S*tests/progs/memtestapp\\.c:$leak\t250\t10000\t10000\t40\$"
	has_line "$output" "^[0-9]+\t[0-9]+\tframe\t\\[start-up\\]\t250\t"
	run -0 --separate-stderr mt-group --tree --from-main --by function,line --format json "$BATS_FILE_TMPDIR/wpa.life"
	printf '%s\n' "$output" | python3 -c 'import json, sys
t = json.load(sys.stdin)
leak = [k for k in t["children"] if k["name"].startswith("InnerLoopOperation ")][0]
assert leak["level"] == "line" and leak["per-alloc"] == 40, leak
assert leak["children"][0]["name"] == "[start-up]"'
	# folded stacks and the stack key fold it too
	run -0 --separate-stderr mt-group --from-main --format folded "$BATS_FILE_TMPDIR/wpa.life"
	has_line "$output" '^memtestapp;\[start-up\];main;Operation1;InnerLoopOperation 10000$'
	run -0 --separate-stderr mt-group --from-main --by stack --format tsv "$BATS_FILE_TMPDIR/wpa.life"
	has_line "$output" '^\[start-up\];main;Operation1;InnerLoopOperation\t250\t'
}

@test "--from-main on Rust and python3: lang_start and the interpreter one node, the program's main under it" {
	cd "$BATS_TEST_TMPDIR"
	command -v rustc >/dev/null || skip "no rustc"
	printf '%s\n' 'fn make_buffer(n: usize) -> Vec<u8> { let mut v = Vec::with_capacity(n); v.resize(n, 7); v }' \
		'fn main() { let v = make_buffer(100000); println!("{}", v.len()); std::mem::forget(v); }' >leak.rs
	rustc -g -C opt-level=0 leak.rs -o leak
	mt-record -o r.mtr -- ./leak >/dev/null 2>&1
	mt-symbolize r.mtr | mt-lifetime -q >r.life
	# without it, Rust's start-up between the process and leak::main
	run -0 mt-group --tree r.life
	has_line "$output" '^ +std::rt::lang_start_internal +'
	run -0 mt-group --tree --from-main r.life
	[[ ${lines[3]} =~ ^\ {4}\[start-up\]\ + ]]
	has_line "$output" '^ {6}leak::main +'
	has_line "$output" '^ {8}leak::make_buffer +1 +97\.7 KiB +97\.7 KiB +97\.7 KiB$'
	! grep -Eq '^ *(main|_start|std::rt::lang_start\S*|std::panicking::\S*|\S*__rust_begin_short_backtrace) ' <<<"$output" || false
	# every lifetime is under it: the program's and the runtime's own
	run -0 mt-group --tree --from-main --format tsv r.life
	[ "$(awk -F'\t' '$3 == "process" { print $5 }' <<<"$output")" = "$(awk -F'\t' '$4 == "[start-up]" { print $5 }' <<<"$output")" ]
	PYTHONMALLOC=malloc mt-record -o py.mtr -- /usr/bin/python3 -c 'x = [str(i) for i in range(20000)]' >/dev/null 2>&1
	mt-symbolize py.mtr | mt-lifetime -q >py.life
	run -0 mt-group --tree --from-main --format tsv py.life
	# the interpreter's way to the eval loop never a node
	! grep -Eq '\t(Py_BytesMain|Py_RunMain|pymain_run_python|PyEval_EvalCode|_start|__libc_start_call_main)\t' <<<"$output" || false
	has_line "$output" '\t\[start-up\]\t'
}

@test "commit-time and decommit-time: the walkthrough's ten spikes with their times, to the trace's resolution; Per Alloc" {
	cd "$BATS_TEST_TMPDIR"
	# the program's commit() maps and fills as VirtualAlloc commits: the API
	run -0 --separate-stderr mt-group --skip '^commit$' --by function,commit-time,decommit-time --format tsv "$BATS_FILE_TMPDIR/wpa.life"
	[ "${lines[0]}" = "$(printf 'function\tcommit-time\tdecommit-time\tcount\tsize\timpact\tper-alloc')" ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "ManipulateTemporaryBuffer"' | wc -l)" = 10 ]
	[ -z "$(printf '%s\n' "$output" | awk -F'\t' -v M=$MiB '$1 == "ManipulateTemporaryBuffer" && ($4 != 1 || $5 != 10 * M || $7 != 10 * M)')" ]
	# the times are the life lines' own, in seconds to 100 ns (resolution=100)
	grep -q $'^#mt-events\t1\t.*\tresolution=100' "$BATS_FILE_TMPDIR/wpa.life"
	printf '%s\n' "$output" | awk -F'\t' -v M=$MiB '$5 == 10 * M { print $2, $3 }' | sort >ours
	awk -F'\t' -v M=$MiB '$1 == "life" && $6 == "mmap" && $8 == 10 * M {
		printf "%d.%07d %d.%07d\n", $2 / 1e9, ($2 % 1e9) / 100, $3 / 1e9, ($3 % 1e9) / 100 }' \
		"$BATS_FILE_TMPDIR/wpa.life" | sort >theirs
	[ "$(wc -l <ours)" = 12 ]
	diff ours theirs
	# the table heads them as WPA does
	run -0 --separate-stderr mt-group --skip '^commit$' --by function,commit-time,decommit-time "$BATS_FILE_TMPDIR/wpa.life"
	[[ ${lines[0]} =~ ^function\ +Commit\ Time\ +Decommit\ Time\ +Count\ +Size\ +Impacting\ Size\ +Per\ Alloc$ ]]
	[ "$(printf '%s\n' "$output" | grep -cP '^ManipulateTemporaryBuffer +\d\.\d{7} +\d\.\d{7} +1 +10\.0 MiB +0 B +10\.0 MiB$')" = 10 ]
	# none: '-'; a header without a resolution: nanoseconds; 1 ms: 3 digits
	printf '%s\n' 'proc	1	0	0	/bin/a	a' 'life	1500000001	-	1	1	malloc	0x10	10	-	aifo	10' \
		'life	-	2000000000	1	1	malloc	0x20	20	-	aofi	-20' \
		'life	3	7	1	1	malloc	0x30	31	-	aifi	0' 'life	3	9	1	1	malloc	0x40	30	-	aifi	0' >t.life
	run -0 mt-group --by commit-time,decommit-time --format tsv t.life
	has_line "$output" '^1\.500000001\t-\t1\t10\t10\t10$'
	has_line "$output" '^-\t2\.000000000\t1\t0\t-20\t0$'
	has_line "$output" '^0\.000000003\t0\.000000007\t1\t31\t0\t31$'
	{ printf '#mt-events\t1\tstart=1\thost=h\tresolution=1000000\n'; cat t.life; } >ms.life
	run -0 mt-group --by commit-time,decommit-time --format tsv ms.life
	has_line "$output" '^1\.500\t-\t1\t10\t10\t10$'
	# two in the same tick: one group, Per Alloc their Size / Count
	has_line "$output" '^0\.000\t0\.000\t2\t61\t0\t30$'
	run -0 mt-group --by commit-time --format json ms.life
	has_line "$output" '"commit-time": "0\.000", "count": 2, "size": 61, "impact": 0, "per-alloc": 30'
	run -0 mt-group --by heap --tree --format tsv ms.life
	[ "${lines[0]}" = "$(printf 'id\tparent\tlevel\tname\tcount\tsize\timpact\tper-alloc')" ]
	has_line "$output" '^1\t0\theap\tmalloc\t4\t71\t-10\t17$'
}

# kernel.life: a kernel trace as mt-record --kernel writes it: pid 0,
# [kernel], its tasks named; page blocks of orders 0, 1, 9, and kmalloc.
kernel_input() {
	printf '%s\n' '#mt-events	1	start=1	host=h	resolution=100' \
		'# mt-record: kernel allocations: kmalloc page, page order >= 0, call sites' \
		'proc	0	0	0	[kernel]	[kernel]' '#task	11	kworker/0:1' '#task	12	python3' \
		'sym	0xffffffff81000010	alloc_pipe_info	-	[kernel.kallsyms]' 'stack	1	0xffffffff81000010' \
		'life	100	200	0	11	page	0x1000	4096	1	aifi	0' \
		'life	100	-	0	11	page	0x3000	4096	1	aifo	4096' \
		'life	300	-	0	12	page	0x5000	8192	1	aifo	8192' \
		'life	400	500	0	12	page	0x200000	2097152	1	aifi	0' \
		'life	600	-	0	12	kmalloc	0xffff8880	64	1	aifo	64' >kernel.life
}

@test "a kernel trace: by task by default, not [kernel] on every row; the page order as mm_page_alloc says it" {
	cd "$BATS_TEST_TMPDIR"
	kernel_input
	run -0 --separate-stderr mt-group --format tsv kernel.life
	[ "${lines[0]}" = "$(printf 'task\theap\ttype\tfunction\tcount\tsize\timpact\tper-alloc')" ]
	has_line "$output" '^python3:12\tpage\timpacting\talloc_pipe_info\t1\t8192\t8192\t8192$'
	has_line "$output" '^kworker/0:1:11\tpage\ttransient\talloc_pipe_info\t1\t4096\t0\t4096$'
	run -0 --separate-stderr mt-group --tree kernel.life
	[[ ${lines[0]} == "task > stack "* ]]
	has_line "$output" '^  python3:12 +3 '
	# asked for, the process is still there; a process's trace as before
	run -0 --separate-stderr mt-group --by process --format tsv kernel.life
	[ "${lines[1]}" = "$(printf '[kernel]\t5\t2113600\t12352\t422720')" ]
	sed 's/^proc\t0\t0\t0\t\[kernel\]\t\[kernel\]$/proc\t0\t0\t0\t\/bin\/k\tk/' kernel.life >k2.life
	run -0 --separate-stderr mt-group --format tsv k2.life
	[[ ${lines[0]} == process$'\t'* ]]
	# order: 4 KiB << order, '-' for the other heaps
	run -0 --separate-stderr mt-group --by heap,order --format tsv kernel.life
	[ "$output" = "$(printf 'heap\torder\tcount\tsize\timpact\tper-alloc\npage\t1\t1\t8192\t8192\t8192\npage\t0\t2\t8192\t4096\t4096\nkmalloc\t-\t1\t64\t64\t64\npage\t9\t1\t2097152\t0\t2097152')" ]
}

@test "a recorded kernel page trace: each order's blocks counted as the kernel's own events count them" {
	[ "$(id -u)" = 0 ] || skip "kernel tracing needs root"
	grep -qw tracefs /proc/filesystems || skip "this kernel has no tracefs"
	cd "$BATS_TEST_TMPDIR"
	mt-record --kernel --events page -d 2s -o p.mtr 2>p.err &
	rec=$!
	# Pages of order 1 and more whatever the machine's state: a pipe of
	# 1 MiB has its 256 buffers' array (10 KiB) from kmalloc_large, an
	# order-2 allocation; again and again until the recording ends.
	while kill -0 $rec 2>/dev/null; do
		python3 -c 'import os, fcntl; r, w = os.pipe(); fcntl.fcntl(w, 1031, 1 << 20)'
	done
	wait $rec
	mt-symbolize p.mtr | mt-lifetime -q >p.life
	# the allocations by order, by hand from the decoded events
	mt-decode p.mtr | awk -F'\t' '$1 == "alloc" && $5 == "page" {
		o = 0; for (s = $7 / 4096; s > 1; s /= 2) o++; n[o]++ } END { for (o in n) print o, n[o] }' | sort >theirs
	[ -s theirs ]
	run -0 --separate-stderr mt-group --by order --format tsv p.life
	# (blocks allocated before the recording: order '-', their size unknown)
	printf '%s\n' "$output" | awk -F'\t' 'NR > 1 && $1 != "-" { print $1, $2 }' | sort >ours
	diff ours theirs
	# each order's Per Alloc its block: 4 KiB << order
	[ -z "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 && $1 != "-" && $5 != 4096 * 2 ^ $1')" ]
	# the default table: by task
	run -0 --separate-stderr mt-group p.life
	[[ ${lines[0]} == task\ * ]]
}

@test "pprof: go tool pprof -top names the walkthrough's leak, InnerLoopOperation, 250 objects and 10000 bytes in use" {
	need_go
	cd "$BATS_TEST_TMPDIR"
	# the table first: the leak's figures, and what is suppressed
	run -0 --separate-stderr mt-group --by function --format tsv "$BATS_FILE_TMPDIR/wpa.life"
	has_line "$output" '^InnerLoopOperation\t250\t10000\t10000\t40$'
	note=$stderr
	run -0 --separate-stderr bash -c "mt-group --format pprof \"\$1\" >wpa.pb.gz" _ "$BATS_FILE_TMPDIR/wpa.life"
	[ "$stderr" = "$note" ]
	[ "$(head -c 2 wpa.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ]
	# inuse_space by default: the leak alone, the allocation API's frames cut
	run -0 --separate-stderr go tool pprof -top -unit=B wpa.pb.gz
	has_line "$output" '^Type: inuse_space$'
	has_line "$output" '^ +10000B +100% +100% +10000B +100% +InnerLoopOperation$'
	has_line "$output" '^ +0 +0% +100% +10000B +100% +Operation1$'
	[ "$(grep -Ec ' (malloc|__libc_malloc|operator new)' <<<"$output")" = 0 ]
	[ -z "$stderr" ]
	run -0 --separate-stderr go tool pprof -top -sample_index=inuse_objects wpa.pb.gz
	has_line "$output" '^ +250 +100% +100% +250 +100% +InnerLoopOperation$'
	# what was allocated: the spikes' commit too, as the table's Size
	run -0 --separate-stderr go tool pprof -top -unit=B -nodefraction=0 -sample_index=alloc_space wpa.pb.gz
	has_line "$output" "^ *$((120 * MiB))B .* commit\$"
	has_line "$output" '^ *10000B .* InnerLoopOperation$'
	# each sample type's total is the table's: Count, Size, and (over the
	# whole trace) Impacting Size as the bytes in use
	read -r count size impact < <(mt-group --by process --format tsv "$BATS_FILE_TMPDIR/wpa.life" 2>/dev/null |
		awk -F'\t' 'NR > 1 { c += $2; s += $3; i += $4 } END { print c, s, i }')
	[ "$(pprof_flat wpa.pb.gz -sample_index=alloc_objects)" = "$count" ]
	[ "$(pprof_flat wpa.pb.gz -sample_index=alloc_space)" = "$size" ]
	[ "$(pprof_flat wpa.pb.gz -sample_index=inuse_space)" = "$impact" ]
	[ "$(pprof_flat wpa.pb.gz -sample_index=inuse_objects)" = 250 ]
	# the trace's time and length, from its header and its times
	start=$(awk -F'\t' '/^#mt-events/ { sub(/.*start=/, ""); sub(/\t.*/, ""); print; exit }' "$BATS_FILE_TMPDIR/wpa.life")
	first=$(awk -F'\t' '$1 == "proc" { print $4; exit }' "$BATS_FILE_TMPDIR/wpa.life")
	run -0 --separate-stderr go tool pprof -raw wpa.pb.gz
	has_line "$output" "^Time: $(date -u -d "@$(((start + first) / 1000000000))" '+%Y-%m-%d %H:%M:%S')"
	has_line "$output" '^PeriodType: space bytes$'
}

@test "pprof: -raw shows each location's function at its file:line, in its mapping with its build-id" {
	need_go
	cd "$BATS_TEST_TMPDIR"
	src=$PROGS/memtestapp.c
	leak=$(grep -n 'sink = malloc(40)' "$src" | cut -d: -f1)
	inner=$(grep -n '^	InnerLoopOperation();' "$src" | cut -d: -f1)
	[ -n "$leak" ] && [ -n "$inner" ]
	mt-group --format pprof "$BATS_FILE_TMPDIR/wpa.life" >wpa.pb.gz 2>/dev/null
	run -0 --separate-stderr go tool pprof -raw wpa.pb.gz
	has_line "$output" "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ InnerLoopOperation \\S*tests/progs/memtestapp\\.c:$leak s=0\$"
	has_line "$output" "^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ Operation1 \\S*tests/progs/memtestapp\\.c:$inner s=0\$"
	build=$(awk -F'\t' '$1 == "map" && $7 ~ /memtestapp$/ { print $6; exit }' "$BATS_FILE_TMPDIR/wpa.life")
	has_line "$output" "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ \\Q$PROGS/memtestapp\\E $build \\[FN\\]"
	# the leak's address: its stack's return address less one
	ip=$(awk -F'\t' '$1 == "sym" && $3 == "InnerLoopOperation" { print $2; exit }' "$BATS_FILE_TMPDIR/wpa.life")
	has_line "$output" "^ +[0-9]+: $(printf '0x%x' $((ip - 1))) M=[0-9]+ InnerLoopOperation "
	# its traces, one a call site of Operation1, make the 10000 bytes
	run -0 --separate-stderr go tool pprof -traces -unit=B wpa.pb.gz
	[ "$(awk '$2 == "InnerLoopOperation" { sub(/B$/, "", $1); s += $1 } END { print s }' <<<"$output")" = 10000 ]
}

@test "pprof: two processes told apart by their labels; inlined frames one location; [...], [no stack]" {
	need_go
	cd "$BATS_TEST_TMPDIR"
	{
		printf '#mt-events\t1\tstart=1700000000000000000\thost=vm\tresolution=100\n'
		printf 'proc\t10\t1\t100\t/bin/alpha\talpha\n'
		printf 'map\t10\t0x1000\t0x2000\t0x0\tabcd\t/bin/alpha\n'
		printf 'proc\t20\t1\t200\t/bin/beta\tbeta\n'
		printf 'map\t20\t0x5000\t0x6000\t0x1000\t-\t/bin/beta\n'
		printf 'sym\t0x1010\tinner\ta.c:5\t/bin/alpha\n'
		printf 'sym\t0x1010\touter\ta.c:12\t/bin/alpha\n'
		printf 'sym\t0x1020\tmain\ta.c:20\t/bin/alpha\n'
		printf 'stack\t1\t0x1010\t0x1020\n'
		printf 'sym\t0x5010\tmalloc\t-\t/lib/libc.so.6\n'
		printf 'sym\t0x5020\tbeta_leak\tb.c:7\t/bin/beta\n'
		printf 'stack\t2\t0x5010\t0x5020\t...\n'
		printf 'life\t1000\t-\t10\t10\tmalloc\t0x10\t100\t1\taifo\t100\texit\n'
		printf 'life\t1100\t1200\t10\t10\tmalloc\t0x20\t50\t1\taifi\t0\n'
		printf 'life\t1300\t-\t20\t20\tmalloc\t0x30\t7\t2\taifo\t7\texit\n'
		printf 'life\t1400\t-\t20\t20\tmmap\t0x40\t4096\t-\taifo\t4096\texit\n'
		printf 'exit\t5000\t10\t0\n'
	} >two.life
	run -0 --separate-stderr bash -c "mt-group -F pprof two.life >two.pb.gz"
	[ -z "$stderr" ]
	run -0 --separate-stderr go tool pprof -raw two.pb.gz
	[ -z "$stderr" ]
	# a sample a stack, process and heap: alloc_objects alloc_space inuse_objects inuse_space
	has_line "$output" '^ +2 +150 +1 +100: ([0-9]+) ([0-9]+) $'
	has_line "$output" '^ +1 +7 +1 +7: [0-9]+ [0-9]+ $'
	has_line "$output" '^ +1 +4096 +1 +4096: [0-9]+ $'
	has_line "$output" '^ +heap:\[mmap\] process:\[beta\]$'
	has_line "$output" '^ +pid:\[20\]$'
	# inner inlined into outer at 0x1010: one location of two lines, innermost first
	has_line "$output" '^ +[0-9]+: 0x100f M=[0-9]+ inner a\.c:5 s=0$'
	printf '%s\n' "$output" | grep -A1 ' 0x100f ' | tail -1 | grep -Eq '^ +outer a\.c:12 s=0$'
	# malloc cut; the callers beta lost at the depth; a stack none
	has_line "$output" '^ +[0-9]+: 0x501f M=[0-9]+ beta_leak b\.c:7 s=0$'
	has_line "$output" '^ +[0-9]+: 0x0 \[\.\.\.\] :0 s=0$'
	has_line "$output" '^ +[0-9]+: 0x0 \[no stack\] :0 s=0$'
	[ "$(grep -c ' malloc ' <<<"$output")" = 0 ]
	has_line "$output" '^Time: 2023-11-14 22:13:20\.0000001 \+0000 UTC$'
	has_line "$output" '^Duration: 4\.9'
	# the labels tell them apart
	run -0 --separate-stderr go tool pprof -tags -unit=B two.pb.gz
	has_line "$output" '^ +4103\.0B .*: beta$'
	has_line "$output" '^ +100\.0B .*: alpha$'
	[ "$(pprof_flat two.pb.gz -tagfocus=process=alpha)" = 100 ]
	[ "$(pprof_flat two.pb.gz -tagfocus=process=beta)" = 4103 ]
	[ "$(pprof_flat two.pb.gz -tagfocus=pid=10 -sample_index=alloc_space)" = 150 ]
	[ "$(pprof_flat two.pb.gz -tagfocus=heap=mmap)" = 4096 ]
	run -0 --separate-stderr go tool pprof -top -tagfocus=process=alpha -nodefraction=0 two.pb.gz
	has_line "$output" ' inner \(inline\)$'
	[ "$(grep -c beta_leak <<<"$output")" = 0 ]
}

@test "pprof: a recorded trace of forks and execs, each pid's bytes as the table has them" {
	need_go
	cd "$BATS_TEST_TMPDIR"
	mt-record -o fork.mtr -- "$PROGS/forkexec" >/dev/null 2>&1
	mt-symbolize fork.mtr | mt-lifetime -q >fork.life
	mt-group -F pprof fork.life >fork.pb.gz 2>/dev/null
	mt-group --by pid --format tsv fork.life 2>/dev/null | tail -n +2 >pids.tsv
	[ "$(wc -l <pids.tsv)" -ge 3 ]
	while IFS=$'\t' read -r pid count size impact _; do
		[ "$(pprof_flat fork.pb.gz -tagfocus=pid="$pid" -sample_index=alloc_objects)" = "$count" ]
		[ "$(pprof_flat fork.pb.gz -tagfocus=pid="$pid" -sample_index=alloc_space)" = "$size" ]
		[ "$(pprof_flat fork.pb.gz -tagfocus=pid="$pid")" = "$impact" ]
	done <pids.tsv
}

@test "pprof: an empty input and one of no lifetimes are valid empty profiles" {
	need_go
	cd "$BATS_TEST_TMPDIR"
	run -1 --separate-stderr bash -c "mt-group --format pprof </dev/null >empty.pb.gz"
	[ "$stderr" = "mt-group: <stdin>: empty: not an mt trace or event text" ]
	printf '#mt-events\t1\tstart=1700000000000000000\thost=vm\tresolution=100\n' >header.txt
	run -0 --separate-stderr bash -c "mt-group -F pprof header.txt >header.pb.gz"
	[ -z "$stderr" ]
	for f in empty.pb.gz header.pb.gz; do
		run -0 --separate-stderr go tool pprof -top "$f"
		has_line "$output" '^Type: inuse_space$'
		has_line "$output" '^Showing nodes accounting for 0, 0% of 0 total$'
		[ -z "$stderr" ]
		run -0 --separate-stderr go tool pprof -raw "$f"
		has_line "$output" '^alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes\[dflt\]$'
	done
}

@test "pprof: values past 2^63-1 saturate and are said; refused with --tree, --diff, --histogram and to a terminal" {
	need_go
	cd "$BATS_TEST_TMPDIR"
	M=9223372036854775807
	{
		printf 'proc\t10\t1\t0\t/bin/app\tapp\nstack\t1\t0x10\nsym\t0x10\tmain\ta.c:1\t/bin/app\n'
		printf 'life\t%s\t-\t10\t10\tmalloc\t0x%s\t%s\t1\taifo\t%s\n' 1 100 $M $M 2 200 $M $M
		printf 'life\t-\t3\t10\t10\tmmap\t0x300\t%s\t-\taofi\t-%s\n' $M $M
	} >big.life
	run -1 --separate-stderr bash -c "mt-group --format pprof big.life >big.pb.gz"
	[ "$stderr" = "mt-group: alloc_space saturated at $M (more than 2^63-1: read it as at least that)
mt-group: inuse_space saturated at $M (more than 2^63-1: read it as at least that)" ]
	run -0 --separate-stderr go tool pprof -raw big.pb.gz
	has_line "$output" "^ +2 +$M +2 +$M: [0-9]+ \$"
	# the aofi lifetime counts in none: no sample of it
	[ "$(grep -c 'heap:\[mmap\]' <<<"$output")" = 0 ]
	[ -z "$stderr" ]
	run -2 --separate-stderr mt-group --tree -F pprof big.life
	[ "$stderr" = "mt-group: --tree and --format pprof: a profile is a tree already; choose one" ]
	run -2 --separate-stderr mt-group --diff old.tsv -F pprof big.life
	[ "$stderr" = "mt-group: --diff compares tables: not pprof profiles" ]
	run -2 --separate-stderr mt-group --histogram -F pprof big.life
	[ "$stderr" = "mt-group: --histogram is a table: not with --tree, folded stacks or pprof" ]
	command -v script >/dev/null || skip "no script(1) (util-linux) for a terminal"
	run -0 script -qec "mt-group -F pprof big.life; echo status \$?" /dev/null
	has_line "$output" '^mt-group: a pprof profile is binary: not written to a terminal \(> file\.pb\.gz\)'
	has_line "$output" '^status 2'
}
