#!/bin/bash
# A synthetic trace of N events (tests/progs/gen-trace: a live set of a
# fixed 4096 blocks, 300 stacks, 4 threads) through the analysers, for N
# in SIZES (default 10M 100M 1000M).  Per step: the wall time, the CPU
# time of all its processes, events per wall second and per CPU second,
# and the peak RSS of each process.  With the live set fixed, linear
# time is events/s constant across N and bounded memory is peak RSS
# constant across N.  The trace goes to SCRATCH (default a directory
# beside the tree: some 6 bytes an event) and is deleted afterwards.
# STEPS names the steps to run (default all; the trace is always made).
# With TRACES=DIR the trace of N is DIR/N.mtr, kept, and made only when
# missing, so that the steps of a billion can be run one at a time.
# mt-window --at peak keeps its standard input, the life lines, in
# TMPDIR: in the scratch directory too (some 7 bytes an event).
# LIVE=N makes the live set N blocks (gen-trace -l), and the step
# report-memory runs mt-report --memory BUDGET (default 16M): past it, pairing
# through partitions in TMPDIR, which must stay linear in N too.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" && make -s all tests || exit 1
SIZES=${SIZES:-10M 100M 1000M}
SCRATCH=${SCRATCH:-$top/../scratch-billion}
mkdir -p "$SCRATCH" || exit 1
work=$(mktemp -d "$SCRATCH/billion.XXXXXX")
trap 'rm -rf "$work"' EXIT
export TMPDIR=$work
PATH=$top/cmd:$PATH

count() {	# 10M -> 10000000
	case $1 in
	*G) echo $((${1%G} * 1000000000)) ;;
	*M) echo $((${1%M} * 1000000)) ;;
	*k) echo $((${1%k} * 1000)) ;;
	*) echo "$1" ;;
	esac
}

# One process of a step: its wall, user and system seconds and peak RSS
# appended to $work/p.
t() { /usr/bin/time -a -o "$work/p" -f '%e %U %S %M' "$@"; }

# step NAME PIPELINE: runs the pipeline (whose processes use t), prints a row.
step() {
	local name=$1 t0 t1 wall cpu rss
	shift
	case " ${STEPS:-$name} gen-trace " in *" $name "*) ;; *) return ;; esac
	: >"$work/p"
	t0=$(date +%s.%N)
	eval "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
	t1=$(date +%s.%N)
	wall=$(echo "$t1 - $t0" | bc -l)
	cpu=$(awk '{ s += $2 + $3 } END { print s }' "$work/p")
	rss=$(awk '{ printf "%s%d", (NR > 1 ? "+" : ""), $4 / 1024 }' "$work/p")
	printf '%-6s %-22s %8.1f %8.1f %8.2f %8.2f  %s\n' "$SIZE" "$name" "$wall" "$cpu" \
	    "$(echo "$n / $wall / 1000000" | bc -l)" "$(echo "$n / $cpu / 1000000" | bc -l)" "$rss"
}

printf '%-6s %-22s %8s %8s %8s %8s  %s\n' N step wall/s cpu/s Mev/wall Mev/cpu 'peak RSS/MiB (each process)'
for SIZE in $SIZES; do
	n=$(count "$SIZE")
	tr=${TRACES:-$work}/$SIZE.mtr
	if [ -z "${TRACES:-}" ] || [ ! -s "$tr" ]; then
		step gen-trace "t tests/progs/gen-trace ${LIVE:+-l $LIVE} $n >$tr.part && mv $tr.part $tr"
	fi
	# The trace lasts some 52 ns an event: a window of its second tenth.
	from=$((n * 52 / 10 / 1000))us to=$((n * 52 / 5 / 1000))us
	step lifetime "t mt-lifetime -qb $tr"
	step series-10ms "t mt-lifetime -qb $tr | t mt-window -b --series 10ms"
	step window-group "t mt-lifetime -qb $tr | t mt-window -b --from $from --to $to | t mt-group --by process,heap,type,function"
	step group-function "t mt-lifetime -qb $tr | t mt-group --by type,function,line"
	step peak-tree "t mt-lifetime -qb $tr | t mt-window -b --at peak | t mt-group --tree --from-main"
	step report "t mt-report -q --no-symbolize $tr"
	step report-memory "t mt-report -q --no-symbolize --memory ${BUDGET:-16M} $tr"
	step life-report "t mt-lifetime -qb $tr | t mt-report -q --no-symbolize"
	step report-page "t mt-report -q --no-symbolize -o $work/page.html $tr"
	[ -f "$work/page.html" ] && printf '%-6s %-22s page %.1f MB, trace %.1f MB\n' "$SIZE" "" \
	    "$(echo "$(stat -c %s "$work/page.html") / 1000000" | bc -l)" \
	    "$(echo "$(stat -c %s "$tr") / 1000000" | bc -l)"
	[ -n "${TRACES:-}" ] || rm -f "$tr"
	rm -f "$work/page.html"
done
