#!/usr/bin/env bats
# The same command recorded both ways, through the preload library and
# through BPF uprobes (--uprobes): the same proc and exit lines, the map
# lines as far as both can know them, and the same lifetimes in the same
# order (issue 40).  Pids differ from run to run: each is replaced by
# its order of first appearance.  Not here, as the two ways still
# differ: a vfork child before its exec (dash runs commands so), a
# process of its own from its fork through uprobes, its parent until
# its exec to the preload library, which cannot run in it; and the
# map lines' build-ids (maps, below).

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The proc lines' programs of trace $1, one a line.
programs() {
	mt-decode "$1" | awk -F'\t' '$1 == "proc" { print $5 }'
}

@test "a program run through a symbolic link: named by the link, both ways and attached to" {
	need_uprobes
	here=$(pwd -P)
	ln -s "$PROGS/uexec" link
	# Run by a relative path: made absolute by the directory it ran in.
	# The parent, its forked child, and the child's exec of ./link.
	mt-record -o p.mtr -- ./link >/dev/null 2>&1
	mt-record --uprobes -o u.mtr -- ./link >/dev/null 2>&1
	[ "$(programs p.mtr | sort | uniq -c | awk '{ print $1, $2 }')" = "3 $here/link" ]
	[ "$(programs u.mtr | sort | uniq -c | awk '{ print $1, $2 }')" = "3 $here/link" ]
	# Attached to, by an absolute path: the link too (a relative one is
	# the file's path: where it ran from is not known), and the default
	# output is named after it.
	ln -s "$PROGS/attach-target" at-link
	start_target "$here/at-link" 3000
	run -0 --separate-stderr mt-record -p "$TARGET" --uprobes -d 0.5s
	has_line "$stderr" "^mt-record: [0-9]+ events, 1 process, [0-9]+ bytes written to mt\\.at-link\\.$TARGET\\.mtr$"
	[ "$(programs "mt.at-link.$TARGET.mtr")" = "$here/at-link" ]
	mt-record -p "$TARGET" -d 0.5s -o a.mtr 2>/dev/null
	[ "$(programs a.mtr)" = "$here/at-link" ]
	kill "$TARGET"
	wait_target
}

# CMD... recorded both ways, into p.mtr and u.mtr: at the nanosecond (at
# 100 ns two allocations may share a time, and sort either way), and
# with the address space not randomized where setarch can say so (the
# mappings made before the preload library's then have the same address).
record_both() {
	local fixed=
	setarch -R true 2>/dev/null && fixed="setarch -R"
	$fixed mt-record --time-resolution 1ns -o p.mtr -- "$@" >p.out 2>p.err
	$fixed mt-record --uprobes --time-resolution 1ns -o u.mtr -- "$@" >u.out 2>u.err
}

# Lines of a trace or of mt-lifetime, each pid replaced by its order of
# first appearance in the proc lines (the pid of a map, an exit, a life).
numbered() {
	awk -F'\t' -v OFS='\t' '
		function id(p) { if (!(p in n)) n[p] = ++k; return "P" n[p] }
		$1 == "proc" { $2 = id($2); $3 = id($3) }
		$1 == "map" { $2 = id($2) }
		$1 == "exit" { $3 = id($3) }
		$1 == "life" { $4 = id($4) }
		{ print }'
}

# The proc and exit lines, their times left out.
procs() {
	mt-decode "$1" | numbered | awk -F'\t' -v OFS='\t' '
		$1 == "proc" { print $1, $2, $3, $5, $6 }
		$1 == "exit" { print $1, $3, $4 }'
}

