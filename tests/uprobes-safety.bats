#!/usr/bin/env bats
# mt-record --uprobes behaves as the preload path does for the program
# it records: no stop of ours seen by a parent (su, runuser), signals
# passed on, nothing left stopped, an output refused left as it was,
# nothing lost while the collector is stalled, no false double frees.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The processes in state T (stopped) among the descendants of pid $1, itself included.
stopped_under() {
	local p
	for p in $1 $(pgrep -P "$1"); do
		awk '$3 == "T" || $3 == "t" { print FILENAME ": " $0 }' "/proc/$p/stat" 2>/dev/null
		[ "$p" = "$1" ] || stopped_under "$p"
	done
}

@test "--uprobes under runuser and su: they never see a stop of ours, and end as without mt" {
	need_uprobes
	command -v runuser >/dev/null || skip "runuser (util-linux) not installed"
	SECONDS=0
	run -0 --separate-stderr timeout 20 mt-record -u -o r.mtr -- runuser -u nobody -- /bin/sleep 1
	[ "$SECONDS" -lt 10 ]
	has_line "$stderr" '^mt-record: [0-9]+ events, 2 processes, .* written to r\.mtr$'
	# Named by the path it was run by, as the preload library names it.
	mt-decode r.mtr | awk -F'\t' '$1 == "proc" { print $5 }' | grep -qx '/bin/sleep'
	mt-decode r.mtr | awk -F'\t' '$1 == "exit"' | grep -c . | grep -qx 2
	command -v su >/dev/null || skip "su not installed"
	SECONDS=0
	run -0 --separate-stderr timeout 20 mt-record -u -o s.mtr -- su nobody -s /bin/sh -c 'sleep 1; exit 0'
	[ "$SECONDS" -lt 10 ]
	mt-decode s.mtr | awk -F'\t' '$1 == "proc" { print $5 }' | grep -Eqx '(/usr)?/bin/sleep'
}

@test "--uprobes: a SIGTERM reaches the command, which dies of it; so does mt-record" {
	need_uprobes
	mt-record -u -o t.mtr -- sleep 31.25 2>err.txt &
	rec=$!
	for _ in $(seq 100); do pgrep -f '^sleep 31.25$' >/dev/null && break; sleep 0.05; done
	sleep 0.2
	kill -TERM "$rec"
	st=0
	wait "$rec" || st=$?
	[ "$st" = 143 ]
	run ! pgrep -f '^sleep 31.25$'
	run -0 mt-decode t.mtr
	has_line "$output" $'^exit\t[0-9]+\t[0-9]+\tSIGTERM$'
	run ! grep -q 'runs on' err.txt
}

@test "--uprobes: a refusal leaves an existing output as it was" {
	need_uprobes
	echo 'keep me' >keep.mtr
	run -2 --separate-stderr mt-record -u --alloc-fn 'no_such_get:no_such_put' -o keep.mtr -- "$PROGS/ucount"
	has_line "$stderr" '^mt-record: --alloc-fn: no_such_get: no such function in '
	[ "$(cat keep.mtr)" = 'keep me' ]
}

@test "--uprobes: a static program with no allocation function of its own: its mappings, said" {
	need_uprobes
	cp "$PROGS/ucount-static" stripped
	strip stripped
	run -0 --separate-stderr mt-record --uprobes -o s.mtr -- ./stripped
	has_line "$stderr" '^mt-record: .*/stripped: no allocation function to probe \(stripped of its symbols\): the mappings it makes'
	run -0 mt-decode s.mtr
	has_line "$output" $'^alloc\t[0-9]+\t[0-9]+\t[0-9]+\tmmap\t'
	run ! has_line "$output" $'^alloc\t[0-9]+\t[0-9]+\t[0-9]+\tmalloc\t'
	# A static program that keeps its symbols but allocates by itself: not called stripped.
	printf 'int main(void) { return 0; }\n' >none.c
	cc -static -nostartfiles -o none -x c - <<<'void _start(void) { __asm__ volatile("mov $60, %eax; xor %edi, %edi; syscall"); }' ||
		skip "no static link here"
	run -0 --separate-stderr mt-record --uprobes -o n.mtr -- ./none
	has_line "$stderr" 'no allocation function to probe \(it defines none of malloc.s family'
}

@test "--uprobes -o -: the trace alone on stdout, whole; the command's output on stderr" {
	need_uprobes
	mt-record -u -o - -- /bin/echo hello 2>err.txt >t.mtr
	run -0 mt-decode -c t.mtr
	grep -qx hello err.txt
	# Its arguments as they were given, empty ones and spaces kept.
	mt-record -u -o q.mtr -- /bin/echo 'a b' '' x 2>/dev/null >/dev/null
	mt-record -o p.mtr -- /bin/echo 'a b' '' x 2>/dev/null >/dev/null
	diff <(mt-decode q.mtr | awk -F'\t' '$1 == "proc" { print $5 "\t" $6 }') \
		<(mt-decode p.mtr | awk -F'\t' '$1 == "proc" { print $5 "\t" $6 }')
}

@test "--uprobes, 8 threads: no false double frees, no frees of blocks never allocated" {
	need_uprobes
	run -0 --separate-stderr mt-record -u -o th.mtr -- "$PROGS/busy" 0.3 8
	run -0 --separate-stderr mt-lifetime th.mtr
	has_line "$stderr" '; 0 frees of blocks allocated before recording; 0 double frees$'
	run -0 --separate-stderr mt-record -o thp.mtr -- "$PROGS/busy" 0.3 8
	run -0 --separate-stderr mt-lifetime thp.mtr
	has_line "$stderr" '; 0 frees of blocks allocated before recording; 0 double frees$'
}

