#!/usr/bin/env bats
# mt-record -p: attaching to a running process, and detaching.  The
# process's own output and exit status are the oracle that it ran on
# unchanged; its counter shows a gap or a repeat if it did not.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "-p: a C program runs on unchanged; its allocations with stacks, earlier blocks' frees as aofi" {
	need_ptrace
	start_target "$PROGS/attach-target" 500
	sleep 0.5	# keep_here's 64 blocks all made before
	run -0 --separate-stderr mt-record -p "$TARGET" -d 1s -o a.mtr
	has_line "$stderr" '^mt-record: \d+ events, 1 process, \d+ bytes written to a.mtr$'
	wait_target
	[ "$(cat status.txt)" = 3 ]
	counted_to 500
	# its GOT is libc's again once we are gone
	grep -qx 'malloc: libc.so.6' err.txt
	run -0 mt-decode a.mtr
	has_line "$output" "^# mt-record: attached to pid $TARGET \(attach-target\) at \d+"
	has_line "$output" "^# mt-record: detached from pid $TARGET: it runs on$"
	has_line "$output" "^proc\t$TARGET\t"
	# no exit: it did not end while recorded
	! has_line "$output" '^exit\t' || false
	mt-decode a.mtr | mt-symbolize > sym.txt
	# about 200 lines in 1 s, each an allocation in keep_here and leak_here
	awk -F'\t' '$1 == "sym" && $3 == "leak_here" { s = 1 } END { exit !s }' sym.txt
	leaks=$(mt-lifetime sym.txt | awk -F'\t' '$1 == "life" && $8 == 100 && $3 == "-" { n++ } END { print n + 0 }')
	[ "$leaks" -ge 100 ]
	# the blocks keep_here made before the attach are freed in it: aofi
	aofi=$(mt-lifetime a.mtr | awk -F'\t' '$1 == "life" && $2 == "-" && $10 == "aofi" { n++ } END { print n + 0 }')
	[ "$aofi" -ge 50 ]
}

@test "-p: threads that allocate all the time, four of them" {
	need_ptrace
	start_target "$PROGS/attach-target" 400 4
	run -0 --separate-stderr mt-record -p "$TARGET" -d 1s -o t.mtr
	wait_target
	[ "$(cat status.txt)" = 3 ]
	counted_to 400
	grep -qx 'malloc: libc.so.6' err.txt
	threads=$(mt-decode t.mtr | awk -F'\t' '$1 == "alloc" { t[$4] = 1 } END { print length(t) }')
	[ "$threads" -eq 5 ]
	[ -z "$(check_order t.mtr)" ]
}

@test "-p: a child forked after the attach is recorded too; with -n it is not" {
	need_ptrace
	start_target "$PROGS/attach-target" 300 0 fork
	run -0 --separate-stderr mt-record -p "$TARGET" -d 2s -o f.mtr
	wait_target
	[ "$(cat status.txt)" = 3 ]
	counted_to 300
	run -0 mt-decode f.mtr
	child=$(echo "$output" | awk -F'\t' -v p="$TARGET" '$1 == "proc" && $3 == p { print $2 }')
	[ -n "$child" ]
	# its 100 allocations of 1000 bytes, each freed
	[ "$(echo "$output" | awk -F'\t' -v c="$child" '$1 == "alloc" && $3 == c && $7 == 1000' | wc -l)" -eq 100 ]
	has_line "$output" "^exit\t\d+\t$child\t0$"

	rm -f out.txt err.txt status.txt
	start_target "$PROGS/attach-target" 300 0 fork
	run -0 --separate-stderr mt-record -n -p "$TARGET" -d 2s -o n.mtr
	wait_target
	counted_to 300
	[ "$(mt-decode n.mtr | grep -c '^proc')" -eq 1 ]
}

