#!/usr/bin/env bats
# mt-lifetime: allocations paired with their frees, against valgrind's
# leak check and the test programs' own doing.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "leaks at exit: the blocks and bytes valgrind --leak-check calls definitely lost" {
	read -r vb vn <<<"$(valgrind --leak-check=full "$PROGS/demo" 2>&1 |
		awk '/definitely lost:/ { gsub(",", ""); print $4, $7 }')"
	mt-record -o d.mtr -- "$PROGS/demo" 2>/dev/null
	run -0 --separate-stderr mt-lifetime d.mtr
	read -r mb mn <<<"$(printf '%s\n' "$output" | awk -F'\t' '$1 == "life" && $12 == "exit" { b += $8; n++ } END { print b + 0, n + 0 }')"
	[ "$mb $mn" = "$vb $vn" ]
	[ "$stderr" = "mt-lifetime: 9 lifetimes; 3 survivors leaked at exit, 0 alive at the end; 0 frees of blocks allocated before recording; 0 double frees" ]
}

@test "every other line passes through in order; each alloc becomes exactly one life" {
	mt-record -o t.mtr -- "$PROGS/threads" >/dev/null 2>&1
	mt-decode t.mtr >t.txt
	mt-lifetime -q t.txt >l.txt
	diff <(grep -v '^alloc\|^free' t.txt) <(grep -v '^life' l.txt)
	[ "$(grep -c '^alloc' t.txt)" = "$(awk -F'\t' '$1 == "life" && $2 != "-"' l.txt | wc -l)" ]
	# a block freed by another thread is still one lifetime, freed after made
	awk -F'\t' '$1 == "life" && $3 != "-" && $3 + 0 < $2 + 0 { exit 1 }' l.txt
}

