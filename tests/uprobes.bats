#!/usr/bin/env bats
# mt-record --uprobes: programs recorded through BPF uprobes, not
# LD_PRELOAD.  The oracles: ucount's own counts of what it allocated and
# freed, and the preload recording of its dynamic build.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The table by function and line of a trace's malloc heap, leaks and all
# (a uprobes recording has the mmap family's calls too: heaps mmap, reserve).
by_line() {
	mt-symbolize "$1" | mt-lifetime -q | mt-group --by heap,function,line --format tsv |
		awk -F'\t' -v OFS='\t' '$1 == "malloc" { $1 = ""; print substr($0, 2) }'
}

# ucount's own line: "allocs N frees N bytes N leaked 7 ADDR".
counts_of() {
	awk '{ print $2, $4, $6 }' "$1"
}

# The trace's allocations, frees and bytes allocated by malloc, as ucount prints them.
trace_counts() {
	mt-decode "$1" | awk -F'\t' '$5 != "malloc" { next }
		$1 == "alloc" { a++; b += $7 } $1 == "free" { f++ }
		END { print a + 0, f + 0, b + 0 }'
}

# main's and leak_here's rows, the program's own allocations.
own_rows() {
	by_line "$1" | awk -F'\t' '$1 == "main" || $1 == "leak_here"' | sort
}

@test "--uprobes, a dynamic program: its own counts, and the preload recording's table" {
	need_uprobes
	run -0 --separate-stderr mt-record --uprobes -o u.mtr -- "$PROGS/ucount"
	echo "$output" >own.txt
	has_line "$stderr" '^mt-record: .* bytes written to u\.mtr$'
	[ "$(trace_counts u.mtr)" = "$(counts_of own.txt)" ]
	mt-decode u.mtr | grep -q '^# mt-record: recorded through uprobes, .* probed in .*/libc\.so\.6$'
	# Built with frame pointers: its stacks are theirs, not copies.
	mt-decode u.mtr | grep -q '^# mt-record: pid [0-9]*: stacks by --unwind fp: its frame pointers$'
	mt-record -o p.mtr -- "$PROGS/ucount" >/dev/null 2>&1
	diff <(own_rows p.mtr) <(own_rows u.mtr)
	# The leaks, named by function and line.
	own_rows u.mtr | grep -q $'^leak_here\ttests/progs/ucount.c:[0-9]*\t7\t28021\t28021\t'
}

@test "--uprobes, a dynamic program: the same lifetimes as the preload recording" {
	need_uprobes
	# Times to the ns: at 100 ns, two allocations may share a time, and
	# their order in the sort below would be the order of their frees.
	mt-record --uprobes --time-resolution 1ns -o u.mtr -- "$PROGS/ucount" >/dev/null 2>&1
	mt-record --time-resolution 1ns -o p.mtr -- "$PROGS/ucount" >/dev/null 2>&1
	# Each lifetime's size, whether freed, and its allocation's place in
	# the order: the addresses differ from run to run (ASLR), not these.
	# (The blocks left are written at the end in an order of their own.)
	lifes() {
		mt-lifetime -q "$1" | awk -F'\t' '$1 == "life" && $6 == "malloc" { print $2, $8, ($3 == "-") }' |
			sort -s -n -k1,1 | awk '{ print NR, $2, $3 }'
	}
	[ "$(lifes u.mtr | wc -l)" = 507 ]
	diff <(lifes p.mtr) <(lifes u.mtr)
}

@test "--uprobes, a glibc static program: its allocations counted as it counts them" {
	need_uprobes
	run -0 --separate-stderr mt-record --uprobes -o s.mtr -- "$PROGS/ucount-static"
	echo "$output" >own.txt
	# glibc's own start-up allocates too (_dl_init_paths...): main's and
	# leak_here's rows are the program's, as in the dynamic build.
	mt-record -o p.mtr -- "$PROGS/ucount" >/dev/null 2>&1
	diff <(own_rows p.mtr) <(own_rows s.mtr)
	[ "$(own_rows s.mtr | awk -F'\t' '{ n += $3; b += $4 } END { print n, b }')" = \
		"$(awk '{ print $2, $6 }' own.txt)" ]
	mt-decode s.mtr | grep -q "^# mt-record: recorded through uprobes, [0-9]* functions probed in $PROGS/ucount-static$"
	# glibc's own functions keep no frame pointer: its stacks are copies.
	mt-decode s.mtr | grep -q "^# mt-record: pid [0-9]*: stacks by --unwind dwarf: "
}

