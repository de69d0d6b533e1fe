#!/usr/bin/env bats
# Every parser on generated hostile input: mutations of valid inputs
# (bytes flipped, cut, doubled, fields emptied, numbers at their limits,
# very long fields, control bytes) through mt-pooldiff's log and /proc
# readers, mt-symbolize's map and sym lines, mt-window's and mt-group's
# option values and lines.  No input may crash a program, hang it, or
# make a sanitizer speak (under the ASan pass); each exits 0, 1 or 2, and
# says what is wrong as "prog: ...".

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# variants SEED N FILE...: N mutated copies of the files, as v<i>.<name>
variants() {
	python3 - "$@" <<'PY'
import os, random, sys
seed, n, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rnd = random.Random(seed)
limits = [b"0", b"-1", b"9223372036854775807", b"9223372036854775808", b"-9223372036854775808",
          b"18446744073709551615", b"0x", b"0xffffffffffffffff", b"", b"-", b"1e9", b"nan"]
def mutate(d):
    d = bytearray(d)
    for _ in range(rnd.randint(1, 6)):
        op = rnd.randrange(9)
        if not d:
            d += b"x"
        i = rnd.randrange(len(d))
        if op == 0:
            d[i] ^= 1 << rnd.randrange(8)
        elif op == 1:
            del d[i:i + rnd.randint(1, 40)]
        elif op == 2:
            d[i:i] = d[i:i + rnd.randint(1, 200)] * rnd.randint(1, 5)
        elif op == 3:
            d[i:i] = rnd.choice(limits)
        elif op == 4:
            d[i:i] = bytes([rnd.choice([0, 7, 9, 10, 13, 27, 127, 0xff, 0xc3])])
        elif op == 5:
            d[i:i] = b"A" * rnd.choice([1024, 5000, 70000])
        elif op == 6:
            d = d[:i]
        elif op == 7:
            d[i:i] = b"\t" * rnd.randint(1, 12)
        else:
            d[i:i] = b"\r\n"
    return bytes(d)
for f in files:
    src = open(f, "rb").read()
    for i in range(n):
        open("v%d.%s" % (i, os.path.basename(f)), "wb").write(mutate(src))
PY
}

# survives PROG ARGS...: ran on one input, it exits 0, 1 or 2 within 60 s,
# no sanitizer spoke, and every line on stderr is its own.
survives() {
	local p=$1
	run --separate-stderr timeout 60 "$@"
	if [ "$status" -gt 2 ] || grep -q 'Sanitizer\|runtime error' <<<"$stderr" ||
		{ [ -n "$stderr" ] && grep -qv "^$(basename "$p"): " <<<"$stderr"; }; then
		echo "$* -> exit $status"
		printf '%s\n' "$stderr" | head -5
		return 1
	fi
}

@test "mt-pooldiff: mutated logs, slabinfo, vmallocinfo, allocinfo and smaps" {
	root=$TESTS/fixtures/mt-pooldiff/root/proc
	mt-pooldiff --snapshot --proc "$root" --time @1795305600 >a.log
	mt-pooldiff --snapshot --proc "$root" --time @1795305900 >>a.log
	cp "$root"/slabinfo "$root"/vmallocinfo "$root"/allocinfo .
	cp "$root"/4242/smaps .
	variants 1 40 a.log slabinfo vmallocinfo allocinfo smaps
	for v in $(seq 0 39); do
		survives mt-pooldiff "v$v.a.log"
		survives mt-pooldiff --growth 1/1 "v$v.a.log"
		mkdir -p "p$v/proc/4242" "p$v/sys"
		cp "$root"/meminfo "p$v/proc/"
		cp "v$v.slabinfo" "p$v/proc/slabinfo"
		cp "v$v.vmallocinfo" "p$v/proc/vmallocinfo"
		cp "v$v.allocinfo" "p$v/proc/allocinfo"
		cp "v$v.smaps" "p$v/proc/4242/smaps"
		survives mt-pooldiff --snapshot --proc "p$v/proc" -s bytes slab vmalloc allocinfo pid:4242
	done
}

@test "mt-symbolize, mt-lifetime, mt-window, mt-group, mt-pooldiff: mutated event text" {
	mt-record -o d.mtr -- "$PROGS/demo" >/dev/null 2>&1
	mt-decode d.mtr >d.txt
	mt-symbolize d.txt >s.txt
	mt-lifetime -q s.txt >l.txt
	variants 2 40 d.txt s.txt l.txt
	for v in $(seq 0 39); do
		survives mt-symbolize "v$v.d.txt"
		survives mt-lifetime "v$v.s.txt"
		survives mt-window "v$v.l.txt"
		survives mt-window --series 1ms "v$v.l.txt"
		survives mt-group --by process,heap,type,function,file,module,stack,free-stack,task "v$v.l.txt"
		survives mt-group --tree "v$v.l.txt"
		survives mt-group --format json "v$v.l.txt"
		survives mt-group --format folded --weight impact "v$v.l.txt"
		survives mt-group --format pprof --from-main "v$v.l.txt"
		survives mt-pooldiff --interval 1ms "v$v.l.txt"
	done
}