@test "mappings: a partial munmap ends only its piece, the rest lives on" {
	mt-record -o m.mtr -- "$PROGS/mmap" >/dev/null 2>&1
	run -0 bash -c "mt-lifetime -q m.mtr | awk -F'\t' '\$1 == \"life\" && \$6 != \"malloc\" { print \$6, \$8 }'"
	[ "$output" = "mmap 8192
reserve 16384
reserve 8192
mmap 16384
mmap 8192
mmap 16384
mmap 16384
reserve 16384
reserve 16384
mmap 8192
reserve 24576
mmap 262144" ]
}

@test "a free of a block allocated before recording: shown with unknown size; a double free: warned" {
	printf 'proc\t1\t0\t0\t/bin/x\tx\nfree\t5\t1\t1\tmalloc\t0x100\t-\nalloc\t6\t1\t1\tmalloc\t0x200\t8\t-\nfree\t7\t1\t1\tmalloc\t0x200\t-\nfree\t8\t1\t2\tmalloc\t0x200\t-\n' >in.txt
	run -1 --separate-stderr mt-lifetime in.txt
	[ "${lines[1]}" = "$(printf 'life\t-\t5\t1\t1\tmalloc\t0x100\t-\t-\taofi\t0')" ]
	# freed before its thread allocated again: temporary
	[ "${lines[2]}" = "$(printf 'life\t6\t7\t1\t1\tmalloc\t0x200\t8\t-\taifi\t0\t-\t-\ttemporary')" ]
	[ "${#lines[@]}" = 3 ]
	[ "${stderr_lines[0]}" = "mt-lifetime: in.txt:5: double free '0x200 allocated at 6, freed at 7 and at 8'" ]
	[ "${stderr_lines[1]}" = "mt-lifetime: 2 lifetimes; 0 survivors leaked at exit, 0 alive at the end; 1 frees of blocks allocated before recording; 1 double frees" ]
}

@test "a free timed before its allocation: said, the block ends as it began, no lifetime of negative length" {
	printf 'proc\t10\t1\t0\t/bin/x\tx\nalloc\t100\t10\t10\tmalloc\t0x10\t8\t-\nfree\t50\t10\t10\tmalloc\t0x10\t-\nalloc\t200\t10\t10\tmmap\t0x1000\t8192\t-\nfree\t150\t10\t10\tmmap\t0x1000\t-\nalloc\t250\t10\t10\tmalloc\t0x20\t8\t-\nalloc\t240\t10\t10\tmalloc\t0x20\t8\t-\nexit\t300\t10\t0\n' >back.txt
	run -1 --separate-stderr mt-lifetime -q back.txt
	[ "$stderr" = "mt-lifetime: back.txt:3: free before its allocation '0x10 allocated at 100, freed at 50'
mt-lifetime: back.txt:5: free before its allocation '0x1000 allocated at 200, freed at 150'
mt-lifetime: back.txt:7: allocation of a live block '0x20 allocated at 250 and at 240'" ]
	# freed when it began; the block allocated again ends at its first
	# allocation too; nothing is left to be taken for a leak but 0x20's second
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "life" { print $2, $3, $6, $7 ($12 == "exit" ? " exit" : "") }')" = "100 100 malloc 0x10
200 200 mmap 0x1000
250 250 malloc 0x20
240 300 malloc 0x20 exit" ]
}

@test "survivors of a process still running when recording stopped are alive at the end" {
	printf 'proc\t1\t0\t0\t/bin/x\tx\nalloc\t6\t1\t1\tmalloc\t0x200\t8\t3\n' >in.txt
	run -0 --separate-stderr mt-lifetime in.txt
	[ "${lines[1]}" = "$(printf 'life\t6\t-\t1\t1\tmalloc\t0x200\t8\t3\taifo\t8\tend')" ]
}

# valgrind's "in use at exit: B bytes in N blocks" as "N B" (no freeres:
# a program traced normally does not run it either).
in_use_at_exit() {
	valgrind --run-libc-freeres=no --run-cxx-freeres=no "$@" 2>&1 >/dev/null |
		awk '/in use at exit:/ { gsub(",", ""); print $9, $6 }'
}

survivors_at_exit() {
	mt-lifetime -q "$1" | awk -F'\t' '$1 == "life" && $12 == "exit" && $6 == "malloc" { n++; b += $8 }
		END { print n + 0, b + 0 }'
}

@test "what is left at exit: valgrind's in use at exit, blocks and bytes (the walkthrough)" {
	mt-record -o w.mtr -- "$PROGS/memtestapp" >/dev/null 2>&1
	[ "$(survivors_at_exit w.mtr)" = "$(in_use_at_exit "$PROGS/memtestapp")" ]
}

@test "what is left at exit: valgrind's in use at exit, blocks and bytes (sort, a real program)" {
	seq 1 50000 | awk '{ print ($1 * 7919) % 50021 }' >in.txt
	setarch -R mt-record -o s.mtr -- sort in.txt -o /dev/null 2>/dev/null
	[ "$(survivors_at_exit s.mtr)" = "$(in_use_at_exit sort in.txt -o /dev/null)" ]
}

@test "--binary: a .mtr stream that decodes to the very text, under a fifth of its size" {
	mt-record -o t.mtr -- "$PROGS/memtestapp" >/dev/null 2>&1
	mt-symbolize t.mtr >t.txt
	mt-lifetime -q t.txt >l.txt
	run -0 --separate-stderr bash -c "mt-lifetime -bq t.txt >l.mtr"
	head -c 8 l.mtr | cmp -s - <(printf '\211MTR\r\n\032\n')
	mt-decode l.mtr | cmp - l.txt
	[ "$(stat -c %s l.mtr)" -lt "$(($(stat -c %s l.txt) / 5))" ]
	# Survivors, unknown sizes and impacts of a window survive the trip too.
	mt-window --from 100ms --to 300ms l.txt >w.txt
	mt-window -b --from 100ms --to 300ms l.mtr | mt-decode | cmp - w.txt
	mt-window -b --series 10ms l.mtr | mt-decode | cmp - <(mt-window --series 10ms l.txt)
	# And the table is the same, binary between the filters or not.
	cmp <(mt-lifetime -b t.mtr | mt-window -b | mt-group) <(mt-lifetime t.mtr | mt-window | mt-group)
}

@test "--binary cut short: the next filter says where, keeps what came before" {
	mt-record -o t.mtr -- "$PROGS/demo" >/dev/null 2>&1
	mt-lifetime -bq t.mtr >l.mtr
	head -c $(($(stat -c %s l.mtr) - 5)) l.mtr >cut.mtr
	run -1 --separate-stderr mt-window cut.mtr
	[[ $stderr == "mt-window: cut.mtr: "* ]]
}

@test "--binary: a heap named too long for the binary form keeps its lifetime as a text line" {
	h=$(head -c 40000 /dev/zero | tr '\0' h)
	printf 'proc\t0\t100\t1\tapp\tapp\nalloc\t10\t100\t100\t%s\t0x1000\t32\t-\nalloc\t11\t100\t100\tmalloc\t0x2000\t16\t-\nfree\t20\t100\t100\t%s\t0x1000\t-\n' \
		"$h" "$h" >long.txt
	mt-lifetime -q long.txt >l.txt
	[ "$(grep -c '^life' l.txt)" -eq 2 ]
	grep -q "^life	10	20	100	100	$h	0x1000	32	-	aifi	0\$" l.txt
	mt-lifetime -bq long.txt | mt-decode | cmp - l.txt
}

@test "pairing agrees with python's own on a random trace that grows the table many times" {
	# Two processes, two heaps, dense runs of addresses and far ones, so
	# that blocks crowd together and wrap round the table's end as it
	# doubles; python pairs them with a dict, independently.
	python3 - <<'PY'
import random
random.seed(11)
live, t = {}, 1
with open('r.txt', 'w') as out, open('expect', 'w') as exp:
    out.write('proc\t100\t1\t0\t/bin/a\ta\nproc\t200\t1\t0\t/bin/b\tb\n')
    for n in range(300000):
        t += 1
        pid = random.choice((100, 200))
        heap = random.choice(('malloc', 'malloc', 'cache:x'))
        if live and random.random() < 0.45:
            k = next(iter(live)) if random.random() < 0.99 else random.choice(list(live))
            ta, size = live.pop(k)
            out.write('free\t%d\t%d\t%d\t%s\t0x%x\t-\n' % (t, k[0], k[0], k[1], k[2]))
            exp.write('%d\t%d\t%d\t%s\t0x%x\t%d\n' % (ta, t, k[0], k[1], k[2], size))
        else:
            a = (0x10000 + 16 * random.randrange(1 << 18) if random.random() < 0.7
                 else random.randrange(1 << 20, 1 << 44) & ~15)
            if (pid, heap, a) in live:
                continue
            size = random.randrange(1, 500)
            live[(pid, heap, a)] = (t, size)
            out.write('alloc\t%d\t%d\t%d\t%s\t0x%x\t%d\t-\n' % (t, pid, pid, heap, a, size))
    for k, (ta, size) in live.items():
        exp.write('%d\t-\t%d\t%s\t0x%x\t%d\n' % (ta, k[0], k[1], k[2], size))
PY
	mt-lifetime -q r.txt | awk -F'\t' '$1 == "life" { print $2 "\t" $3 "\t" $4 "\t" $6 "\t" $7 "\t" $8 }' | sort >got
	sort expect | cmp - got
	[ "$(wc -l <got)" -gt 150000 ]
	"$PROGS/mtr-encode" r.txt >r.mtr
	mt-lifetime -q r.mtr | awk -F'\t' '$1 == "life" { print $2 "\t" $3 "\t" $4 "\t" $6 "\t" $7 "\t" $8 }' | sort | cmp - got
}

@test "output written by its own thread: every record in order through full batches and a crowded arena" {
	# 30000 lifetimes between long sym and stack records: batches fill on
	# lifetimes and on the records' bytes, round the whole ring of them.
	awk 'BEGIN {
		f = sprintf("%0300d", 0); gsub("0", "f", f)
		print "proc\t100\t1\t0\t/bin/app\tapp"
		for (i = 1; i <= 30000; i++) {
			printf "stack\t%d\t0x%x\t0x%x\t0x%x\n", i, i * 16, i * 32, i * 48
			printf "sym\t0x%x\t%s%d\tf.c:%d\tapp\n", i * 16, f, i, i
			printf "alloc\t%d\t100\t100\tmalloc\t0x%x\t%d\t%d\n", i * 10, 4096 + i * 16, i, i
			printf "free\t%d\t100\t100\tmalloc\t0x%x\t-\n", i * 10 + 5, 4096 + i * 16
		}
		print "exit\t400000\t100\t0"
	}' >big.txt
	# A reader that is slow to start: the thread waits on the full pipe,
	# and the ring of batches fills behind it.
	mt-lifetime -q big.txt | { sleep 1; cat; } >l.txt
	diff <(grep -v '^alloc\|^free' big.txt) <(grep -v '^life' l.txt)
	[ "$(awk -F'\t' '$1 == "life" && $3 == $2 + 5 && $8 == $9 && $10 == "aifi"' l.txt | wc -l)" -eq 30000 ]
	mt-lifetime -bq big.txt | { sleep 1; mt-decode; } | cmp - l.txt
	# A trace as input: the records passed on are the reader's own copies.
	mt-lifetime -bq big.txt >l.mtr
	mt-lifetime -q l.mtr | cmp - l.txt
	mt-lifetime -bq l.mtr | mt-decode | cmp - l.txt
}

@test "many short processes beside a large one: each exit ends its own blocks only, an exec its old image" {
	awk 'BEGIN {
		t = 1
		print "proc\t100\t1\t0\t/bin/make\tmake"
		for (i = 0; i < 50000; i++)
			printf "alloc\t%d\t100\t100\tmalloc\t0x%x\t32\t-\n", t++, 65536 + i * 48
		for (p = 1000; p < 1300; p++) {
			printf "proc\t%d\t100\t%d\t/bin/cc\tcc\n", p, t
			# the same addresses in every process, and as the large one has
			for (k = 0; k < 5; k++)
				printf "alloc\t%d\t%d\t%d\tmalloc\t0x%x\t%d\t-\n", t++, p, p, 65536 + k * 48, p
			printf "free\t%d\t%d\t%d\tmalloc\t0x%x\t-\n", t++, p, p, 65536
			if (p % 100 == 0) {	# exec: the old image ends, the new one allocates
				printf "proc\t%d\t100\t%d\t/bin/as\tas\n", p, t
				printf "alloc\t%d\t%d\t%d\tmalloc\t0x%x\t7\t-\n", t++, p, p, 65536
			}
			printf "exit\t%d\t%d\t0\n", t++, p
		}
		# the large one frees one of its blocks at the end
		printf "free\t%d\t100\t100\tmalloc\t0x%x\t-\n", t++, 65536
	}' >many.txt
	run -0 --separate-stderr mt-lifetime many.txt
	[ "$stderr" = "mt-lifetime: 51503 lifetimes; 1203 survivors leaked at exit, 49999 alive at the end; 0 frees of blocks allocated before recording; 0 double frees" ]
	printf '%s\n' "$output" >l.txt
	# Every short process: its four blocks left at exit, of its own size;
	# after an exec, four at the exec and the new image's one at exit.
	[ "$(awk -F'\t' '$1 == "life" && $12 == "exit" && $4 != 100 { n[$4]++; if ($8 != $4 && $8 != 7) bad++ }
		END { for (p in n) c[n[p]]++; print c[4] + 0, c[5] + 0, bad + 0 }' l.txt)" = "297 3 0" ]
	# The large one: all but the block it freed, alive at the end, none lost
	# to the short ones' blocks at the same addresses.
	[ "$(awk -F'\t' '$1 == "life" && $4 == 100 && $12 == "end"' l.txt | wc -l)" -eq 49999 ]
	[ "$(awk -F'\t' '$1 == "life" && $4 == 100 && $3 != "-" && $8 == 32' l.txt | wc -l)" -eq 1 ]
	# A process's survivors come together, just after its exit record or
	# just before the proc record of its exec.
	awk -F'\t' '{ type[NR] = $1; fate[NR] = $12
		pid[NR] = $1 == "exit" ? $3 : $1 == "proc" ? $2 : $4 }
		END { for (i = 1; i <= NR; i++) {
			if (type[i] != "life" || fate[i] != "exit" || pid[i] == 100)
				continue
			for (j = i; type[j] == "life" && fate[j] == "exit" && pid[j] == pid[i]; j--) ;
			for (k = i; type[k] == "life" && fate[k] == "exit" && pid[k] == pid[i]; k++) ;
			if (!(type[j] == "exit" && pid[j] == pid[i]) && !(type[k] == "proc" && pid[k] == pid[i]))
				bad++
		}
		exit bad > 0 }' l.txt
}

