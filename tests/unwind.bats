#!/usr/bin/env bats
# mt-record --unwind: the shadow stack against libunwind on the cases that
# break shadow stacks, each unwinder against valgrind's totals, and real
# programs running as they run without us.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# Runs "$@" natively and under mt-record --unwind check: the same output
# (put through $ORDER when set) and status, at least $MIN stacks
# compared, none different.  Sets
# $checked and $fallback (stacks the shadow left to libunwind).
same_under_check() {
	local want got
	want=$("$@" 2>&1 | ${ORDER:-cat}; echo "status ${PIPESTATUS[0]}")
	got=$(mt-record --unwind check -o c.mtr -- "$@" 2>c.err | ${ORDER:-cat}; echo "status ${PIPESTATUS[0]}")
	[ "$want" = "$got" ] || { echo "$*: '$want' natively, '$got' recorded"; return 1; }
	grep -q ' stacks compared with libunwind.s, 0 differ$' c.err ||
		{ echo "$*:"; cat c.err; return 1; }
	checked=$(sed -n 's/.*check: \([0-9]*\) stacks compared.*/\1/p' c.err)
	fallback=$(mt-decode c.mtr | sed -n 's/^# mt-record: --unwind shadow: \([0-9]*\) stacks unwound by libunwind.*/\1/p')
	fallback=${fallback:-0}
	echo "$*: $checked compared, $fallback by libunwind"
	[ "$checked" -ge "${MIN:-1}" ]
}

@test "longjmp, siglongjmp, signals on the stack and on an alternate one, backtrace(3), pthread_exit, cancellation, fork: every stack libunwind's" {
	for c in longjmp siglongjmp signal sigaltstack backtrace pthread_exit cancel fork; do
		MIN=10 same_under_check "$PROGS/unwind-cases" "$c"
		# The shadow walked them all itself.
		[ "$fallback" = 0 ]
	done
	# backtrace(3) saw the program's frames, not the trampoline.
	run -0 "$PROGS/unwind-cases" backtrace
	has_line "$output" '^backtrace: \d+ frames, 0 not the'
	run -0 mt-record --unwind shadow -o b.mtr -- "$PROGS/unwind-cases" backtrace
	has_line "$output" '^backtrace: \d+ frames, 0 not the'
}

@test "walks the shadow remembers: the same start reached by other frames above, told apart; every stack libunwind's" {
	MIN=200000 same_under_check "$PROGS/unwind-cases" memo
	[ "$fallback" = 0 ]
	# Some stacks came from remembered walks, and were compared too.
	remembered=$(mt-decode c.mtr | sed -n 's/^# mt-record: --unwind check: \([0-9]*\) of them from walks the shadow remembered$/\1/p')
	echo "remembered: $remembered"
	[ "${remembered:-0}" -ge 10000 ]
	# pairs' 64 call sites, the benchmark's: nearly every stack remembered
	MIN=100000 same_under_check "$PROGS/pairs" 100000
	remembered=$(mt-decode c.mtr | sed -n 's/^# mt-record: --unwind check: \([0-9]*\) of them from walks the shadow remembered$/\1/p')
	echo "remembered: $remembered"
	[ "${remembered:-0}" -ge 50000 ]
}

@test "a thread's first allocation inside pthread_getattr_np (Rust's and the JVM's start): no deadlock, with each unwinder" {
	for u in shadow libunwind fp check; do
		run -0 --separate-stderr timeout 20 mt-record --unwind $u -o g.mtr -- "$PROGS/unwind-cases" getattr
		[ "$output" = "getattr: 5" ]
	done
}

@test "C++ exceptions through allocating frames, destructors that allocate and throw, rethrow, across threads: every stack libunwind's" {
	MIN=100000 same_under_check "$PROGS/throw"
	[ "$fallback" -le 1 ]
}

@test "coroutines (swapcontext) and JIT code: frames the shadow cannot walk go to libunwind, said in the trace" {
	same_under_check "$PROGS/unwind-cases" swapcontext
	[ "$fallback" -gt 0 ]
	# JIT code has no frame rules: the event unwound by libunwind.
	run -0 --separate-stderr mt-record --unwind check -o j.mtr -- "$PROGS/jit"
	has_line "$stderr" ' 0 differ$'
	has_line "$(mt-decode j.mtr)" '^# mt-record: --unwind shadow: [1-9]\d* stacks unwound by libunwind'
}