# The allocations of busy's own loop (its stacks through run) in a trace.
own_allocs() {
	mt-symbolize "$1" | mt-lifetime -q | mt-group --by heap,function --format tsv |
		awk -F'\t' '$1 == "malloc" && $2 == "run" { print $3 }'
}

# Waits until the child of pid $1 named $2 has had 50 ms of CPU time;
# fails after 10 s.
wait_running() {
	local c t min=$(($(getconf CLK_TCK) / 20))
	for _ in $(seq 200); do
		c=$(pgrep -x -P "$1" "$2") &&
			t=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$c/stat" 2>/dev/null) &&
			[ "$t" -ge "$min" ] && return 0
		sleep 0.05
	done
	echo "$2, a child of pid $1, did not run" >&2
	return 1
}

@test "--uprobes: a static program allocating flat out, its collector stopped for 1 s: nothing lost" {
	need_uprobes
	for unwind in fp dwarf; do
		mt-record -u --unwind "$unwind" -o b.mtr -- "$PROGS/busy-static" 2 >own.txt 2>err.txt &
		rec=$!
		# Stopped while the program allocates: a stop while mt-record is
		# still putting its probes in (half a second and more on a loaded
		# machine) holds the program back too, and nothing is tested.
		wait_running "$rec" busy-static
		kill -STOP "$rec"
		sleep 1
		kill -CONT "$rec"
		wait "$rec"
		run ! grep -q 'lost' err.txt
		read -r _ allocs _ frees <own.txt
		[ "$allocs" -gt 0 ]
		[ "$(own_allocs b.mtr)" = "$allocs" ]
	done
}

@test "-p --uprobes on a program that forks while recorded: every child followed, each runs on" {
	need_uprobes
	# The children forked after the attach (forktree forks at once: run
	# a second late), so that they are followed: each is probed and
	# stopped at its fork.
	start_target sh -c "echo started; sleep 1; exec '$PROGS/forktree' 4"
	run -0 --separate-stderr timeout 120 mt-record -p "$TARGET" -u -d 2s -o f.mtr
	# sh, forktree (its exec) and the 4 children, each its proc line.
	[ "$(mt-decode f.mtr | grep -c '^proc')" = 6 ]
	sleep 0.3
	[ -z "$(stopped_under "$TARGET")" ]
	kill -TERM "$TARGET"
	wait_target
	[ "$(cat status.txt)" = 0 ]
	grep -qx 'forktree: 4 reaped' err.txt
}

@test "-p --uprobes on a tree of 400 processes: none left stopped, its probes let go of in 10 s" {
	need_uprobes
	need_multi_links
	# 400 children forked a second after the attach, each allocating
	# every 50 ms, all followed.
	start_target sh -c "echo started; sleep 1; exec '$PROGS/forktree' 400 50"
	t0=$(date +%s%N)
	run -0 --separate-stderr timeout 300 mt-record -p "$TARGET" -u -d 3s -o t.mtr
	t1=$(date +%s%N)
	echo "mt-record took $(((t1 - t0) / 1000000)) ms with -d 3s"
	# Its attach, its end (the stops outstanding waited for) and the
	# probes let go of: within 10 s of the 3 s.
	[ $(((t1 - t0) / 1000000)) -le 13000 ]
	n=$(mt-decode t.mtr | grep -c '^proc')
	echo "$n processes recorded"
	[ "$n" -ge 100 ]
	sleep 0.3
	[ -z "$(stopped_under "$TARGET")" ]
	[ "$(pgrep -c -P "$TARGET")" = 400 ]
	kill -TERM "$TARGET"
	wait_target
	[ "$(cat status.txt)" = 0 ]
	grep -qx 'forktree: 400 reaped' err.txt
}

@test "-p --uprobes on a busy process: no allocation seen without its free's probe" {
	need_uprobes
	start_target "$PROGS/busy" 0
	run -0 --separate-stderr mt-record -p "$TARGET" -u -d 1s -o b.mtr
	kill -TERM "$TARGET"
	wait_target
	run -0 --separate-stderr mt-lifetime -q b.mtr
	[ -z "$stderr" ]
	run -0 --separate-stderr mt-lifetime b.mtr
	run ! has_line "$stderr" 'allocated again without a free seen'
	# Every stack is whole: none is a lone frame of the allocator's caller.
	run -0 mt-decode b.mtr
	run ! has_line "$output" $'^stack\t[0-9]+\t0x[0-9a-f]+$'
}

@test "preload: a set-user-ID program run by a child is said, not left out silently" {
	[ "$(id -u)" = 0 ] || skip "needs root to run a program as another user (id -u: $(id -u))"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	cp "$PROGS/busy" suid
	chmod u+s,a+rx suid
	chmod a+rx "$BATS_TEST_TMPDIR"
	setpriv --reuid 65534 --regid 65534 --clear-groups test -x suid ||
		skip "uid 65534 cannot run a program in $PWD"
	run -0 --separate-stderr mt-record -o s.mtr -- \
		setpriv --reuid 65534 --regid 65534 --clear-groups "$PWD/suid" 0.3
	has_line "$stderr" "^mt-record: pid [0-9]+ runs $PWD/suid, which is set-user-ID or set-group-ID: the dynamic linker ignores LD_PRELOAD for it, so it is not recorded \\(as root, mt-record -u records it through uprobes\\)$"
	mt-decode s.mtr | grep -q "^# mt-record: pid [0-9]* runs $PWD/suid, which is set-user-ID"
}