@test "mappings agree with python's own pieces on a random trace of overlapping maps, partial unmaps and exits" {
	# Three processes, mmap and reserve, mappings made over others; every
	# unmap cuts what it meets of its process's heap and leaves the rest.
	python3 - <<'PY'
import random
random.seed(7)
live, t, out, exp = {}, 1, [], []
def end(pid, fate, t):
    # what the process never unmapped ends with it, at its exit
    for (p, h), pieces in live.items():
        if p == pid:
            for lo, hi, ta in pieces:
                exp.append('%d\t%s\t%d\t%s\t0x%x\t%d\t%s' % (ta, t, p, h, lo, hi - lo, fate))
            pieces.clear()
for p in (100, 200, 300):
    out.append('proc\t%d\t1\t0\t/bin/x\tx' % p)
for n in range(40000):
    t += 1
    pid, heap = random.choice((100, 200, 300)), random.choice(('mmap', 'reserve'))
    pieces = live.setdefault((pid, heap), [])
    lo = random.randrange(0, 2000) * 4096
    hi = lo + random.randrange(1, 16) * 4096
    if random.random() < 0.5:
        out.append('alloc\t%d\t%d\t%d\t%s\t0x%x\t%d\t-' % (t, pid, pid, heap, lo, hi - lo))
        pieces.append((lo, hi, t))
    else:
        out.append('free\t%d\t%d\t%d\t%s\t0x%x\t-\t%d' % (t, pid, pid, heap, lo, hi - lo))
        keep, met = [], False
        for a, z, ta in pieces:
            if z <= lo or a >= hi:
                keep.append((a, z, ta))
                continue
            met = True
            exp.append('%d\t%d\t%d\t%s\t0x%x\t%d\t' % (ta, t, pid, heap, max(a, lo), min(z, hi) - max(a, lo)))
            if a < lo:
                keep.append((a, lo, ta))
            if z > hi:
                keep.append((hi, z, ta))
        pieces[:] = keep
        if not met:
            exp.append('-\t%d\t%d\t%s\t0x%x\t%d\t' % (t, pid, heap, lo, hi - lo))
    if random.random() < 0.002:
        out.append('exit\t%d\t%d\t0' % (t, pid))
        end(pid, 'exit', t)
        out.append('proc\t%d\t1\t%d\t/bin/x\tx' % (pid, t))
for p in (100, 200, 300):
    end(p, 'end', '-')
open('r.txt', 'w').write('\n'.join(out) + '\n')
open('expect', 'w').write('\n'.join(sorted(exp)) + '\n')
PY
	mt-lifetime -q r.txt | awk -F'\t' -v OFS='\t' '$1 == "life" { print $2, $3, $4, $6, $7, $8, $12 }' |
		sort >got
	[ "$(wc -l <expect)" -gt 30000 ]
	diff expect got
}