@test "--uprobes, a musl static program: every allocation and free" {
	need_uprobes
	[ -x "$PROGS/ucount-musl" ] || skip "no musl-gcc (musl-tools): ucount-musl not built"
	run -0 --separate-stderr mt-record --uprobes -o m.mtr -- "$PROGS/ucount-musl"
	echo "$output" >own.txt
	[ "$(trace_counts m.mtr)" = "$(counts_of own.txt)" ]
	mt-record -o p.mtr -- "$PROGS/ucount" >/dev/null 2>&1
	diff <(own_rows p.mtr) <(own_rows m.mtr)
}

@test "--unwind dwarf, a musl static program: its mappings' stacks, as --unwind fp takes them" {
	need_uprobes
	[ -x "$PROGS/ucount-musl" ] || skip "no musl-gcc (musl-tools): ucount-musl not built"
	# musl keeps no call frame information: where its system call's
	# wrapper returns to is the first word on the stack that is code, as
	# fp takes it; before, no mapping of dwarf's had a stack.
	mt-record --uprobes --unwind fp -o f.mtr -- "$PROGS/ucount-musl" >/dev/null 2>&1
	mt-record --uprobes --unwind dwarf -o d.mtr -- "$PROGS/ucount-musl" >/dev/null 2>&1
	maps() {
		mt-symbolize "$1" | mt-lifetime -q | mt-group --by heap,stack --format tsv |
			awk -F'\t' '$1 == "mmap" || $1 == "reserve"'
	}
	run -0 bash -c "mt-decode d.mtr | awk -F'\t' '\$1 == \"alloc\" && \$5 != \"malloc\" { n++; s += \$8 != \"-\" } END { print n, s }'"
	[ "${output% *}" -ge 100 ] && [ "${output#* }" = "${output% *}" ]
	diff <(maps f.mtr) <(maps d.mtr)
}

@test "--uprobes: the command's exit status and signal are mt-record's" {
	need_uprobes
	run -3 mt-record --uprobes -o e.mtr -- sh -c 'exit 3'
	mt-decode e.mtr | grep -q $'^exit\t[0-9]*\t[0-9]*\t3$'
	run -137 mt-record --uprobes -o k.mtr -- sh -c 'kill -9 $$'
	run -127 mt-record --uprobes -o n.mtr -- no-such-command-here
	[ ! -e n.mtr ]
}

@test "--uprobes refusals: not root, no BTF; nothing run, exit 2" {
	need_uprobes
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	d=$(mktemp -d /tmp/mt-uprobes.XXXXXX)
	chmod 755 "$d"
	cp "$MT_BINDIR/mt-record" "$PROGS/ucount" "$d/"
	chmod 755 "$d/mt-record" "$d/ucount"
	run -2 --separate-stderr setpriv --reuid 65534 --regid 65534 --clear-groups \
		"$d/mt-record" --uprobes -o "$d/x.mtr" -- "$d/ucount"
	rm -rf "$d"
	[ -z "$output" ]
	has_line "$stderr" '^mt-record: --uprobes needs root \(or CAP_BPF and CAP_PERFMON\): run mt-record as root, or without --uprobes$'
	# A kernel without BTF: its /sys/kernel/btf hidden in a mount namespace of its own.
	unshare -m true 2>/dev/null || skip "no mount namespace here (unshare -m) for the BTF case"
	run -2 --separate-stderr unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh \
		mt-record --uprobes -o b.mtr -- "$PROGS/ucount"
	[ -z "$output" ]
	[ "$stderr" = "mt-record: --uprobes: this kernel has no BTF (/sys/kernel/btf/vmlinux: No such file or directory; CONFIG_DEBUG_INFO_BTF): record with LD_PRELOAD instead" ]
	[ ! -e b.mtr ]
	# Without BTF, a static program runs as before, not through uprobes.
	run -0 --separate-stderr unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh \
		mt-record -o s.mtr -- "$PROGS/ucount-static"
	has_line "$stderr" "LD_PRELOAD cannot see into; as root, mt-record records it through uprobes$"
}

@test "no --uprobes: a static program and a script run by one, recorded through uprobes by themselves, said" {
	need_uprobes
	run -0 --separate-stderr mt-record -o s.mtr -- "$PROGS/ucount-static"
	echo "$output" >own.txt
	has_line "$stderr" "^mt-record: $PROGS/ucount-static: it is statically linked, which LD_PRELOAD cannot see into: recorded through uprobes$"
	mt-decode s.mtr | grep -q "^# mt-record: recorded through uprobes, .*; LD_PRELOAD is blind to $PROGS/ucount-static: it is statically linked$"
	[ "$(own_rows s.mtr | awk -F'\t' '{ n += $3; b += $4 } END { print n, b }')" = \
		"$(awk '{ print $2, $6 }' own.txt)" ]
	printf '#!%s\n' "$PROGS/ucount-static" >script
	chmod +x script
	run -0 --separate-stderr mt-record -o sc.mtr -- ./script
	has_line "$stderr" "^mt-record: ./script: its interpreter $PROGS/ucount-static: it is statically linked, which LD_PRELOAD cannot see into: recorded through uprobes$"
	diff <(own_rows s.mtr) <(own_rows sc.mtr)
}

