#!/bin/bash
# mt-symbolize's cost, side by side with its peers in one run; medians of
# RUNS runs (default 5).  A benchmark, not a test.
#
#   1. on the trace of workload (b) of run.sh (python3, ~28M events):
#      mt-decode alone, against mt-symbolize reading the same .mtr;
#   2. resolving the distinct addresses of that trace that fall in
#      python3.11, against eu-addr2line -i -f and binutils' addr2line -i -f
#      on the same list;
#   3. a compiler: g++'s cc1plus on a one-file C++ program (<map>,
#      <regex>, ... at -O2; some 5.7M events), recorded by mt-record and
#      by heaptrack: mt-symbolize and mt-report against heaptrack_print
#      (issue 41: mt-symbolize <= 0.5 s, mt-report <= 2x heaptrack_print);
#      the summary (like heaptrack_print's) and the page (-o) both;
#   4. python3 on some 100M events (LOOPS=5 runs of (b)): what symbolizing
#      adds to mt-report (against --no-symbolize), and mt-symbolize on the
#      dictionary lines mt-report feeds it, against mt-report's time
#      (issue 41: at most a tenth).
# PARTS (default 1234) runs some of them: PARTS=3, the compiler alone
# (part 3 runs whenever 4 does).
. "$(dirname "$0")/common.sh"

PARTS=${PARTS:-1234}
if [ "${PARTS#*1}" != "$PARTS" ] || [ "${PARTS#*2}" != "$PARTS" ]; then
PYTHONMALLOC=malloc cmd/mt-record -o "$work/py.mtr" -- /usr/bin/python3 tests/bench/py_dicts.py >/dev/null 2>&1
dec=$(timed cmd/mt-decode "$work/py.mtr")
sym=$(timed cmd/mt-symbolize "$work/py.mtr")
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
ours=$(timed cmd/mt-symbolize "$work/py-stacks.txt")
eu=$(timed sh -c "eu-addr2line -i -f -e /usr/bin/python3.11 <'$work/addrs.txt'")
bu=$(timed sh -c "addr2line -i -f -e /usr/bin/python3.11 <'$work/addrs.txt'")
printf '%d distinct addresses in python3.11: mt-symbolize %.2f s, eu-addr2line %.2f s (%.2fx), addr2line %.2f s (%.2fx)\n' \
	"$n" "$ours" "$eu" "$(echo "$eu / $ours" | bc -l)" "$bu" "$(echo "$bu / $ours" | bc -l)"
fi
[ "${PARTS#*3}" != "$PARTS" ] || [ "${PARTS#*4}" != "$PARTS" ] || exit 0

# 3. cc1plus, its command as g++ -### gives it.
cat >"$work/t.cc" <<'CC'
#include <algorithm>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>
int main() { std::map<std::string, std::vector<int>> m; std::regex r("a+b");
	for (auto &x : m) std::sort(x.second.begin(), x.second.end());
	std::cout << m.size() << std::regex_match("aab", r) << "\n"; }
CC
cc1=$(cd "$work" && g++ -O2 -c t.cc -### 2>&1 | grep 'cc1plus' | head -n 1 | sed 's| -o [^ ]*\.s| -o t.s|')
(cd "$work" && eval "$top/cmd/mt-record -o cc1.mtr -- $cc1" >/dev/null 2>&1)
(cd "$work" && eval "heaptrack -o cc1ht $cc1" >/dev/null 2>&1)
ev=$(cmd/mt-decode "$work/cc1.mtr" | grep -c '^alloc\|^free')
sym=$(timed cmd/mt-symbolize "$work/cc1.mtr")
# In turns, each ratio that of one turn: these machines' speed drifts.
: >"$work/t.rep"; : >"$work/t.page"; : >"$work/t.ht"; : >"$work/r.rep"; : >"$work/r.page"
for i in $(seq "$RUNS"); do
	r=$(seconds cmd/mt-report "$work/cc1.mtr")
	h=$(seconds heaptrack_print "$work"/cc1ht.*)
	p=$(seconds cmd/mt-report -o "$work/cc1.html" "$work/cc1.mtr")
	echo "$r" >>"$work/t.rep"; echo "$p" >>"$work/t.page"; echo "$h" >>"$work/t.ht"
	echo "$r / $h" | bc -l >>"$work/r.rep"; echo "$p / $h" | bc -l >>"$work/r.page"
done
range() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }
printf 'cc1plus, %d events: mt-symbolize %.2f s (target <= 0.5 s); mt-report %.2f s, heaptrack_print %.2f s: %.2fx (turns %s; target <= 2x); the page %.2f s (%.2fx)\n' \
	"$ev" "$sym" "$(median <"$work/t.rep")" "$(median <"$work/t.ht")" "$(median <"$work/r.rep")" \
	"$(range "$work/r.rep")" "$(median <"$work/t.page")" "$(median <"$work/r.page")"
[ "${PARTS#*4}" != "$PARTS" ] || exit 0

# 4. python3, 100M events: the dictionary alone is what mt-report symbolizes.
record_python "${LOOPS:-5}" mt
ev=$(cmd/mt-decode "$work/py.mtr" | grep -c '^alloc\|^free')
cmd/mt-decode "$work/py.mtr" | grep -v '^alloc\|^free' >"$work/dict.txt"
rep=$(timed cmd/mt-report "$work/py.mtr")
nosym=$(timed cmd/mt-report --no-symbolize "$work/py.mtr")
sym=$(timed cmd/mt-symbolize -b "$work/dict.txt")
printf 'python3, %d events: mt-report %.2f s, --no-symbolize %.2f s (symbolizing adds %.0f%%); mt-symbolize on its %d dictionary lines %.2f s: %.0f%% of mt-report (target <= 10%%)\n' \
	"$ev" "$rep" "$nosym" "$(echo "($rep / $nosym - 1) * 100" | bc -l)" \
	"$(wc -l <"$work/dict.txt")" "$sym" "$(echo "$sym / $rep * 100" | bc -l)"