@test "a reader that goes away (| head) ends mt-lifetime by SIGPIPE at once, text or -b, nothing said" {
	awk 'BEGIN { print "proc\t100\t1\t0\t/bin/app\tapp"
		for (i = 1; i <= 200000; i++) {	# lifetimes all along, not only at the end
			printf "alloc\t%d\t100\t100\tmalloc\t0x%x\t%d\t-\n", 2 * i, 4096 + i * 16, i
			printf "free\t%d\t100\t100\tmalloc\t0x%x\t-\n", 2 * i + 1, 4096 + i * 16 } }' >big.txt
	run -0 --separate-stderr bash -c 'env --default-signal=PIPE mt-lifetime big.txt | head -n 1 >/dev/null; echo ${PIPESTATUS[0]}'
	[ "$output" = 141 ]
	[ -z "$stderr" ]
	run -0 --separate-stderr bash -c 'env --default-signal=PIPE mt-lifetime -b big.txt | head -c 100 >/dev/null; echo ${PIPESTATUS[0]}'
	[ "$output" = 141 ]
	[ -z "$stderr" ]
}

@test "a live set denser than one block in 16 bytes, or wider than the table, pairs (once quadratic: hours)" {
	# 8 bytes apart: a kernel cache's smallest objects; 16: jemalloc's;
	# 32 bytes apart over more than the table: glibc's 16-byte blocks.
	# The timeout is a hang guard, a hundred times the time it takes.
	for spec in "400000 8" "400000 16" "1500000 32"; do
		set -- $spec
		awk -v n="$1" -v step="$2" -f "$TESTS/live-set.awk" | "$PROGS/mtr-encode" >l.mtr
		run -0 --separate-stderr timeout 300 mt-lifetime -b l.mtr
		[ "$stderr" = "mt-lifetime: $1 lifetimes; 0 survivors leaked at exit, 0 alive at the end; 0 frees of blocks allocated before recording; 0 double frees" ]
		# each block freed by its own free, n events after it was made
		timeout 300 mt-lifetime -q l.mtr | awk -F'\t' -v n="$1" '$1 == "life" { c++; if ($3 - $2 != n) bad++ }
			END { if (c != n || bad) { print c, bad; exit 1 } }'
	done
}