@test "no --uprobes: a program with an allocator of its own, recorded through uprobes by itself" {
	need_uprobes
	run -0 --separate-stderr mt-record -o o.mtr -- "$PROGS/ownmalloc"
	has_line "$stderr" "^mt-record: $PROGS/ownmalloc: it has an allocator of its own \(it defines malloc\), which LD_PRELOAD cannot see into: recorded through uprobes$"
	# Its realloc's own malloc and free are inside a call recorded: the
	# trace has the realloc, and the free of the old block, as the program counts.
	[ "$output" = "allocs $(mt-decode o.mtr | grep -c '^alloc.*	malloc	') frees $(mt-decode o.mtr | grep -c '^free.*	malloc	')" ]
	[ "$output" = "allocs 1003 frees 1000" ]
	# The 3 blocks left, from main.
	mt-symbolize o.mtr | mt-lifetime -q | mt-group --by heap,function --format tsv | grep -q $'^malloc\tmain\t1003\t259750\t3000\t'
}

@test "no --uprobes: a set-user-ID program of another user, recorded through uprobes by itself" {
	need_uprobes
	cp "$PROGS/ucount" suid
	chown nobody suid
	chmod u+s,a+rx suid
	chmod a+rx "$BATS_TEST_TMPDIR"
	setpriv --reuid 65534 --regid 65534 --clear-groups test -x suid ||
		skip "uid 65534 cannot run a program in $PWD"
	run -0 --separate-stderr mt-record -o su.mtr -- ./suid
	echo "$output" >own.txt
	has_line "$stderr" '^mt-record: ./suid: it is set-user-ID or set-group-ID, which LD_PRELOAD cannot see into: recorded through uprobes$'
	[ "$(trace_counts su.mtr)" = "$(counts_of own.txt)" ]
}

@test "--alloc-fn: a pool's own functions, its blocks a heap of their own, its chunks malloc's" {
	need_uprobes
	run -0 --separate-stderr mt-record --alloc-fn 'pool_get@2:pool_put@2' -o pool.mtr -- "$PROGS/pool"
	# "gets 2005 puts 2000 bytes 127116 chunks 3"
	read -r _ gets _ puts _ bytes _ chunks <<<"$output"
	run -0 --separate-stderr bash -c 'mt-symbolize pool.mtr | mt-lifetime -q | mt-group --by heap,function --format tsv'
	# Every block of the pool, its size asked, the 5 left named by main.
	has_line "$output" "^pool_get	main	$gets	$bytes	500	"
	[ "$(mt-decode pool.mtr | awk -F'\t' '$1 == "free" && $5 == "pool_get"' | wc -l)" = "$puts" ]
	# The chunks: malloc's, from inside pool_get, freed at the end.
	has_line "$output" "^malloc	pool_get	$chunks	$((chunks * 65536))	0	"
}

@test "--alloc-fn: a call left by longjmp, its return never seen; the calls after it recorded" {
	need_uprobes
	run -0 --separate-stderr mt-record --alloc-fn 'my_get:my_put' -o j.mtr -- "$PROGS/ljmp"
	# "gets N puts N jumps N"
	read -r _ gets _ puts _ jumps <<<"$output"
	[ "$jumps" -gt 0 ]
	[ "$(mt-decode j.mtr | awk -F'\t' '$1 == "alloc" && $5 == "my_get"' | wc -l)" = "$gets" ]
	[ "$(mt-decode j.mtr | awk -F'\t' '$1 == "free" && $5 == "my_get"' | wc -l)" = "$puts" ]
	msg="$jumps calls' returns not seen (a longjmp out of an allocation function, or uretprobes the kernel dropped): their blocks are not in the trace"
	grep -qxF "mt-record: $msg" <<<"$stderr"
	mt-decode j.mtr | grep -qF "# mt-record: $msg"
}

