#!/bin/bash
# What recording through BPF uprobes costs an allocation event, against
# LD_PRELOAD and against BCC's memleak, on one program: tests/progs/
# mallocloop, N malloc/free pairs (default 1,000,000) of 1-512 bytes from
# a stack two frames deep.  As root, on a kernel with uprobes.
#
#   native    tests/progs/mallocloop N
#   preload   cmd/mt-record -o p.mtr -- tests/progs/mallocloop N
#   uprobes   cmd/mt-record --uprobes -o u.mtr -- tests/progs/mallocloop N
#             (its stacks by frame pointers, as it is built with them)
#   dwarf     the same with --unwind dwarf: each stack an 8 KiB copy,
#             unwound by mt-record
#   perf      uprobes with MT_UPROBE_MULTI=0: a perf event a probe, as on
#             kernels before 6.6 (and as mt-record did before), where the
#             default is multi-probe links
#   memleak   memleak-bpfcc -a -p PID INTERVAL 1 (bpfcc-tools), on
#             mallocloop N stop, which stops itself before its loop
#
# memleak -c CMD starts CMD before it has compiled its BPF program (a
# second or more): a program this short is gone by then, and memleak
# fails on it ("could not determine address of symbol malloc").  So
# memleak gets -p, the pid of the program stopped before its loop, and the
# program is let go once memleak's 20 probes are in (bpftool perf list);
# memleak's time is the program's, from then to its exit: memleak's start
# (compiling) and its INTERVAL are left out.  mt-record's is the whole
# command's, its start and its writing of the trace in.  Its options: the
# defaults (every allocation, -s 1; the user stack of each, by stack id),
# -a to list each outstanding block, an INTERVAL longer than the program
# and a count of 1, so that it prints once, at the end.  bpfcc-tools
# 0.26's Python passes bpf_attach_uprobe 6 arguments of its 7: the 7th,
# ref_ctr_offset, is what the stack held, and the kernel refuses the probe
# ("ref_ctr_offset mismatch" in dmesg) where the address already had one;
# it is given 0 here.  memleak wants kernel headers at /lib/modules/
# $(uname -r)/build.
#
# Per way: the median wall time of RUNS runs (default 5), each run in
# turn; the nanoseconds added per event ((t - t native) / 2N); the same
# with each way's time at N = 0 taken off first (its start and end: some
# seconds for uprobes, at a process's exit); the events in the trace
# against 2N and the events lost.  Then uprobes' ns/event over memleak's.
. "$(dirname "$0")/common.sh"
N=${N:-1000000}
events=$((2 * N))
prog=tests/progs/mallocloop
MEMLEAK=${MEMLEAK:-/usr/sbin/memleak-bpfcc}

# memleak-bpfcc, ref_ctr_offset 0 (see above).
memleak_py='import sys, runpy, ctypes as ct
from bcc import libbcc
f = libbcc.lib.bpf_attach_uprobe
if len(f.argtypes) == 6:
    f.argtypes = f.argtypes + [ct.c_uint32]
    libbcc.lib.bpf_attach_uprobe = lambda *a: f(*a, 0)
sys.argv[0] = sys.argv[1]
del sys.argv[1]
runpy.run_path(sys.argv[0], run_name="__main__")'

# memleak N: the seconds mallocloop N runs under memleak, from its loop to
# its exit; memleak's report in $work/ml.out.  Nothing printed on failure.
memleak() {
	local p m i n t0 t1 interval
	# Longer than the program under memleak (some 6 us an event here).
	interval=${INTERVAL:-$((5 + 2 * $1 * 10 / 1000000))}
	"$top/$prog" "$1" stop & p=$!
	until [ "$(awk '{ print $3 }' /proc/$p/stat 2>/dev/null)" = T ]; do sleep 0.01; done
	PYTHONUNBUFFERED=1 /usr/bin/python3 -c "$memleak_py" "$MEMLEAK" -a -p "$p" "$interval" 1 \
	    >"$work/ml.out" 2>&1 & m=$!
	for i in $(seq 600); do
		n=$(bpftool perf list 2>/dev/null | grep -c "^pid $m ")
		[ "$n" -ge 20 ] && break
		kill -0 "$m" 2>/dev/null || break
		sleep 0.1
	done
	if [ "$n" -lt 20 ]; then
		kill "$m" 2>/dev/null; kill -9 "$p" 2>/dev/null; wait "$p" "$m" 2>/dev/null
		return 1
	fi
	t0=$(date +%s.%N)
	kill -CONT "$p"
	wait "$p"
	t1=$(date +%s.%N)
	kill -0 "$m" 2>/dev/null || echo "memleak-bpfcc: ended before the program did" >>"$work/ml.out"
	wait "$m"
	echo "$t1 - $t0" | bc -l
}