@test "a crowded table scattered and grown pairs every block with its own free" {
	# 8 bytes apart (crowded, scattered, and tried in order again at each
	# growth), freed in a scattered order while a second set 16 bytes
	# apart grows; the generator's own pairs are the oracle.
	awk -v n=300000 'BEGIN {
		printf "#mt-events\t1\tstart=0\thost=t\n"
		t = 1
		for (i = 0; i < n; i++) {
			printf "alloc\t%d\t100\t100\tmalloc\t0x%x\t8\t-\n", t, 268435456 + i * 8
			ta[i] = t++
		}
		for (k = 0; k < n; k++) {
			i = (k * 7919) % n
			printf "free\t%d\t100\t100\tmalloc\t0x%x\t-\n", t, 268435456 + i * 8
			print ta[i], t++ >"expected"
			printf "alloc\t%d\t100\t100\tmalloc\t0x%x\t8\t-\n", t, 805306368 + k * 16
			tb[k] = t++
		}
		for (k = 0; k < n; k++) {
			printf "free\t%d\t100\t100\tmalloc\t0x%x\t-\n", t, 805306368 + k * 16
			print tb[k], t++ >"expected"
		}
	}' >g.txt
	run -0 --separate-stderr timeout 300 mt-lifetime g.txt
	[ "$stderr" = "mt-lifetime: 600000 lifetimes; 0 survivors leaked at exit, 0 alive at the end; 0 frees of blocks allocated before recording; 0 double frees" ]
	diff <(sort expected) <(printf '%s\n' "$output" | awk -F'\t' '$1 == "life" { print $2, $3 }' | sort)
}

