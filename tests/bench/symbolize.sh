#!/bin/bash
# mt-symbolize's cost, side by side with its peers in one run; medians of
# RUNS runs (default 5).  A benchmark, not a test.
#
#   1. on the trace of workload (b) of run.sh (python3, ~28M events):
#      mt-decode alone, against mt-symbolize reading the same .mtr;
#   2. resolving the distinct addresses of that trace that fall in
#      python3.11, against eu-addr2line -i -f and binutils' addr2line -i -f
#      on the same list.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" && make -s all || exit 1
RUNS=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
timed() {	# name, command...: prints the median
	local name=$1 i
	shift
	: >"$work/t"
	for i in $(seq "$RUNS"); do seconds "$@" >>"$work/t"; done
	median <"$work/t"
}

PYTHONMALLOC=malloc cmd/mt-record -o "$work/py.mtr" -- /usr/bin/python3 tests/bench/py_dicts.py >/dev/null 2>&1
dec=$(timed decode cmd/mt-decode "$work/py.mtr")
sym=$(timed symbolize cmd/mt-symbolize "$work/py.mtr")
printf 'trace of (b): mt-decode %.2f s, mt-symbolize %.2f s: +%.0f%% (target <= +20%%)\n' \
	"$dec" "$sym" "$(echo "($sym / $dec - 1) * 100" | bc -l)"

# The addresses in python3.11 (not PIE: file address = address).
cmd/mt-decode "$work/py.mtr" | awk -F'\t' -v OFS='\t' '
	$1 == "map" && $7 ~ /python3/ { print; lo = $3; hi = $4 }
	$1 == "stack" { for (i = 3; i <= NF; i++) if ($i != "...") ip[$i] = 1 }
	END { n = 0; for (a in ip) print "stack", ++n, a }' >"$work/all.txt"
perl -F'\t' -lane 'if ($. == 1) { ($lo, $hi) = (hex($F[2]), hex($F[3])); print; next }
	print if hex($F[2]) >= $lo && hex($F[2]) < $hi' "$work/all.txt" >"$work/py-stacks.txt"
perl -F'\t' -lane 'next unless $F[0] eq "stack"; printf "0x%x\n", hex($F[2]) - 1' "$work/py-stacks.txt" >"$work/addrs.txt"
n=$(wc -l <"$work/addrs.txt")
ours=$(timed mt-symbolize cmd/mt-symbolize "$work/py-stacks.txt")
eu=$(timed eu-addr2line sh -c "eu-addr2line -i -f -e /usr/bin/python3.11 <'$work/addrs.txt'")
bu=$(timed addr2line sh -c "addr2line -i -f -e /usr/bin/python3.11 <'$work/addrs.txt'")
printf '%d distinct addresses in python3.11: mt-symbolize %.2f s, eu-addr2line %.2f s (%.2fx), addr2line %.2f s (%.2fx)\n' \
	"$n" "$ours" "$eu" "$(echo "$eu / $ours" | bc -l)" "$bu" "$(echo "$bu / $ours" | bc -l)"