# The map lines, by process and file, as far as both ways agree:
# - the file's path resolved: the preload library names a library as
#   the dynamic linker found it (/lib/..., /lib64/ld-linux...), uprobes
#   as /proc's maps do (/usr/lib/...);
# - the size in pages: the preload library says where the segment's
#   bytes end, /proc where its last page does;
# - the address of what the kernel mapped before the preload library
#   (the program, [vdso], the dynamic linker) alone: the libraries after
#   it are mapped lower by its size and its dependencies';
# - no build-id: uprobes reads none (-);
# - in no order: the preload library says them in the dynamic linker's,
#   uprobes in the addresses'.
# The preload library's own files, and those of its dependencies the
# program does not load itself (libunwind...), are left out.
maps() {	# TRACE PROGRAM
	local ours
	ours=$(mt-decode p.mtr | awk -F'\t' '$1 == "map" && $7 ~ /\/libmt-preload\.so$/ { print $7; exit }')
	ours="$ours $(comm -23 <(ldd "$ours" | awk '$3 ~ /^\// { print $3 }' | xargs -r realpath | sort) \
		<(ldd "$2" | awk '$3 ~ /^\// { print $3 }' | xargs -r realpath | sort))"
	mt-decode "$1" | numbered | OURS="$ours" EXE=$(realpath "$2") perl -F'\t' -lane '
		use Cwd "abs_path";
		BEGIN { %ours = map { (abs_path($_) // $_) => 1 } split " ", $ENV{OURS} }
		next unless $F[0] eq "map";
		no warnings "portable";
		$path = $F[6] =~ m{^/} ? (abs_path($F[6]) // $F[6]) : $F[6];
		next if $ours{$path};
		$pages = (hex($F[3]) - hex($F[2]) + 4095) >> 12;
		$lo = $path =~ m{^\[vdso\]$|/ld-linux[^/]*$} || $F[6] eq $ENV{EXE} ? $F[2] : "";
		print join " ", $F[1], $path, $F[4], $pages, $lo' | sort
}

# The lifetimes of each process's malloc heap, in the order of their
# allocations: "P# size freed", or "exit" for a block its process's end
# took.
lifes() {
	mt-lifetime -q "$1" | numbered | awk -F'\t' '
		$1 == "life" && $6 == "malloc" { print $4, $2, $8, ($11 == "exit" ? "exit" : "freed") }' |
		sort -s -k1,1 -k2,2n | awk '{ print $1, $3, $4 }'
}

# CMD recorded both ways: the same proc and exit lines, maps and lifetimes.
same_both_ways() {	# PROGRAM-FILE CMD...
	local prog=$1
	shift
	record_both "$@"
	diff <(procs p.mtr) <(procs u.mtr)
	diff <(maps p.mtr "$prog") <(maps u.mtr "$prog")
	diff <(lifes p.mtr) <(lifes u.mtr)
	# Not nothing.
	[ "$(procs u.mtr | grep -c '^exit')" -ge 1 ] && [ "$(maps u.mtr "$prog" | wc -l)" -ge 4 ] &&
		[ "$(lifes u.mtr | wc -l)" -ge 3 ]
}

@test "a program that forks: the same processes, maps and lifetimes both ways" {
	need_uprobes
	same_both_ways "$PROGS/ufork" "$PROGS/ufork"
}

@test "a program whose child execs it again: the same processes, maps and lifetimes both ways" {
	need_uprobes
	same_both_ways "$PROGS/uexec" "$PROGS/uexec"
	# The exec: a second proc line for the child, its exit after.
	[ "$(procs u.mtr | awk -F'\t' '{ print $1, $2 }' | tr '\n' ' ')" = "proc P1 proc P3 proc P3 exit P3 exit P1 " ]
}

@test "a program run through a symbolic link: the same processes, maps and lifetimes both ways" {
	need_uprobes
	ln -s "$PROGS/ucount" link
	same_both_ways link ./link
	[ "$(lifes u.mtr | wc -l)" -ge 500 ]
}

@test "through perf events as through multi-probe links: the same processes, maps and lifetimes" {
	need_uprobes
	need_multi_links
	record_both "$PROGS/ufork"
	local fixed=
	setarch -R true 2>/dev/null && fixed="setarch -R"
	MT_UPROBE_MULTI=0 $fixed mt-record --uprobes --time-resolution 1ns -o e.mtr -- \
		"$PROGS/ufork" >e.out 2>e.err
	mt-decode e.mtr | grep -q '^# mt-record: probes by perf events, one a function and process'
	mt-decode u.mtr | grep -q '^# mt-record: probes in multi-probe links'
	diff <(procs u.mtr) <(procs e.mtr)
	diff <(maps u.mtr "$PROGS/ufork") <(maps e.mtr "$PROGS/ufork")
	diff <(lifes u.mtr) <(lifes e.mtr)
	[ "$(lifes e.mtr | wc -l)" -ge 3 ]
}