@test "a mapping whose end would wrap past 2^64-1: said with file:line, left out, exit 1; an munmap's length past it ends what is there" {
	printf 'proc\t1\t0\t0\t/bin/x\tx\n' >wrap.txt
	printf 'alloc\t%s\t1\t1\tmmap\t0x%s\t%s\t-\n' 1 fffffffffffff000 8192 2 ffffffffffff0000 65536 \
		3 ffffffffffffe000 4096 >>wrap.txt
	printf 'free\t4\t1\t1\tmmap\t0xffffffffffffe000\t-\t1000000\nfree\t5\t1\t1\tmmap\t0xfffffffffffff000\t-\n' >>wrap.txt
	run -1 --separate-stderr mt-lifetime wrap.txt
	# once kept to the end, their end below their start, never to be freed
	[ "$output" = "$(printf 'proc\t1\t0\t0\t/bin/x\tx\nlife\t3\t4\t1\t1\tmmap\t0xffffffffffffe000\t4096\t-\taifi\t0\nlife\t-\t5\t1\t1\tmmap\t0xfffffffffffff000\t-\t-\taofi\t0')" ]
	[ "$stderr" = "mt-lifetime: wrap.txt:2: mapping ending past 2^64-1 '0xfffffffffffff000 of 8192 bytes'
mt-lifetime: wrap.txt:3: mapping ending past 2^64-1 '0xffffffffffff0000 of 65536 bytes'
mt-lifetime: 2 lifetimes; 0 survivors leaked at exit, 0 alive at the end; 1 frees of blocks allocated before recording; 0 double frees" ]
}

@test "a block's values too wide for the table's 24 bytes come back whole" {
	# Times past 2^49 ns from the first and before it, sizes and stack ids
	# of 2^24 and more, more than 65535 threads: each life carries its
	# allocation's own values, the generator's the oracle.
	awk -v n=140000 'BEGIN {
		printf "#mt-events\t1\tstart=0\thost=t\nproc\t100\t1\t0\t/bin/x\tx\n"
		for (i = 0; i < n; i++) {
			ts = i == 1 ? 5 : i < n / 2 ? 1000 + i : 2^50 + i
			size = i % 5 == 0 ? 2^32 + i : i % 5 == 1 ? 2^24 - 1 : i % 1000
			stack = i % 3 == 0 ? "-" : i % 3 == 1 ? sprintf("%.0f", 2^40 + i) : i
			printf "alloc\t%.0f\t100\t%d\tmalloc\t0x%x\t%.0f\t%s\n", ts, 100 + i % 70000,
			    268435456 + i * 16, size, stack
			printf "0x%x %.0f %s %d %.0f %s\n", 268435456 + i * 16, ts,
			    i % 2 ? "-" : sprintf("%.0f", 2^51 + i), 100 + i % 70000, size, stack >"expected"
		}
		for (i = 0; i < n; i += 2)
			printf "free\t%.0f\t100\t100\tmalloc\t0x%x\t-\n", 2^51 + i, 268435456 + i * 16
	}' >w.txt
	run -0 --separate-stderr mt-lifetime w.txt
	[ "$stderr" = "mt-lifetime: 140000 lifetimes; 0 survivors leaked at exit, 70000 alive at the end; 0 frees of blocks allocated before recording; 0 double frees" ]
	printf '%s\n' "$output" | awk -F'\t' '$1 == "life" { print $7, $2, $3, $5, $8, $9 }' | sort >got
	sort expected | diff - got
}

