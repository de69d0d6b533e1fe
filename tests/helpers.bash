# Shared by every tests/*.bats.  MT_BINDIR points the tests at another
# build, the installed tools say.
# bats's run, given flags, sets a global i (its version check): a loop
# around run or a helper that calls it counts with another name.
bats_require_minimum_version 1.5.0

TESTS=$(cd "$BATS_TEST_DIRNAME" && pwd)
MT_BINDIR=${MT_BINDIR:-$TESTS/../cmd}
PROGS=$TESTS/progs
export PATH="$MT_BINDIR:$TESTS/../share:$PATH"
# verify_asan_link_order: a test may preload a library into mt-record's
# own environment (for the command it runs).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:verify_asan_link_order=0}

# Totals of the malloc heap in a trace: "allocs frees bytes".
heap_totals() {
	mt-decode "$1" | awk -F'\t' '
		$1 == "alloc" && $5 == "malloc" { a++; b += $7 }
		$1 == "free" && $5 == "malloc" { f++ }
		END { printf "%d %d %d\n", a, f, b }'
}

# valgrind's "total heap usage" as "allocs frees bytes".  glibc's
# freeres is not run: a program traced normally does not run it either.
# The program sees what it sees under mt-record: its output in files (a
# pipe or a terminal is buffered otherwise), the variables mt-record sets
# (values of the same length), and not the three that Debian's valgrind
# wrapper adds (LD_LIBRARY_PATH, GLIBCPP_FORCE_NEW, GLIBCXX_FORCE_NEW).
valgrind_totals() {
	local vg=valgrind dir
	command -v valgrind.bin >/dev/null && vg=valgrind.bin
	dir=$(mktemp -d)
	MT_RECORD_SOCKET=mt-record-00000000-0000000 MT_RECORD_DEPTH=64 \
	MT_RECORD_FLAGS=----- \
	$vg --tool=memcheck --run-libc-freeres=no --run-cxx-freeres=no \
		--trace-children="${VG_CHILDREN:-no}" --log-file="$dir/vg.%p" \
		"$@" >"$dir/out" 2>"$dir/err" </dev/null
	cat "$dir"/vg.* | awk '/total heap usage/ {
		gsub(",", ""); a += $5; f += $7; b += $9 }
		END { printf "%d %d %d\n", a, f, b }'
	rm -r "$dir"
}

# glibc's mtrace log as "allocs frees bytes" (realloc: a free and an alloc).
mtrace_totals() {
	perl -lane '$a++, $b += hex($F[4]) if $F[2] eq "+" || $F[2] eq ">";
		$f++ if $F[2] eq "-" || $F[2] eq "<";
		END { printf "%d %d %d\n", $a, $f, $b }' "$1"
}

# The ordering invariant: times never go back, and per (pid, heap,
# address) an allocation never meets a block that is still live -- which
# is what a free written after the allocation that reuses its address
# looks like.  Prints the first violation, or nothing.
check_order() {
	mt-decode "$1" | awk -F'\t' '
		($1 == "alloc" || $1 == "free" || $1 == "exit" || $1 == "proc" || $1 == "lost") && $2 != "-" {
			ts = ($1 == "proc") ? $4 : $2
			if (ts + 0 < last + 0) { print NR ": time goes back: " $0; exit }
			last = ts
		}
		$1 == "alloc" && $5 == "malloc" {
			k = $3 SUBSEP $6
			if (k in live) { print NR ": allocation of a live block: " $0; exit }
			live[k] = 1
		}
		$1 == "free" && $5 == "malloc" { delete live[$3 SUBSEP $6] }'
}

# Does text $1 have a line matching the Perl regex $2?
# peak_rss FILE CMD...: runs CMD, its status as its own; the peak RSS of
# it (in KiB) into FILE.  python3's rusage: a new machine has no
# /usr/bin/time.
peak_rss() {
	python3 -c 'import resource, subprocess, sys
r = subprocess.run(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode if r.returncode >= 0 else 128 - r.returncode)' "$@"
}