@test "--alloc-fn refusals: a function the program lacks, a bad spec; exit 2, nothing run" {
	need_uprobes
	run -2 --separate-stderr mt-record --alloc-fn 'nope@2:pool_put@2' -o x.mtr -- "$PROGS/pool"
	[ -z "$output" ]
	[ "$stderr" = "mt-record: --alloc-fn: nope: no such function in $PROGS/pool (not built with its symbols, or inlined?)" ]
	[ ! -e x.mtr ]
	for bad in pool_get 'pool_get@7:pool_put' 'pool_get:' ':pool_put' 'a b:c'; do
		run -2 --separate-stderr mt-record --alloc-fn "$bad" -o x.mtr -- "$PROGS/pool"
		[ "$stderr" = "mt-record: --alloc-fn: '$bad': not ALLOC[@N]:FREE[@N] (function names; N, the argument holding the size or the block, 1 to 6)" ]
	done
}

@test "--uprobes: the mmap family by tracepoint, the same commits and reserves as the preload recording" {
	need_uprobes
	mt-record --uprobes -o u.mtr -- "$PROGS/mmap" >/dev/null 2>&1
	mt-record -o p.mtr -- "$PROGS/mmap" >/dev/null 2>&1
	# main's own calls, by line: committed, partly unmapped, reserved,
	# committed and decommitted by mprotect, grown by mremap.
	mains() {
		mt-symbolize "$1" | mt-lifetime -q | mt-group --by heap,function,line --format tsv |
			awk -F'\t' '$1 != "malloc" && $2 == "main"' | sort
	}
	[ "$(mains p.mtr | wc -l)" = 7 ]
	diff <(mains p.mtr) <(mains u.mtr)
	# The C library's own mapping (the stdout buffer's brk) is seen too.
	mt-decode u.mtr | grep -q $'^alloc\t[0-9]*\t[0-9]*\t[0-9]*\tmmap\t'
}

@test "--uprobes: brk's growth a commit, its shrinking a decommit, as sbrk and /proc say" {
	need_uprobes
	run -0 --separate-stderr mt-record --uprobes -o b.mtr -- "$PROGS/brk"
	# "brk START GROWN SHRUNK heap LO-HI"
	read -r _ b0 b1 b2 _ heap <<<"$output"
	up() { printf '0x%x' $((($1 + 4095) & ~4095)); }
	[ "$heap" = "${b0#0x}-$(up "$b2" | cut -c3-)" ]
	run -0 bash -c "mt-decode b.mtr | awk -F'\t' '\$1 == \"alloc\" || \$1 == \"free\"' | cut -f1,5-7"
	has_line "$output" "^alloc	mmap	$b0	$(($(up "$b1") - b0))$"
	has_line "$output" "^free	mmap	$(up "$b2")	-$"
	mt-lifetime -q b.mtr | awk -F'\t' -v lo="$(up "$b2")" '$1 == "life" && $7 == lo && $3 != "-" { f = 1 } END { exit !f }'
}

# The allocations, frees and bytes allocated by malloc of pid's last
# program (after its last proc line: a forked shell's exec) in a trace.
pid_counts() {	# TRACE PID
	mt-decode "$1" | awk -F'\t' -v pid="$2" '$1 == "proc" && $2 == pid { a = f = b = 0 }
		$5 != "malloc" || $3 != pid { next }
		$1 == "alloc" { a++; b += $7 } $1 == "free" { f++ }
		END { print a + 0, f + 0, b + 0 }'
}

@test "--uprobes follows a fork: the child's own counts, its parent's mapping unmapped, its exit" {
	need_uprobes
	run -0 --separate-stderr mt-record --uprobes -o f.mtr -- "$PROGS/ufork"
	# "mapped ADDR SIZE", "child PID allocs N frees N bytes N", "parent PID ..."
	read -r _ addr size <<<"$(sed -n 1p <<<"$output")"
	read -r _ child _ ca _ cf _ cb <<<"$(grep '^child' <<<"$output")"
	read -r _ parent _ pa _ pf _ pb <<<"$(grep '^parent' <<<"$output")"
	[ "$(pid_counts f.mtr "$child")" = "$ca $cf $cb" ]
	# The parent's own, and the C library's stdout buffer.
	[ "$(pid_counts f.mtr "$parent")" = "$((pa + 1)) $pf $((pb + 4096))" ]
	run -0 mt-decode f.mtr
	has_line "$output" "^proc	$child	$parent	[0-9]+	$PROGS/ufork	$PROGS/ufork$"
	has_line "$output" "^exit	[0-9]+	$child	5$"
	has_line "$output" "^exit	[0-9]+	$parent	0$"
	# The mapping made before the fork is the child's too: its munmap has the size.
	has_line "$output" "^free	[0-9]+	$child	$child	mmap	$(printf '0x%x' "$addr")	-	$size$"
	has_line "$stderr" "^mt-record: [0-9]+ events, 2 processes, "
	# -n: the command alone, its child run untraced and unstopped.
	run -0 --separate-stderr mt-record --uprobes -n -o n.mtr -- "$PROGS/ufork"
	grep -q '^child' <<<"$output"
	[ "$(mt-decode n.mtr | grep -c '^proc')" = 1 ]
	has_line "$stderr" "^mt-record: [0-9]+ events, 1 process, "
}

