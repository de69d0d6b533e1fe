#!/bin/bash
# A build's shape: many short processes, each leaking a little at exit,
# beside one long one holding many blocks (make and its compilers).
# mt-lifetime on it, against the same records with every process's pid
# made the long one's, so that nothing ends until the end: the ratio is
# what the exits cost.  An exit should cost its own blocks, not every
# live block (in one table for all it took 37 s here, 105x).
. "$(dirname "$0")/common.sh"

# $1: 1 for the processes, 0 for one process throughout.
gen() {
	awk -v many="$1" 'BEGIN {
		t = 1
		print "proc\t100\t1\t0\t/usr/bin/make\tmake"
		for (i = 0; i < 2000000; i++)
			printf "alloc\t%d\t100\t100\tmalloc\t0x%x\t32\t-\n", t++, 65536 + i * 48
		for (p = 1000; p < 4000; p++) {
			q = many ? p : 100
			if (many)
				printf "proc\t%d\t100\t%d\t/usr/bin/cc\tcc\n", p, t
			for (k = 0; k < 10; k++)	# past the blocks of the long one
				printf "alloc\t%d\t%d\t%d\tmalloc\t0x%x\t32\t-\n", t++, q, q, 1e9 + (p * 10 + k) * 48
			if (many)
				printf "exit\t%d\t%d\t0\n", t++, p
		}
	}'
}
gen 1 >"$work/many.txt"
gen 0 >"$work/one.txt"
many=$(timed cmd/mt-lifetime -bq "$work/many.txt")
one=$(timed cmd/mt-lifetime -bq "$work/one.txt")
printf '3000 exits beside 2M live blocks: mt-lifetime %.2f s; the same records in one process %.2f s (%.2fx)\n' \
	"$many" "$one" "$(echo "$many / $one" | bc -l)"

# Many processes alive at once, a block each (a server's workers): every
# process's table is paid for while it lives, so it starts small.  Peak
# RSS against the same blocks in one process.
awk -v many=1 'BEGIN { t = 1; for (p = 1000; p < 21000; p++) { q = many ? p : 100
	printf "proc\t%d\t1\t%d\t/usr/sbin/worker\tworker\n", q, t
	printf "alloc\t%d\t%d\t%d\tmalloc\t0x%x\t32\t-\n", t++, q, q, 4096 + p * 16 } }' >"$work/live.txt"
awk -v many=0 'BEGIN { t = 1; for (p = 1000; p < 21000; p++) { q = many ? p : 100
	printf "alloc\t%d\t%d\t%d\tmalloc\t0x%x\t32\t-\n", t++, q, q, 4096 + p * 16 } }' >"$work/live1.txt"
rss() { /usr/bin/time -f %M -o "$work/rss" cmd/mt-lifetime -q "$1" >/dev/null; cat "$work/rss"; }
printf '20000 processes alive, a block each: mt-lifetime peak RSS %d KiB; the same blocks in one process %d KiB\n' \
	"$(rss "$work/live.txt")" "$(rss "$work/live1.txt")"