@test "-p: python3 with PYTHONMALLOC=malloc runs on unchanged" {
	need_ptrace
	start_target env PYTHONMALLOC=malloc /usr/bin/python3 -c '
import sys, time
d = []
for i in range(300):
    d.append({"k": str(i) * 10})
    if len(d) > 50: d.pop(0)
    print(i, flush=True)
    time.sleep(0.005)
sys.exit(5)'
	run -0 --separate-stderr mt-record -p "$TARGET" -d 1s -o py.mtr
	wait_target
	[ "$(cat status.txt)" = 5 ]
	awk '$1 != NR - 1 { exit 1 } END { exit NR != 300 }' out.txt
	[ ! -s err.txt ]
	n=$(heap_totals py.mtr | cut -d' ' -f1)
	[ "$n" -ge 1000 ]
	# symbolized: python's own functions allocate
	mt-decode py.mtr | mt-symbolize | grep -qE $'^sym\t[^\t]+\t_?Py'
}

@test "-p: mt-record killed with SIGKILL during and right after the attach: the process runs on" {
	need_ptrace
	for delay in 0 0.001 0.003 0.01 0.03 0.1 0.3; do
		rm -f out.txt err.txt status.txt
		start_target "$PROGS/attach-target" 200 2
		mt-record -p "$TARGET" -o k.mtr 2>/dev/null &
		rec=$!
		sleep "$delay"
		kill -KILL "$rec" 2>/dev/null || true
		wait "$rec" 2>/dev/null || true
		rm -f /tmp/mt-record-*-"$rec"	# its socket's path, left by a SIGKILL
		wait_target
		[ "$(cat status.txt)" = 3 ] || { echo "delay $delay: status $(cat status.txt)"; false; }
		counted_to 200 || { echo "delay $delay"; false; }
		! grep -q '^State:.*T' "/proc/$TARGET/status" 2>/dev/null || false
	done
}

@test "-p: the process ending while recorded ends the recording, its own way" {
	need_ptrace
	start_target "$PROGS/attach-target" 100
	run -0 --separate-stderr mt-record -p "$TARGET" -o e.mtr
	wait_target
	[ "$(cat status.txt)" = 3 ]
	run -0 mt-decode e.mtr
	# not our child: its status is not ours to see
	has_line "$output" "^# mt-record: pid $TARGET ended without an exit status we could see$"
}

@test "-p refuses, with why: no such process, a static binary, traced, already recorded" {
	run -2 --separate-stderr mt-record -p 0 -o x.mtr
	has_line "$stderr" '^mt-record: bad pid'
	run -2 --separate-stderr mt-record -p 4194303 -o x.mtr
	has_line "$stderr" '^mt-record: pid 4194303: no such process$'
	[ ! -e x.mtr ]
	run -2 --separate-stderr mt-record -p 1 -- true
	has_line "$stderr" 'no command with it'
	need_ptrace

	start_target "$PROGS/attach-static" 200
	run -2 --separate-stderr mt-record -p "$TARGET" -o x.mtr
	has_line "$stderr" "^mt-record: pid $TARGET: it has no libc.so mapped \(a static binary\?\)$"
	[ ! -e x.mtr ]
	wait_target
	counted_to 200

	rm -f out.txt err.txt status.txt
	start_target "$PROGS/tracer" "$PROGS/attach-target" 200
	TARGET=$(pgrep -n -P "$TARGET")
	run -2 --separate-stderr mt-record -p "$TARGET" -o x.mtr
	has_line "$stderr" "^mt-record: pid $TARGET: it is already traced by pid \d+ \(a debugger\?\)$"
	wait_target
	counted_to 200

	rm -f out.txt err.txt status.txt
	mt-record -o r.mtr -- "$PROGS/attach-target" 200 >out.txt 2>/dev/null &
	for _ in $(seq 100); do
		TARGET=$(pgrep -n -x attach-target || true)
		[ -n "$TARGET" ] && [ -s out.txt ] && break
		sleep 0.02
	done
	run -2 --separate-stderr mt-record -p "$TARGET" -o x.mtr
	has_line "$stderr" "^mt-record: pid $TARGET: libmt-preload.so is loaded in it already: it is recorded by mt-record, or was attached to before \(a process is attached to once\)$"
	wait
	counted_to 200
}