@test "--uprobes where tracefs is not mounted: mounted for the tracepoints, as it was after" {
	need_uprobes
	unshare -m true 2>/dev/null || skip "no mount namespace here (unshare -m)"
	run -0 --separate-stderr unshare -m sh -c '
		for m in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do
			umount "$m" 2>/dev/null
		done
		! grep -q tracefs /proc/mounts || exit 9
		mt-record --uprobes -o t.mtr -- "$1" || exit
		! grep -q tracefs /proc/mounts || exit 8' sh "$PROGS/mmap"
	# The mmap family's calls came by the tracepoints.
	[ "$(mt-decode t.mtr | awk -F'\t' '$1 == "alloc" && $5 == "reserve"' | wc -l)" -ge 1 ]
}

@test "--uprobes follows an exec: a shell's static and dynamic children, each probed before it runs" {
	need_uprobes
	run -0 --separate-stderr mt-record --uprobes -o e.mtr -- \
		sh -c "\"$PROGS/ucount-static\" >s.txt && \"$PROGS/ucount\" >d.txt && echo \$\$"
	sh=$output
	run -0 mt-decode e.mtr
	static=$(awk -F'\t' -v exe="$PROGS/ucount-static" '$1 == "proc" && $5 == exe { print $2 }' <<<"$output")
	dynamic=$(awk -F'\t' -v exe="$PROGS/ucount" '$1 == "proc" && $5 == exe { print $2 }' <<<"$output")
	[ -n "$static" ] && [ -n "$dynamic" ]
	has_line "$output" "^proc	$static	$sh	[0-9]+	"
	has_line "$output" "^exit	[0-9]+	$static	0$"
	# The static program: main's allocations as it counts them, and glibc's
	# start-up's; the dynamic one: every one, as it counts them.
	[ "$(pid_counts e.mtr "$dynamic")" = "$(counts_of d.txt)" ]
	read -r n _ b <<<"$(pid_counts e.mtr "$static")"
	read -r own _ ownb <<<"$(counts_of s.txt)"
	[ "$n" -ge "$own" ] && [ "$b" -ge "$ownb" ]
	# Its 7 leaks, named by their function: its own symbols probed at its exec.
	mt-symbolize e.mtr 2>/dev/null | mt-lifetime -q | mt-group --by pid,heap,function --format tsv |
		grep -q "^$static	malloc	leak_here	7	28021	28021	"
}

@test "--uprobes: a vfork child's calls, made in its parent's memory, each seen once" {
	need_uprobes
	# The parent's probes fire in the child as well as the child's own
	# until its exec: before, a call was seen twice, the second entry
	# counted as a call whose return was lost, and a free sent twice.
	run -0 --separate-stderr mt-record --uprobes -o v.mtr -- "$PROGS/uexec" -v
	has_line "$output" '^child [0-9]+ exit 6$'
	[[ "$stderr" =~ ^mt-record:\ [0-9]+\ events,\ 2\ processes,\ [0-9]+\ bytes\ written\ to\ v\.mtr$ ]]
	# Its block of 4321 bytes, allocated once and freed once.
	run -0 bash -c "mt-decode v.mtr | awk -F'\t' '
		\$1 == \"alloc\" && \$5 == \"malloc\" && \$7 == 4321 { a++; at = \$6 }
		\$1 == \"free\" && \$5 == \"malloc\" { f[\$6]++ }
		END { print a + 0, f[at] + 0 }'"
	[ "$output" = "1 1" ]
	# dash runs a command by vfork (another sh may not): nothing said but
	# the summary.
	run -0 --separate-stderr mt-record --uprobes -o s.mtr -- sh -c 'true; /bin/true'
	[[ "$stderr" =~ ^mt-record:\ [0-9]+\ events,\ 2\ processes,\ [0-9]+\ bytes\ written\ to\ s\.mtr$ ]]
}

# PROG, whose own line is "allocs N frees N bytes N": recorded with no
# option, through uprobes by itself, every call of the allocator's own
# API as the program counts it; its library probed at its entry.
allocator_api() {	# PROG FUNCTION LIBRARY
	need_uprobes
	[ -x "$PROGS/$1" ] || skip "$1 not built (its allocator's -dev package missing)"
	run -0 --separate-stderr mt-record -o a.mtr -- "$PROGS/$1"
	echo "$output" >own.txt
	has_line "$stderr" "^mt-record: $PROGS/$1: it calls $2, an allocator's own function, which LD_PRELOAD cannot see into: recorded through uprobes$"
	mt-decode a.mtr | grep -q "^# mt-record: at the program's entry, [0-9]* functions probed in .*/$3"
	[ "$(trace_counts a.mtr)" = "$(counts_of own.txt)" ]
}