@test "the hard cases of the recorder's tests under --unwind check: each as without, every stack libunwind's" {
	for p in threads forkexec closefds ends rawclone-fork detached-exit daemon-closeall \
	    realloc memalign threads-many; do
		same_under_check "$PROGS/$p"
	done
	same_under_check "$PROGS/dlopen" "$PROGS/liballoc.so"
	# A signal handler that allocates (its counts vary from run to run).
	# When it stops the trampoline itself, the shadow walks on through it
	# and libunwind cannot: those stacks are counted, not compared.
	run -0 --separate-stderr timeout 60 mt-record --unwind check -o s.mtr -- "$PROGS/signal"
	has_line "$stderr" ' [1-9]\d* stacks compared with libunwind.s, 0 differ$'
}

@test "signals stopping the trampoline, 10 runs: the program never loses its way back" {
	# A handler that walked through a trampoline it had stopped once
	# dropped the entry being popped: the return had nowhere to go.
	# A handler may run many times within one malloc (one waiting for room
	# in a full ring): more than 200 signals is no fault; each handled
	# signal's allocation in the trace, none lost, is what counts.
	for k in 1 2 3 4 5 6 7 8 9 10; do
		run -0 --separate-stderr timeout 60 mt-record --unwind shadow -o s$k.mtr -- "$PROGS/signal"
		has_line "$output" '^allocs=(\d+) frees=\1 handled=\d+$'
		handled=${output##*handled=} allocs=${output#allocs=}
		allocs=${allocs%% *}
		[ "$handled" -ge 200 ]
		run -0 mt-decode s$k.mtr
		[ "$(echo "$output" | awk -F '\t' '$1 == "alloc" { n[$7]++ } END { print n[77] + 0, n[32] + 0 }')" = "$handled $((allocs - handled))" ]
	done
}

@test "each unwinder against valgrind's totals, on the hard cases and C++ exceptions" {
	for p in "unwind-cases all" throw threads; do
		read -r va vf vb <<<"$(valgrind_totals $PROGS/$p)"
		for u in libunwind shadow fp; do
			run -0 --separate-stderr mt-record --unwind $u -o t.mtr -- $PROGS/$p
			read -r ma mf mb <<<"$(heap_totals t.mtr)"
			echo "$p --unwind $u: mt $ma $mf, valgrind $va $vf"
			[ "$ma $mf" = "$va $vf" ]
		done
	done
}

@test "python3, g++, git, make, perl, bash: output and status as without, every stack libunwind's" {
	export PYTHONMALLOC=malloc
	MIN=100000 same_under_check /usr/bin/python3 -c \
	    'import json, re; print(len(json.dumps([re.sub("1", "x", str(i) * 3) for i in range(20000)])))'
	cp "$PROGS/throw.cc" t.cc
	MIN=100000 same_under_check g++ -O1 -c t.cc -o t.o
	git init -q g && (cd g && git -c user.name=mt -c user.email=mt@localhost commit -q --allow-empty -m one)
	same_under_check git -C g log --oneline
	printf 'all: a b\na:\n\t@echo a\nb:\n\t@echo b\n' >Makefile
	# Two jobs at once: their lines in either order.
	ORDER=sort same_under_check make -j2
	MIN=50000 same_under_check perl -e 'my %h; $h{$_} = [$_] for 1..50000; print scalar(keys %h), "\n"'
	MIN=50000 same_under_check bash -c 'for ((i = 0; i < 3000; i++)); do x=$x$i; done; echo ${#x}'
	# Threads that raise and catch exceptions, and asyncio's coroutines.
	MIN=10000 same_under_check /usr/bin/python3 -c '
import threading
def f(n):
    try:
        raise ValueError(str(n) * 100)
    except ValueError as e:
        return len(str(e))
ts = [threading.Thread(target=lambda: [f(i) for i in range(20000)]) for _ in range(4)]
[t.start() for t in ts]; [t.join() for t in ts]; print(1)'
	MIN=1000 same_under_check /usr/bin/python3 -c '
import asyncio
async def g(i): await asyncio.sleep(0); return [i] * 10
async def m(): return sum(len(x) for x in await asyncio.gather(*(g(i) for i in range(20000))))
print(asyncio.run(m()))'
}

@test "--unwind fp on a program with frame pointers: its frames as libunwind's, up to where the chain leaves it" {
	run -0 --separate-stderr mt-record --unwind fp -o fp.mtr -- "$PROGS/pairs" 2000
	run -0 --separate-stderr mt-record --unwind libunwind -o lu.mtr -- "$PROGS/pairs" 2000
	# Each allocation's stack, cut after its first frame outside pairs.
	stacks() {
		mt-decode "$1" | python3 -c '
import sys
lo = hi = None
st = {}
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if f[0] == "map" and f[6].endswith("/pairs") and lo is None:
        lo, hi = int(f[2], 16), int(f[3], 16)
    elif f[0] == "stack":
        cut = []
        for a in f[2:]:
            if a == "..." or not lo <= int(a, 16) < hi:
                cut.append("out")
                break
            cut.append(hex(int(a, 16) - lo))
        st[f[1]] = " ".join(cut)
    elif f[0] == "alloc" and f[4] == "malloc" and int(f[6]) < 1000000:
        print(st.get(f[7], "-"))'
	}
	diff <(stacks fp.mtr) <(stacks lu.mtr)
	[ "$(stacks fp.mtr | wc -l)" -ge 2000 ]
}

@test "the trace says what took each process's stacks: shadow by default, the method asked for otherwise" {
	run -0 --separate-stderr mt-record -o d.mtr -- "$PROGS/forkexec"
	has_line "$(mt-decode d.mtr)" '^# mt-record: stacks taken by --unwind shadow in 7 processes, libunwind in 0, fp in 0$'
	for u in libunwind fp; do
		run -0 --separate-stderr mt-record --unwind $u -o $u.mtr -- "$PROGS/demo"
		run -0 mt-decode $u.mtr
		has_line "$output" "^# mt-record: stacks taken by --unwind .* $u in 1\b"
	done
}

@test "--unwind: a bad method is refused with the list" {
	run -2 --separate-stderr mt-record --unwind frobnicate -- true
	has_line "$stderr" "bad unwinder 'frobnicate' \(libunwind, shadow, fp, check; with -u: fp, dwarf\[:SIZE\]\)"
	# Stacks are copied by the BPF program alone.
	run -2 --separate-stderr mt-record --unwind dwarf -- true
	has_line "$stderr" "^mt-record: --unwind dwarf: stacks are copied only with --uprobes \(-u\)$"
}

@test "modules unloaded and others loaded where they were: stacks by the new module's rules" {
	a=$PROGS/libframes-a.so b=$PROGS/libframes-b.so
	run -0 --separate-stderr mt-record --unwind shadow -o r.mtr -- "$PROGS/dlreload" "$a" "$b" 200
	[ "$output" = "dlreload: 400 allocations" ]
	# Each library's call returns to one address in either: the test
	# means something only when they were loaded at one place.
	has_line "$stderr" '^dlreload: (1[0-9][0-9]) of 199 loads where the other was$'
	# The shadow walked them all (by stale rules it could not: it fell
	# back to libunwind, whose own cache walks the old rules).
	run -1 grep -q 'unwound by libunwind' <(mt-decode r.mtr)
	# Every allocation of cb (24 to 31 bytes): cb, lib_call, main, and on
	# to the outermost frame, through either library's frame.
	mt-decode r.mtr | python3 -c '
import sys
exe = None
st = {}
depths = set()
n = 0
for line in sys.stdin:
    f = line.rstrip("\n").split("\t")
    if f[0] == "map" and f[6].endswith("/dlreload") and exe is None:
        exe = (int(f[2], 16), int(f[3], 16))
    elif f[0] == "stack":
        st[f[1]] = f[2:]
    elif f[0] == "alloc" and f[4] == "malloc" and 24 <= int(f[6]) < 32:
        s = st[f[7]]
        if not exe[0] <= int(s[0], 16) < exe[1]:
            continue	# not cb's: the loader's
        assert exe[0] <= int(s[2], 16) < exe[1], "frame 3 not main: %s" % s
        depths.add(len(s))
        n += 1
assert len(depths) == 1 and n == 400, (depths, n)
print("depth", depths)'
}

@test "thread after thread: what the shadow keeps for a thread goes with it (the address space does not grow)" {
	# 200 kB a thread stayed mapped before: 49 MB over these 250 threads.
	# Natively 0 here; a malloc arena more or less is up to 1 MB.
	for u in shadow check; do
		run -0 --separate-stderr mt-record --unwind $u -o t.mtr -- "$PROGS/threads-churn" 300
		has_line "$output" '^threads 300 grew \d+ kB$'
		[ "$(echo "$output" | awk '{ print $4 }')" -le 2048 ]
	done
}
