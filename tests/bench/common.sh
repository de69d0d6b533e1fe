# Sourced by the benchmarks: a built tree, a scratch directory, timing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" && make -s all tests || exit 1
RUNS=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
timed() {	# command...: the median of RUNS runs, in seconds
	local i
	: >"$work/t"
	for i in $(seq "$RUNS"); do seconds "$@" >>"$work/t"; done
	median <"$work/t"
}

# $work/py.mtr and heaptrack's $work/ht.*: one run of python3 building
# 300k dicts and round-tripping them through json, $1 times, recorded by
# each (by mt-record alone when $2 is "mt"); $events, the allocations
# and frees in it.
record_python() {
	printf 'for _ in range(%d):\n    exec(open("%s").read())\n' "$1" "$top/tests/bench/py_dicts.py" >"$work/loop.py"
	PYTHONMALLOC=malloc cmd/mt-record -o "$work/py.mtr" -- /usr/bin/python3 "$work/loop.py" >/dev/null 2>&1
	[ "${2:-}" = mt ] ||
		PYTHONMALLOC=malloc heaptrack -o "$work/ht" /usr/bin/python3 "$work/loop.py" >/dev/null 2>&1
	events=$(cmd/mt-decode "$work/py.mtr" | grep -c '^alloc\|^free')
}