@test "mt-group --format pprof on mutated event text: what it writes go tool pprof reads" {
	need_go
	mt-record -o d.mtr -- "$PROGS/demo" >/dev/null 2>&1
	mt-symbolize d.mtr | mt-lifetime -q >l.txt
	variants 3 40 l.txt
	for v in $(seq 0 39); do
		mt-group --format pprof "v$v.l.txt" >"v$v.pb.gz" 2>/dev/null || [ $? = 1 ]
		go tool pprof -raw "v$v.pb.gz" >/dev/null 2>"v$v.err" ||
			{ echo "v$v.l.txt: go tool pprof: $(head -3 "v$v.err")"; return 1; }
	done
}

@test "option values at their limits" {
	mt-record -o d.mtr -- "$PROGS/demo" >/dev/null 2>&1
	mt-lifetime -q d.mtr >l.txt
	for v in 0 -1 1ns 1.5s 18446744073709551615ns 9223372036854775807s 1e308s nan inf \
		99999999999999999999h '' ' ' 1x s 0x10ms 1ms1 $'1\n' "$(printf 'x%.0s' $(seq 5000))"; do
		survives mt-window --from "$v" l.txt
		survives mt-window --to "$v" l.txt
		survives mt-window --last "$v" l.txt
		survives mt-window --series "$v" l.txt
		survives mt-pooldiff --interval "$v" l.txt
		survives mt-group --top "$v" l.txt
		survives mt-group --by "$v" l.txt
		survives mt-window --pid "$v" l.txt
		survives mt-pooldiff --time "$v" --snapshot --proc "$TESTS/fixtures/mt-pooldiff/root/proc" slab
	done
}

# many_stacks N: N lifetimes, each with its own stack of 8 frames drawn
# from 5,000 functions, a third of them never freed.
many_stacks() {
	awk -v n="$1" 'BEGIN {
		srand(7)
		print "#mt-events\t1\tstart=0\thost=h"
		print "proc\t100\t1\t0\t/usr/bin/app\tapp"
		for (i = 0; i < 5000; i++)
			printf "sym\t0x%x\tfunc_%d\tsrc%d.c:%d\t/usr/bin/app\n", 4194304 + i * 16, i, i % 50, i
		for (s = 1; s <= n; s++) {
			printf "stack\t%d", s
			for (f = 0; f < 8; f++)
				printf "\t0x%x", 4194304 + int(rand() * 5000) * 16
			printf "\n"
			if (s % 3 == 0)
				printf "life\t%d\t-\t100\t100\tmalloc\t0x%x\t%d\t%d\taifo\t%d\n", s * 10, 65536 + s * 32, 16 + s % 100, s, 16 + s % 100
			else
				printf "life\t%d\t%d\t100\t100\tmalloc\t0x%x\t%d\t%d\taifi\t0\n", s * 10, s * 10 + 5, 65536 + s * 32, 16 + s % 100, s
		}
	}'
}

# bounded KB-PER-MB CMD...: CMD's peak RSS is within KB-PER-MB kilobytes
# for each megabyte of its input, m.life, and 16 MB (the rusage of a
# child counts what python3 had before the exec), and it exits 0.
bounded() {
	local per=$1 mb
	shift
	mb=$(( $(stat -c %s m.life) / 1048576 ))
	# (a sanitizer's build: its quarantine of freed blocks not counted)
	ASAN_OPTIONS=$ASAN_OPTIONS:quarantine_size_mb=1 \
		run -0 --separate-stderr peak_rss rss "$@" m.life
	echo "$* : $(tail -n 1 rss) KB for $mb MB" >&3
	[ "$(tail -n 1 rss)" -lt "$(rss_bound $((per * mb + 16000)))" ]
}