@test "-p a second time, after a detach: refused, said why; the process runs on" {
	need_ptrace
	# 5 s of counting: two recorders' start and end on a loaded machine
	# took longer than 1.5 s, and the second found the process gone.
	start_target "$PROGS/attach-target" 1000
	run -0 --separate-stderr mt-record -p "$TARGET" -d 300ms -o a.mtr
	run -2 --separate-stderr mt-record -p "$TARGET" -d 300ms -o b.mtr
	has_line "$stderr" "^mt-record: pid $TARGET: libmt-preload.so is loaded in it already: it is recorded by mt-record, or was attached to before \(a process is attached to once\)$"
	[ ! -e b.mtr ]
	wait_target
	[ "$(cat status.txt)" = 3 ]
	counted_to 1000
	grep -qx 'malloc: libc.so.6' err.txt
}

@test "-p where the default trace cannot be made: refused before attaching, exit 2" {
	need_ptrace
	# 3 s: the process must outlive a refusal on a loaded machine.
	start_target "$PROGS/attach-target" 600
	# Not ours to write over: the default name is made anew.
	echo theirs >"mt.attach-target.$TARGET.mtr"
	run -2 --separate-stderr mt-record -p "$TARGET" -d 1s
	[ "$stderr" = "mt-record: mt.attach-target.$TARGET.mtr: File exists" ]
	run -1 grep -q libmt-preload "/proc/$TARGET/maps"
	wait_target
	counted_to 600
	[ "$(cat "mt.attach-target.$TARGET.mtr")" = theirs ]
}

@test "-p refuses another user's process, saying why it may not" {
	[ "$(id -u)" = 0 ] || skip "needs root to run processes as other users (id -u: $(id -u))"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	as_other() { setpriv --reuid 65533 --regid 65533 --clear-groups "$@"; }
	if ! as_other test -r "$MT_BINDIR/../lib/libmt-preload.so" -a -x "$PROGS/attach-target"; then
		d=$(cd "$MT_BINDIR/.." && pwd) shut=
		while [ "$d" != / ]; do
			as_other test -x "$d" || shut="$(stat -c '%a' "$d") $d"
			d=$(dirname "$d")
		done
		skip "the build is not readable by other users: ${shut:+a directory above it is }${shut:-its files are private}"
	fi
	chmod 777 .
	start_target setpriv --reuid 65534 --regid 65534 --clear-groups "$PROGS/attach-target" 600
	run -2 --separate-stderr setpriv --reuid 65533 --regid 65533 --clear-groups \
		"$MT_BINDIR/mt-record" -p "$TARGET" -o x.mtr
	has_line "$stderr" "^mt-record: pid $TARGET: not permitted: it belongs to uid 65534, and we are not root$"
	wait_target
	counted_to 600

}

@test "-p refuses a set-user-ID process, saying why" {
	[ "$(id -u)" = 0 ] || skip "needs root to make a set-user-ID program (id -u: $(id -u))"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	chmod 755 .
	cp "$PROGS/attach-target" suid-target
	chmod 4755 suid-target
	setpriv --reuid 65534 --regid 65534 --clear-groups test -x suid-target ||
		skip "uid 65534 cannot run a program in $PWD"
	start_target setpriv --reuid 65534 --regid 65534 --clear-groups ./suid-target 600
	run -2 --separate-stderr mt-record -p "$TARGET" -o x.mtr
	has_line "$stderr" "^mt-record: pid $TARGET: it runs set-user-ID or set-group-ID"
	wait_target
	counted_to 600
}

@test "-p -o - | mt-decode, mt-symbolize, mt-lifetime: lines come out as the recording goes, not at its end" {
	need_ptrace
	for filter in mt-decode mt-symbolize mt-lifetime; do
		rm -f out.txt err.txt status.txt rec.done verdict
		start_target "$PROGS/attach-target" 1000
		( set +e; mt-record -p "$TARGET" -d 3s -o - 2>/dev/null; echo done >rec.done ) |
			"$filter" | { read -r first; [ -e rec.done ] || echo early >verdict; cat >/dev/null; }
		[ "$(cat verdict 2>/dev/null)" = early ] || { echo "$filter: its first line came after mt-record ended"; false; }
		wait_target
		counted_to 1000
	done
}