# The floor: the traps alone, bpftrace's empty programs at malloc's entry
# and return and free's entry (the probes both tools put there).  Its
# "net" is what any uprobes tool pays an event on this machine.
LIBC=$(ldd "$prog" | awk '$1 ~ /^libc\.so/ { print $3 }')
floor() {
	bpftrace -e "uprobe:$LIBC:malloc {} uretprobe:$LIBC:malloc {} uprobe:$LIBC:free {}" \
	    -c "$top/$prog $1" >/dev/null 2>&1
}

# turns N SUFFIX: RUNS turns of the ways, their times in $work/WAY.SUFFIX.
turns() {
	local i w
	for w in native preload uprobes perf dwarf memleak floor; do : >"$work/$w.$2"; done
	for i in $(seq "$RUNS"); do
		seconds "$prog" "$1" >>"$work/native.$2"
		rm -f "$work/p.mtr" "$work/u.mtr" "$work/d.mtr"
		seconds cmd/mt-record -o "$work/p.mtr" -- "$prog" "$1" >>"$work/preload.$2"
		seconds cmd/mt-record --uprobes -o "$work/u.mtr" -- "$prog" "$1" >>"$work/uprobes.$2"
		MT_UPROBE_MULTI=0 seconds cmd/mt-record --uprobes -o "$work/e.mtr" -- "$prog" "$1" \
		    >>"$work/perf.$2"
		seconds cmd/mt-record --uprobes --unwind dwarf -o "$work/d.mtr" -- "$prog" "$1" \
		    >>"$work/dwarf.$2"
		memleak "$1" >>"$work/memleak.$2" || cp "$work/ml.out" "$work/ml.failed"
		! command -v bpftrace >/dev/null || seconds floor "$1" >>"$work/floor.$2"
	done
}

turns 0 0
turns "$N" n
med() { [ -s "$1" ] && median <"$1"; }
per_event() { [ -n "$1" ] && [ -n "$2" ] && echo "($1 - $2) * 1000000000 / $events" | bc -l; }

# Events in the traces of the last turn, and what memleak left outstanding.
count() { cmd/mt-decode "$1" | grep -c '^alloc\|^free'; }
lost() { cmd/mt-decode "$1" | grep -m1 '^# .*events lost' || echo none; }
out_allocs=$(awk '/bytes in [0-9]+ allocations/ { n += $4 } END { print n + 0 }' "$work/ml.out")

echo "mallocloop $N: $events events; median of $RUNS turns; memleak interval ${INTERVAL:-$((5 + events * 10 / 1000000))} s"
printf '%-8s %9s %9s %9s %10s %10s  %s\n' way "wall/s" "N=0/s" "ns/event" "net ns/ev" "events" lost
nat=$(med "$work/native.n") nat0=$(med "$work/native.0")
for w in native preload uprobes perf dwarf memleak floor; do
	t=$(med "$work/$w.n") t0=$(med "$work/$w.0")
	if [ -z "$t" ] && [ $w = floor ]; then
		echo "floor    not measured: no bpftrace"
		continue
	elif [ -z "$t" ]; then
		printf '%-8s failed: %s\n' "$w" "$(grep -v '^ *File\|^Traceback\|^ ' "$work/ml.failed" | tail -1)"
		continue
	fi
	eval "ns_$w=$(per_event "$t" "$nat")"
	eval "net_$w=$(per_event "$(echo "$t - $t0" | bc -l)" "$(echo "$nat - $nat0" | bc -l)")"
	case $w in
	native) ev=- ls=- ;;
	preload) ev=$(count "$work/p.mtr") ls=$(lost "$work/p.mtr") ;;
	uprobes) ev=$(count "$work/u.mtr") ls=$(lost "$work/u.mtr") ;;
	perf) ev=$(count "$work/e.mtr") ls=$(lost "$work/e.mtr") ;;
	dwarf) ev=$(count "$work/d.mtr") ls=$(lost "$work/d.mtr") ;;
	memleak) ev=- ls="not reported; $out_allocs allocations outstanding at the end" ;;
	floor) ev=- ls="bpftrace, empty programs: the traps alone" ;;
	esac
	printf '%-8s %9.3f %9.3f %9.0f %10.0f %10s  %s\n' "$w" "$t" "$t0" \
	    "$(eval echo "\$ns_$w")" "$(eval echo "\$net_$w")" "$ev" "$ls"
done
if [ -n "${ns_memleak:-}" ]; then
	printf 'uprobes/memleak ns/event: %.2f (target at most 0.5); net of N=0: %.2f\n' \
	    "$(echo "$ns_uprobes / $ns_memleak" | bc -l)" "$(echo "$net_uprobes / $net_memleak" | bc -l)"
	[ -z "${ns_dwarf:-}" ] || printf 'dwarf/memleak ns/event: %.2f; net of N=0: %.2f\n' \
	    "$(echo "$ns_dwarf / $ns_memleak" | bc -l)" "$(echo "$net_dwarf / $net_memleak" | bc -l)"
	[ -z "${net_floor:-}" ] || printf 'the traps alone / memleak, net: %.2f\n' \
	    "$(echo "$net_floor / $net_memleak" | bc -l)"
fi