@test "100,000 distinct stacks: each filter's memory a small multiple of its input" {
	many_stacks 100000 >m.life
	# A stack is its frames' pointers once resolved (8 bytes a frame).
	bounded 1536 mt-group --by function
	bounded 1536 mt-group --by module,file
	bounded 1536 mt-pooldiff --interval 1ms --tag function
	# A group a stack: its key is the stack's folded frames.
	bounded 3072 mt-group --by stack
	bounded 3072 mt-group --format folded
	# The tree: a group a stack, drawn from them sorted, not a node a frame.
	bounded 3072 mt-group --tree
	bounded 3072 mt-group --tree=bottom-up --format json
	# pprof: a stack's addresses kept too, its locations, and its sample.
	bounded 4608 mt-group --format pprof
	# Stacks kept only to match their frames, and only until then.
	bounded 256 mt-window --from 1ms --to 5ms
	bounded 640 mt-window --match 'func_12$'
	bounded 256 mt-lifetime
	bounded 256 mt-symbolize
	# The frames matched are those of the stack the lifetime names.
	run -0 mt-window --match 'func_12$' m.life
	[ "$(printf '%s\n' "$output" | grep -c '^life')" = \
	  "$(awk -F'\t' '$1 == "stack" { for (i = 3; i <= NF; i++) if ($i == "0x4000c0") m[$2] = 1 }
	                 $1 == "life" && ($9 in m) { n++ } END { print n + 0 }' m.life)" ]
}

@test "a stack id defined again (traces joined) groups by its new frames from then on" {
	printf '%s\n' 'proc	1	0	0	/bin/a	a' 'sym	0x10	first	f.c:1	/bin/a' \
		'sym	0x20	second	s.c:2	/bin/a' 'stack	1	0x10' \
		'life	1	2	1	1	malloc	0x100	10	1	aifi	0' 'stack	1	0x20' \
		'life	3	4	1	1	malloc	0x100	20	1	aifi	0' | tr -s ' ' '\t' >j.life
	run -0 mt-group --by function --format tsv j.life
	has_line "$output" '^first\t1\t10\t'
	has_line "$output" '^second\t1\t20\t'
	run -0 mt-pooldiff --interval 1ns --tag function j.life
	has_line "$output" 'second'
}

@test "a life line's class is one of aifi, aifo, aofi, aofo: another is said, the rest counted" {
	printf '%s\n' 'life	1	2	1	1	malloc	0x100	10	-	ai	0' \
		'life	1	-	1	1	malloc	0x200	20	-	aifo	20' >c.life
	run -1 --separate-stderr mt-group --by heap --format tsv c.life
	has_line "$stderr" "^mt-group: c.life:1: bad class 'ai'"
	has_line "$output" '^malloc\t1\t20\t20\t20$'
}

@test "a 10,000-frame stack and a 1 MB function name through every filter" {
	awk 'BEGIN {
		print "proc\t7\t1\t0\t/bin/deep\tdeep"
		for (i = 0; i < 10000; i++)
			printf "sym\t0x%x\tf%d\td.c:%d\t/bin/deep\n", 4096 + i * 16, i, i
		printf "sym\t0x%x\t", 1048576
		for (i = 0; i < 1048576; i++)
			printf "n"
		printf "\tbig.c:1\t/bin/deep\n"
		printf "stack\t1"
		for (i = 0; i < 10000; i++)
			printf "\t0x%x", 4096 + i * 16
		printf "\nstack\t2\t0x100000\t0x1000\n"
		print "life\t1\t-\t7\t7\tmalloc\t0x10\t100\t1\taifo\t100"
		print "life\t2\t-\t7\t7\tmalloc\t0x20\t50\t2\taifo\t50"
	}' >deep.life
	run -0 mt-group --tree deep.life
	# the header, all, the process, 10,000 frames for one, 2 for the other
	[ "$(printf '%s\n' "$output" | wc -l)" = $((1 + 1 + 1 + 10000 + 2)) ]
	# past the sixteenth level the indentation stops and the level is said
	has_line "$output" '^ {32}#10001 f0 +1 +100 B +100 B +100 B$'
	run -0 mt-group --tree=bottom-up --format json deep.life
	printf '%s\n' "$output" | python3 -c 'import json, sys; sys.setrecursionlimit(100000); json.load(sys.stdin)'
	run -0 mt-group --tree --depth 5 --format tsv deep.life
	[ "$(printf '%s\n' "$output" | wc -l)" = $((1 + 1 + 1 + 5 + 2)) ]
	has_line "$output" '^6\t5\tframe\tf9995\t1\t100\t100\t100$'
	for f in "--by stack" "--format folded" "--by function --format json"; do
		run -0 mt-group $f deep.life
	done
	run -0 mt-window --match '^n+$' deep.life
	[ "$(printf '%s\n' "$output" | grep -c '^life')" = 1 ]
	run -0 mt-pooldiff --interval 1ns --tag stack deep.life
	run -0 mt-symbolize deep.life
}