@test "-p -o - | mt-symbolize | mt-pooldiff --live --growth: the leaking function named while it runs" {
	need_ptrace
	start_target "$PROGS/attach-target" 1400
	( set +e; mt-record -p "$TARGET" -d 5s -o - 2>/dev/null; echo done >rec.done ) |
		mt-symbolize | { set +e; mt-pooldiff --interval 500ms --growth 3/3 --live; echo $? >pool.status; } |
		{ while IFS= read -r line; do
			case $line in leak_here*)
				[ -e rec.done ] || echo early >verdict
				echo "$line" >leak.row;;
			esac
		  done; }
	[ "$(cat verdict)" = early ]
	# 100 bytes a line, 100 lines a 500 ms: +9800 or so an interval
	awk '{ exit !($3 == "3/3" && $6 > 0) }' leak.row
	[ "$(cat pool.status)" = 1 ]
	wait_target
	counted_to 1400
}

@test "-p: mappings made before the attach are allocations from before recording, their unmapping with its size" {
	need_ptrace
	start_target "$PROGS/attach-target" 300 0 maps
	read -r _ rw none <err.txt
	run -0 --separate-stderr mt-record -p "$TARGET" -d 2s -o m.mtr
	wait_target
	counted_to 300
	run -0 mt-decode m.mtr
	# written with no time, the one that holds rw and the reserve
	echo "$output" | RW=$rw NONE=$none P=$TARGET perl -F'\t' -lane '
		next unless $F[0] eq "alloc" && $F[1] eq "-" && $F[2] == $ENV{P};
		my ($a, $n) = (hex($F[5]), $F[6]);
		$m = 1 if $F[4] eq "mmap" && $a <= hex($ENV{RW}) && $a + $n >= hex($ENV{RW}) + 1048576;
		$r = 1 if $F[4] eq "reserve" && $a <= hex($ENV{NONE}) && $a + $n >= hex($ENV{NONE}) + 2097152;
		END { exit !($m && $r) }' || { echo "$output" | grep $'^alloc\t-'; false; }
	run -0 mt-lifetime m.mtr
	has_line "$output" "^life\t-\t\d+\t$TARGET\t$TARGET\tmmap\t$rw\t524288\t-\taofi\t-524288$"
	has_line "$output" "^life\t-\t\d+\t$TARGET\t$TARGET\treserve\t$none\t2097152\t-\taofi\t-2097152$"
}

@test "-p refuses a process whose user cannot read the library" {
	[ "$(id -u)" = 0 ] || skip "needs root to run the process as another user (id -u: $(id -u))"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	chmod 755 .
	cp "$PROGS/attach-target" target
	cp "$MT_BINDIR/../lib/libmt-preload.so" private.so
	chmod 600 private.so
	setpriv --reuid 65534 --regid 65534 --clear-groups test -x target ||
		skip "uid 65534 cannot run a program in $PWD"
	start_target setpriv --reuid 65534 --regid 65534 --clear-groups ./target 200
	MT_PRELOAD=$PWD/private.so run -2 --separate-stderr mt-record -p "$TARGET" -o x.mtr
	[ "$stderr" = "mt-record: pid $TARGET: $PWD/private.so is not readable by its user (uid 65534)" ]
	wait_target
	counted_to 200
}

@test "-p refuses a process in another mount namespace, where the library is not at its path" {
	[ "$(id -u)" = 0 ] || skip "needs root to mount (id -u: $(id -u))"
	need_ptrace
	unshare --mount true 2>ns.err || skip "unshare --mount refused here: $(cat ns.err)"
	cp "$PROGS/attach-target" target
	lib=$(cd "$MT_BINDIR/../lib" && pwd)
	start_target unshare --mount sh -c "mount -t tmpfs none '$lib' && exec ./target 200"
	run -2 --separate-stderr mt-record -p "$TARGET" -o x.mtr
	[ "$stderr" = "mt-record: pid $TARGET: $lib/libmt-preload.so is not there in its root (another mount namespace: a container?)" ]
	wait_target
	counted_to 200
}