# rss_bound KB: the bound, or four times it for a sanitizer's build.
rss_bound() {
	if ldd "$MT_BINDIR/mt-decode" 2>/dev/null | grep -q libasan; then
		echo $(($1 * 4))
	else
		echo "$1"
	fi
}

has_line() {	# text pattern: a line of text matches the PCRE pattern
	[ $# = 2 ] || { echo "has_line: text and pattern, not $# arguments" >&2; return 2; }
	printf '%s\n' "$1" | grep -Pq -- "$2"
}

# go tool pprof, the oracle of mt-group --format pprof: its HOME,
# GOCACHE and GOPATH in the test's directory, so that it runs on a new
# machine, as root, with no network.  Skips the test where go is missing.
need_go() {
	command -v go >/dev/null ||
		skip "no go on this machine (golang-go): go tool pprof reads the profiles"
	export HOME=$BATS_TEST_TMPDIR/home GOCACHE=$BATS_TEST_TMPDIR/gocache \
		GOPATH=$BATS_TEST_TMPDIR/gopath GOPROXY=off GOTOOLCHAIN=local GOFLAGS=
	mkdir -p "$HOME"
}

# pprof_flat PROFILE ARGS...: the sum of go tool pprof -top's flat
# column, in bytes or objects, every node shown.
pprof_flat() {
	local f=$1
	shift
	go tool pprof -top -unit=B -nodefraction=0 "$@" "$f" |
		awk 'on { v = $1; sub(/B$/, "", v); s += v } /^ +flat +flat%/ { on = 1 } END { print s + 0 }'
}

# The WPA walkthrough (tests/progs/memtestapp.c), recorded for real once a
# file: wpa.life holds its symbolized lifetimes.
MiB=1048576
record_walkthrough() {
	cd "$BATS_FILE_TMPDIR"
	mt-record -o wpa.mtr -- "$PROGS/memtestapp" >/dev/null 2>&1
	mt-symbolize wpa.mtr | mt-lifetime -q >wpa.life
}

# The alloc times of its 10 MiB mappings, in order: those made by
# ManipulateTemporaryBuffer (the spikes) with "spike" after them, the
# others (the steady state, then the step-up) with "main".  By stack, not
# by how long they lived: on a loaded machine a 10 ms spike lived 200 ms.
wpa_mappings() {
	awk -F'\t' -v M=$MiB '$1 == "sym" { f[$2] = $3 }
		$1 == "stack" { s = 0; for (k = 3; k <= NF; k++) if (f[$k] == "ManipulateTemporaryBuffer") s = 1; sp[$2] = s }
		$1 == "life" && $6 == "mmap" && $8 == 10 * M { print $2, sp[$9] ? "spike" : "main" }' wpa.life | sort -n
}

# The alloc time of the n-th of its 10 MiB transient buffers.
spike() {
	wpa_mappings | awk -v n="$1" '$2 == "spike" && ++k == n { print $1 }'
}

# The alloc time of its step-up of the steady state.
step_up() {
	wpa_mappings | awk '$2 == "main" && ++k == 2 { print $1 }'
}

# A golden case: tests/fixtures/PROG/CASE.args holds the arguments (shell
# words, run from the fixture directory); CASE.out, CASE.err and
# CASE.exit what must come out.  UPDATE_GOLDEN=1 rewrites them, to be
# reviewed in the diff.
golden() {
	local prog=$1 case=$2 dir=$TESTS/fixtures/$1 out err status
	out=$(mktemp) err=$(mktemp)
	(cd "$dir" && eval "$prog $(cat "$case.args")") >"$out" 2>"$err" && status=0 || status=$?
	if [ -n "$UPDATE_GOLDEN" ]; then
		cp "$out" "$dir/$case.out"
		cp "$err" "$dir/$case.err"
		echo "$status" >"$dir/$case.exit"
	fi
	diff -u "$dir/$case.out" "$out"
	diff -u "$dir/$case.err" "$err"
	[ "$status" = "$(cat "$dir/$case.exit")" ]
	rm -f "$out" "$err"
}

# Every stack an event names is defined before it, and every process that
# has an event has its proc line before it.
check_refs() {
	mt-decode "$1" | awk -F'\t' '
		$1 == "stack" { st[$2] = 1 }
		$1 == "proc" { pr[$2] = 1 }
		($1 == "alloc" && $8 != "-" && !($8 in st)) || ($1 == "free" && $7 != "-" && $7 != "" && !($7 in st)) {
			print NR ": undefined stack: " $0; exit }
		($1 == "alloc" || $1 == "free") && !($3 in pr) { print NR ": no proc line: " $0; exit }'
}

# A bounded trace's allocations and frees kept, and those its lost records
# of reason $2 count, as "kept lost".
kept_lost() {
	echo "$(mt-decode "$1" | grep -c '^alloc\|^free')" \
	    "$(mt-decode "$1" | awk -F'\t' -v r="$2" '$1 == "lost" && $5 == r { n += $4 } END { print n + 0 }')"
}

# Every address of every stack line of trace $1 lies in a map line before
# it: what mt-symbolize needs to name it.  Prints the first that does not.
check_stack_maps() {
	mt-decode "$1" | perl -F'\t' -lane '
		no warnings "portable";
		if ($F[0] eq "map") { push @m, [hex $F[2], hex $F[3]]; next }
		next unless $F[0] eq "stack";
		for my $ip (@F[2 .. $#F]) {
			next if $ip eq "...";
			my $a = hex $ip;
			next if grep { $a >= $_->[0] && $a <= $_->[1] } @m;
			print "$.: $ip outside every map before it";
			exit;
		}'
}

# Symbolizes trace $1: prints "allocations unnamed", the allocations with
# a stack and those of them with a frame named ?? (no function found),
# and writes the functions their frames name, sorted, to file $2.
alloc_functions() {
	mt-symbolize "$1" | LC_ALL=C awk -F'\t' -v out="$2" '
		$1 == "sym" { if (!($2 in s)) s[$2] = $3; next }
		$1 == "stack" { st[$2] = $0; next }
		$1 == "alloc" && $8 != "-" { use[$8]++; n++ }
		END {
			for (id in use) {
				k = split(st[id], f, "\t"); u = 0
				for (i = 3; i <= k; i++) {
					if (f[i] == "...") continue
					fn = s[f[i]]
					if (fn == "" || fn ~ /^\?\?/) u = 1; else names[fn] = 1
				}
				un += u * use[id]
			}
			print n + 0, un + 0
			for (fn in names) print fn | "sort >" out
		}'
}

# The seeds' Rust leak (tests/progs/rust-leak), built with cargo offline
# (std only) into the file's temporary directory and recorded once:
# rl.mtr and rl.sym (symbolized) there, RUST_LEAK the program.  Skips the
# test where the machine has no Rust toolchain.
rust_leak() {
	local d=$BATS_FILE_TMPDIR/rust-leak
	command -v cargo >/dev/null && command -v rustc >/dev/null ||
		skip "no cargo and rustc on this machine: the Rust program cannot be built"
	RUST_LEAK=$d/target/debug/rust-leak
	if [ ! -s "$BATS_FILE_TMPDIR/rl.sym" ]; then
		rm -rf "$d"
		cp -r "$PROGS/rust-leak" "$d"
		(cd "$d" && cargo build --offline -q) || return 1
		mt-record -o "$BATS_FILE_TMPDIR/rl.mtr" -- "$RUST_LEAK" >/dev/null 2>&1
		mt-symbolize "$BATS_FILE_TMPDIR/rl.mtr" >"$BATS_FILE_TMPDIR/rl.sym"
	fi
}

# The line of rust-leak's source that carries mark $1 (// LEAK ...).
rust_line() {
	grep -n "// $1\$" "$PROGS/rust-leak/src/main.rs" | cut -d: -f1
}

# The rows of an mt-report page's table as a browser draws them, TSV with
# mt-group -F tsv's header (tests/report-browser.sh, which says more):
#   report_rows page.html 'from=2.5s&to=4s&by=type,function'
# Skipped, with the reason, where chromium is not installed.
report_rows() {
	command -v "${CHROMIUM:-chromium}" >/dev/null || skip "chromium is not installed"
	"$TESTS/report-browser.sh" "$@"
}

# A running process to attach to (attach.bats, uprobes.bats).
# Starts CMD in the background, its output to out.txt, its status to
# status.txt once it ends; TARGET is its pid.
# ptrace needs CAP_SYS_PTRACE or a kernel that lets a user trace its own
# processes: said, and the test skipped, when neither holds.
need_ptrace() {
	local scope
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
	if [ "$(id -u)" != 0 ] && [ "$scope" -ge 1 ]; then
		skip "kernel.yama.ptrace_scope is $scope and we are not root: no attaching"
	fi
	if ! grep -q '^CapEff:.*' /proc/self/status; then
		skip "no /proc/self/status"
	fi
}

start_target() {
	( set +e; "$@" >out.txt 2>err.txt </dev/null; echo $? >status.txt ) &
	for _ in $(seq 100); do
		TARGET=$(pgrep -n -P $! 2>/dev/null || true)
		[ -n "$TARGET" ] && [ -s out.txt ] && break
		sleep 0.02
	done
	[ -n "$TARGET" ]
}

wait_target() {
	for _ in $(seq 500); do
		[ -s status.txt ] && return 0
		sleep 0.02
	done
	echo "the target did not end: $(tail -3 out.txt)"
	ps -o pid,ppid,stat,wchan:20,args --ppid "$$" -p "$TARGET" || true
	return 1
}

# The counter went from 0 to N-1, each once, in order.
counted_to() {
	awk -v n="$1" '$0 != NR - 1 { print "line " NR ": " $0; bad = 1; exit }
		END { if (!bad && NR != n) { print NR " lines, not " n; bad = 1 }; exit bad }' out.txt
}

# BPF and uprobes as root; skipped, saying why, where they cannot be.
# An earlier test's probes are let go of first: while the kernel lets go
# of another recording's uprobes on the same library it drops some
# returns (mt-record says how many), which the exact counts here would
# take for a fault of ours.
uprobes_let_go() {
	for _ in $(seq 300); do pgrep -x mt-record >/dev/null || return 0; sleep 0.1; done
}

# Multi-probe uprobe links (Linux 6.6), without which letting go of many
# processes' probes takes a grace period a probe, one after another.
need_multi_links() {
	mt-record --uprobes -o multi.mtr -- "$PROGS/ucount" >/dev/null 2>&1 || true
	mt-decode multi.mtr 2>/dev/null | grep -q '^# mt-record: probes in multi-probe links' ||
		skip "no multi-probe uprobe links here (Linux 6.6): mt-record uses a perf event a probe"
	rm -f multi.mtr
}

need_uprobes() {
	uprobes_let_go
	[ "$(id -u)" = 0 ] || skip "needs root for BPF uprobes (id -u: $(id -u))"
	[ -e /sys/bus/event_source/devices/uprobe/type ] ||
		skip "this kernel has no uprobes (no /sys/bus/event_source/devices/uprobe)"
	local err
	if ! err=$(mt-record --uprobes -o probe.mtr -- "$PROGS/ucount" 2>&1 >/dev/null); then
		skip "BPF uprobes not permitted here: ${err##*mt-record: }"
	fi
	rm -f probe.mtr
	uprobes_let_go
}