@test "mt-lifetime's memory: at most 64 bytes a live block over what the same events with none live take" {
	# The set's peak RSS against the RSS of as many events with 4096 blocks
	# live (tests/progs/pairs): the table, not the reader or the sink.
	[ -x /usr/bin/time ] || skip "/usr/bin/time (GNU time) not installed: no peak RSS"
	mt-record -o set.mtr -- "$PROGS/live-set" 1000000 2>/dev/null
	mt-record -o pairs.mtr -- "$PROGS/pairs" 1000000 >/dev/null 2>&1
	/usr/bin/time -f %M -o base.kib mt-lifetime -b -q pairs.mtr >/dev/null
	/usr/bin/time -f %M -o set.kib mt-lifetime -b -q set.mtr >/dev/null
	echo "base $(cat base.kib) KiB, 1M live $(cat set.kib) KiB"
	[ $(( ($(cat set.kib) - $(cat base.kib)) * 1024 )) -le $((64 * 1000000)) ]
}

@test "to mt's own filters a .mtr stream down a pipe, text to anything else, the same tables" {
	mt-record -o t.mtr -- "$PROGS/threads" >/dev/null 2>&1
	# a reader named as one of mt's filters: what came down the pipe, kept
	mkdir bin
	cp "$(command -v cat)" bin/mt-group
	magic=$(printf '\211MTR')
	mt-lifetime -q t.mtr | bin/mt-group >to-mt
	[ "$(head -c 4 to-mt)" = "$magic" ]
	mt-decode to-mt | grep -q '^life'
	mt-lifetime -q t.mtr | mt-window | bin/mt-group >w
	[ "$(head -c 4 w)" = "$magic" ]
	mt-symbolize t.mtr 2>/dev/null | bin/mt-group >s
	[ "$(head -c 4 s)" = "$magic" ]
	# a shell that execs it: waited for
	mt-lifetime -q t.mtr | sh -c 'sleep 0.01 </dev/null; exec bin/mt-group' >late
	[ "$(head -c 4 late)" = "$magic" ]
	# anything else: text
	mt-lifetime -q t.mtr | cat >to-cat
	[ "$(head -c 4 to-cat)" = "#mt-" ]
	mt-lifetime -q t.mtr >file
	cmp file to-cat
	[ "$(mt-lifetime -q t.mtr | head -c 4)" = "#mt-" ]
	mt-lifetime -q t.mtr | while read -r l; do echo "$l"; done | head -n 1 | grep -q '^#mt-'
	# another writer into the same pipe: text, that theirs may follow
	{ mt-lifetime -q t.mtr; echo '# after'; } | bin/mt-group >group
	[ "$(head -c 4 group)" = "#mt-" ]
	[ "$(tail -n 1 group)" = "# after" ]
	# its own messages into the same pipe (2>&1): text, that they may be read
	mt-lifetime t.mtr 2>&1 | bin/mt-group >witherr
	[ "$(head -c 4 witherr)" = "#mt-" ]
	grep -q '^mt-lifetime: [0-9]* lifetimes' witherr
	MT_PIPE=text mt-lifetime -q t.mtr | bin/mt-group >forced
	cmp forced file
	# the tables are the same either way
	mt-symbolize t.mtr 2>/dev/null | mt-lifetime -q | mt-group --by type,function,line >auto
	MT_PIPE=text mt-symbolize t.mtr 2>/dev/null | MT_PIPE=text mt-lifetime -q |
		mt-group --by type,function,line >text
	cmp auto text
	grep -q "^transient  *worker  *tests/progs/threads.c:" auto
}