@test "jemalloc's own API (mallocx, rallocx, sdallocx, dallocx), from its shared library" {
	allocator_api jemx mallocx libjemalloc.so.2
	# rallocx's sizes, as the program asked them, by line.
	run -0 --separate-stderr bash -c 'mt-symbolize a.mtr | mt-lifetime -q | mt-group --by heap,function,line --format tsv'
	has_line "$output" $'^malloc\tmain\ttests/progs/jemx.c:[0-9]*\t300\t1244850\t0\t'
}

@test "mimalloc's own API (mi_malloc, mi_zalloc, mi_calloc, mi_realloc, mi_free)" {
	allocator_api mimx mi_malloc 'libmimalloc.so.*'
}

@test "-p --uprobes: a running process recorded without ptrace, runs on unchanged" {
	need_uprobes
	start_target "$PROGS/attach-target" 2000
	sleep 0.3
	# Its files mapped: no library of ours goes in.
	files() { awk '$6 ~ /^\//' "/proc/$TARGET/maps"; }
	files >maps.before
	# Its private anonymous mappings, committed or reserved (the oracle
	# for the trace's mappings made before recording).
	awk '$5 == 0 && NF == 5 && $2 ~ /^(.w.|---)p$/ { split($1, r, "-")
		print ($2 == "---p" ? "reserve" : "mmap"), r[1], r[2] }' "/proc/$TARGET/maps" |
		while read -r heap lo hi; do printf '%s 0x%x %d\n' "$heap" "0x$lo" $((0x$hi - 0x$lo)); done |
		sort >anon.before
	ppid=$(awk '{ print $4 }' "/proc/$TARGET/stat")
	mt-record -p "$TARGET" --uprobes -d 2s -o p.mtr 2>rec.err &
	rec=$!
	# Its first malloc in the trace: the probes are in (60 s at most: a
	# loop without a bound held a fresh machine's CI for ever when the
	# target had ended before they were).
	for _ in $(seq 1200); do
		mt-decode p.mtr 2>/dev/null | grep -q $'\tmalloc\t' && break
		kill -0 "$rec" 2>/dev/null || break
		sleep 0.05
	done
	mt-decode p.mtr | grep -q $'\tmalloc\t' || { echo "no malloc recorded: $(cat rec.err)"; false; }
	# While recorded: not stopped, not traced, nothing loaded into it.
	[ "$(awk '{ print $3 }' "/proc/$TARGET/stat")" != T ]
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$TARGET/status"
	diff maps.before <(files)
	wait $rec
	has_line "$(cat rec.err)" "^mt-record: pid $TARGET runs on, untraced: its probes are gone$"
	! grep "returns not seen" rec.err || false
	wait_target
	[ "$(cat status.txt)" = 3 ]
	counted_to 2000
	grep -qx 'malloc: libc.so.6' err.txt
	run -0 mt-decode p.mtr
	has_line "$output" "^# mt-record: attached through uprobes to pid $TARGET, "
	has_line "$output" "^proc	$TARGET	$ppid	[0-9]+	$PROGS/attach-target	$PROGS/attach-target 2000$"
	! has_line "$output" '^exit	' || false
	# Its mappings before recording, with no time: a later munmap has a size.
	[ -s anon.before ]
	diff anon.before <(awk -F'\t' '$1 == "alloc" && $2 == "-" { print $5, $6, $7 }' <<<"$output" | sort)
	# A line every 5 ms for two seconds, each leaking 100 bytes in leak_here.
	leaks=$(mt-symbolize p.mtr | mt-lifetime -q | awk -F'\t' '$1 == "life" && $8 == 100 && $3 == "-" { n++ } END { print n + 0 }')
	[ "$leaks" -ge 100 ]
	mt-symbolize p.mtr | mt-lifetime -q | mt-group --by function --format tsv | grep -q '^leak_here	'
}

@test "-p --uprobes: the process ends while recorded: its exit, the recording's end" {
	need_uprobes
	start_target "$PROGS/attach-target" 100
	run -0 --separate-stderr mt-record -p "$TARGET" --uprobes -o e.mtr
	wait_target
	counted_to 100
	mt-decode e.mtr | grep -q "^exit	[0-9]*	$TARGET	-$"
	run -2 --separate-stderr mt-record -p 999999999 --uprobes -o n.mtr
	[ "$stderr" = "mt-record: pid 999999999: no such process" ]
	[ ! -e n.mtr ]
}

