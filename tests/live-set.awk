# Event text of n blocks step bytes apart, all live at once, then freed
# in the order made: awk -v n=N -v step=BYTES -f live-set.awk.  The
# layouts a kernel's caches and other allocators make, for
# tests/mt-lifetime.bats and tests/bench/pairing.sh.
BEGIN {
	printf "#mt-events\t1\tstart=0\thost=t\nproc\t100\t1\t0\t/bin/x\tx\n"
	for (i = 0; i < n; i++)
		printf "alloc\t%d\t100\t100\tmalloc\t0x%x\t8\t-\n", i + 1, 268435456 + i * step
	for (i = 0; i < n; i++)
		printf "free\t%d\t100\t100\tmalloc\t0x%x\t-\n", n + i + 1, 268435456 + i * step
	printf "exit\t%d\t100\t0\n", 2 * n + 1
}