@test "/dev/zero, on stdin or named: every reader says bad magic once, naming it, and ends" {
	mkdir spool
	for p in mt-decode mt-symbolize mt-lifetime mt-window mt-group mt-pooldiff; do
		for in in '<stdin>' /dev/zero; do
			if [ "$in" = '<stdin>' ]; then
				run --separate-stderr env TMPDIR="$PWD/spool" timeout 10 "$p" </dev/zero
			else
				run --separate-stderr timeout 10 "$p" /dev/zero
			fi
			[ "$status" = 1 ] || [ "$p$status" = mt-pooldiff2 ]
			[ "${stderr_lines[0]}" = "$p: $in: not an mt trace or event text (bad magic)" ]
			[ "$(grep -c 'bad magic' <<<"$stderr")" = 1 ]
		done
	done
	[ -z "$(ls -A spool)" ]
}

@test "a header whose start or resolution is no number: said with file:line, skipped, the rest read, exit 1" {
	printf '#mt-events\t1\tstart=12x\thost=h\nlife\t1\t5\t10\t10\tmalloc\t0x10\t8\t-\taifi\t0\n#mt-events\t1\tresolution=0\n#mt-events\t1\tresolution=1000000001\n#mt-events\t1\tstart=18446744073709551616\n#mt-events\t1\tstart=\n#mt-events\t1\tstart=18446744073709551615\thost=\tresolution=1000000000\tother=x\n' >h.txt
	for p in mt-decode mt-symbolize mt-lifetime mt-window mt-group; do
		run -1 --separate-stderr "$p" h.txt
		[ "$(printf '%s\n' "${stderr_lines[@]:0:5}")" = "$p: h.txt:1: bad start '12x'
$p: h.txt:3: bad resolution '0'
$p: h.txt:4: bad resolution '1000000001'
$p: h.txt:5: bad start '18446744073709551616'
$p: h.txt:6: bad start ''" ]
	done
	run -1 --separate-stderr mt-decode h.txt
	[ "$output" = "$(sed -n '2p;7p' h.txt)" ]
}

@test "text that is not the format: another version, a name that is no word, a free before its allocation, a line cut short -- said with file:line, the rest read, exit 1" {
	printf '#mt-events\t2\tstart=0\thost=h\nalloc\t1\t10\t10\tmalloc\t0x10\t8\t-\nroot:x:0:0:root:/root:/bin/bash\nnewer_record-2\tpasses\nfree\t5\t10\t10\tmalloc\t0x10\t-\nexit\t9\t10\t0' >ev.txt
	good=$(printf 'alloc\t1\t10\t10\tmalloc\t0x10\t8\t-\nnewer_record-2\tpasses\nfree\t5\t10\t10\tmalloc\t0x10\t-')
	for p in mt-decode mt-symbolize mt-lifetime; do
		run -1 --separate-stderr "$p" ev.txt
		[ "$(printf '%s\n' "${stderr_lines[@]:0:3}")" = "$p: ev.txt:1: unknown version '2'
$p: ev.txt:3: bad record 'root:x:0:0:root:/root:/bin/bash'
$p: ev.txt:6: line cut short 'exit?9?10?0'" ]
	done
	run -1 --separate-stderr mt-decode ev.txt
	[ "$output" = "$good" ]
	run -1 --separate-stderr mt-symbolize ev.txt
	[ "$output" = "$good" ]
	run -1 --separate-stderr mt-lifetime -q ev.txt
	[ "$output" = "$(printf 'newer_record-2\tpasses\nlife\t1\t5\t10\t10\tmalloc\t0x10\t8\t-\taifi\t0\t-\t-\ttemporary')" ]
	printf '#mt-events\tbanana\nlife\t1\t5\t10\t10\tmalloc\t0x10\t8\t-\taifi\t0\n/etc/passwd\nlife\t9\t3\t10\t10\tmalloc\t0x20\t8\t-\taifi\t0\nlife\t1\t6\t10\t10\tmalloc\t0x30\t8\t-\taifi\t0' >l.txt
	said() {
		printf '%s\n' "$1: $2:1: unknown version 'banana'" "$1: $2:3: bad record '/etc/passwd'" \
			"$1: $2:4: free before its allocation '3'" \
			"$1: $2:5: line cut short 'life?1?6?10?10?malloc?0x30?8?-?aifi?0'"
	}
	for p in mt-window mt-group; do
		run -1 --separate-stderr "$p" l.txt
		[ "$stderr" = "$(said "$p" l.txt)" ]
		run -1 --separate-stderr "$p" <l.txt
		[ "$stderr" = "$(said "$p" '<stdin>')" ]
	done
	# freed at 5, inside the whole-trace window [0, 6): as without a window
	run -1 --separate-stderr mt-window l.txt
	[ "$output" = "$(printf 'window\t0\t6\nlife\t1\t5\t10\t10\tmalloc\t0x10\t8\t-\taifi\t0')" ]
	run -1 --separate-stderr mt-group --format tsv --by heap l.txt
	[ "$output" = "$(printf 'heap\tcount\tsize\timpact\tper-alloc\nmalloc\t1\t8\t0\t8')" ]
}