@test "tcmalloc's own API (tc_malloc, tc_calloc, tc_realloc, tc_free)" {
	allocator_api tcx tc_malloc 'libtcmalloc_minimal.so.*'
}

# Ranges "LO HI" (numbers bash reads: 0x...) merged where they touch, as "lo-hi" in hex.
merged() {
	local lo hi l='' h=''
	while read -r lo hi; do printf '%016x %016x\n' $((lo)) $((hi)); done | sort |
	{
		while read -r lo hi; do
			lo=$((16#$lo)) hi=$((16#$hi))
			if [ -n "$l" ] && [ "$lo" = "$h" ]; then
				h=$hi
			else
				[ -z "$l" ] || printf '%x-%x\n' "$l" "$h"
				l=$lo h=$hi
			fi
		done
		[ -z "$l" ] || printf '%x-%x\n' "$l" "$h"
	}
}

@test "a static Go program: its runtime's mappings, as /proc has them at its end" {
	need_uprobes
	need_go
	cp "$PROGS/goheap.go" main.go
	CGO_ENABLED=0 go build -o goheap main.go
	# Static: recorded through uprobes by itself, as root.
	run -0 --separate-stderr mt-record -o g.mtr -- ./goheap
	has_line "$stderr" '^mt-record: ./goheap: it is statically linked, which LD_PRELOAD cannot see into: recorded through uprobes$'
	[ "$(tail -1 <<<"$output")" = "kept 64" ]
	mt-decode g.mtr | grep -q '^# mt-record: recorded through uprobes; ./goheap is a Go program: the mappings its runtime makes (the mmap family, by tracepoint), not the objects it allocates inside them; LD_PRELOAD is blind to ./goheap: it is statically linked$'
	# Go keeps frame pointers, and has no .eh_frame to copy stacks by.
	mt-decode g.mtr | grep -q '^# mt-record: pid [0-9]*: stacks by --unwind fp: its frame pointers$'
	# Its anonymous mappings as it printed them (but the executable's
	# .bss, below 4 GiB, which exec made), against the trace's commits
	# (heap mmap) and reserves alive at its end.
	for way in rw-p:mmap ---p:reserve; do
		awk -v p="${way%:*}" '$2 == p { split($1, r, "-"); if (length(r[1]) > 8) print "0x" r[1], "0x" r[2] }' \
			<<<"$output" | merged >proc.txt
		[ -s proc.txt ]
		mt-lifetime -q g.mtr | awk -F'\t' -v h="${way#*:}" '$1 == "life" && $6 == h && $12 == "exit" { print $7, $8 }' |
			while read -r a s; do echo "$a" $((a + s)); done | merged >trace.txt
		diff proc.txt trace.txt
	done
	# The 64 MiB it keeps: committed under main.grow, once the runtime's own frames are passed.
	mt-symbolize g.mtr | mt-lifetime -q | mt-group -k heap,function -A '^runtime\.' -F tsv 2>/dev/null |
		awk -F'\t' '$1 == "mmap" && $2 == "main.grow" && $4 >= 64 * 1048576 { f = 1 } END { exit !f }'
	# Its frames with file:line (Go writes no .debug_aranges), each as
	# binutils' addr2line has the call (the byte before the return address).
	mt-symbolize g.mtr 2>/dev/null | awk -F'\t' '$1 == "sym" && $5 ~ /goheap$/' >syms.txt
	[ "$(awk -F'\t' '$4 == "-"' syms.txt | wc -l)" = 0 ] || { awk -F'\t' '$4 == "-"' syms.txt | head; false; }
	grep -q $'\tmain\.grow\t.*/main\.go:[0-9]*\t' syms.txt
	while IFS=$'\t' read -r _ ip fn fl _; do
		[ "$(addr2line -e goheap "$(printf '0x%x' $((ip - 1)))")" = "$fl" ] || { echo "$ip $fn $fl"; false; }
	done < <(head -n 20 syms.txt)
}

# A trace's stacks of unofp's malloc through main, folded (callers first)
# with the start-up frames as one, each with its bytes.
main_stacks() {
	mt-symbolize "$1" | mt-lifetime -q | mt-group -M -F folded 2>/dev/null |
		grep -E '(^|;)main;.*;leaf [0-9]+$' | sort
}

@test "--uprobes, a program built without frame pointers: its stacks copied, each as libunwind's" {
	need_uprobes
	run -0 --separate-stderr mt-record --uprobes -o u.mtr -- "$PROGS/unofp" 4
	[ "$output" = "allocs 32 frees 27" ]
	mt-decode u.mtr | grep -q '^# mt-record: pid [0-9]*: stacks by --unwind dwarf: 8192 bytes of its stack copied at each event, unwound by the call frame information$'
	mt-decode u.mtr | grep -q '^# mt-record: stacks taken by --unwind fp in 0 processes, dwarf in 1$'
	# libunwind, in the preload library: an unwinder of its own.
	mt-record --unwind libunwind -o p.mtr -- "$PROGS/unofp" 4 >/dev/null 2>&1
	main_stacks p.mtr >p.txt
	# main's ten, the thread's twenty (not through main), deep's one, the
	# signal handler's one.
	[ "$(grep -c ';top;mid;leaf ' p.txt)" -ge 1 ]
	grep -q ';deep;deep;deep;deep;deep;leaf 7777$' p.txt
	# Through the kernel's signal frame, to the frame raise was in.
	grep -q ';main;__GI_raise;.*;on_signal;top;mid;leaf 4010$' p.txt
	diff p.txt <(main_stacks u.mtr)
	mt-symbolize u.mtr | mt-lifetime -q | mt-group -M -F folded 2>/dev/null |
		grep -q '^unofp;\[start-up\];thread_main;top;mid;leaf 60190$'
	# Frame pointers alone do not get past leaf: the two ways differ.
	mt-record --uprobes --unwind fp -o f.mtr -- "$PROGS/unofp" 4 >/dev/null 2>&1
	mt-decode f.mtr | grep -q '^# mt-record: pid [0-9]*: stacks by --unwind fp: its frame pointers$'
	! grep -q ';top;mid;leaf ' <(main_stacks f.mtr) || false
	# The heap's first growth, brk inside malloc: its stack goes through
	# the kernel's uretprobe trampoline, put back, to main.
	mt-symbolize u.mtr | mt-lifetime -q | mt-group -M -F folded 2>/dev/null |
		grep -q ';main;top;mid;leaf;__GI___libc_malloc;.*;__GI___sbrk [0-9]*$'
}

@test "--unwind dwarf:SIZE: a stack deeper than the copy ends with it; one as large holds it whole" {
	need_uprobes
	# 30 frames of 512 bytes and more: 16 KiB of stack under leaf.
	mt-record --uprobes --unwind dwarf -o d8.mtr -- "$PROGS/unofp" 30 >/dev/null 2>&1
	mt-record --uprobes --unwind dwarf:64K -o d64.mtr -- "$PROGS/unofp" 30 >/dev/null 2>&1
	mt-decode d64.mtr | grep -q '^# mt-record: pid [0-9]*: stacks by --unwind dwarf: 65536 bytes of its stack copied at each event'
	main_stacks d64.mtr | grep -q "main;$(printf 'deep;%.0s' $(seq 31))leaf 7777\$"
	! main_stacks d8.mtr | grep -q ';deep;.*leaf 7777$' || false
	# 8 KiB whatever sp's place in its page: 14 frames of 512 bytes at least.
	mt-symbolize d8.mtr | mt-lifetime -q | mt-group -F folded | grep -q "^unofp;$(printf 'deep;%.0s' $(seq 14))[de;p]*leaf 7777\$"
	# The refusals: a size out of bounds, a method of the preload library's.
	run -2 --separate-stderr mt-record --uprobes --unwind dwarf:1K -- true
	[ "$stderr" = "mt-record: bad stack copy size '1K' (4K to 64K)" ]
	run -2 --separate-stderr mt-record --uprobes --unwind shadow -- true
	[ "$stderr" = "mt-record: --unwind shadow: not with --uprobes: fp, or dwarf[:SIZE]" ]
}

@test "--unwind dwarf: a program that puts a FIFO where its executable was: read before, not waited on" {
	need_uprobes
	cp "$PROGS/uswap" x
	run -0 --separate-stderr timeout 60 mt-record --uprobes -o s.mtr -- ./x
	[ "$output" = swapped ]
	[ -p x ]
	mt-decode s.mtr | grep -q '^# mt-record: pid [0-9]*: stacks by --unwind dwarf: '
	# Its own file was read as it started, through /proc's link to the
	# file mapped: get's hundred blocks have main and the C library's
	# start above them (get and main unnamed: the FIFO is no ELF file).
	mt-symbolize s.mtr 2>/dev/null | mt-lifetime -q | mt-group -F folded 2>/dev/null |
		grep -q '^x;x+0x[0-9a-f]*;__libc_start_main_impl;__libc_start_call_main;x+0x[0-9a-f]*;x+0x[0-9a-f]* 14950$'
}
