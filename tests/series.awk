# The series of one process and heap from mt-decode text, summed here,
# not by mt-window: live bytes and blocks per step, and their extremes.
# step: -v step=NS.  Changes at one nanosecond count together.
function flush_t() {	# the changes at time tcur are all in: extremes
	if (tcur < 0) return
	if (cur > hi) { hi = cur; thi = tcur }
	if (cur < lo) { lo = cur; tlo = tcur }
}
function emit(k) {
	T = k * step
	if (k == 0) { hi = lo = cur; thi = tlo = 0 }
	printf "sample\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", T, pid, heap, cur, cnt, hi, lo, thi, tlo
	hi = lo = cur; thi = tlo = T
}
function advance(t) {	# samples due before a change at t
	while (t > k * step) { emit(k); k++ }
}
BEGIN { k = 0; cur = cnt = 0; tcur = -1; hi = lo = 0; thi = tlo = 0 }
$1 == "alloc" || $1 == "free" || $1 == "exit" {
	t = $2 + 0
	if (t != tcur) { flush_t(); advance(t); tcur = t }
	last = t
}
$1 == "alloc" { pid = $3; heap = $5; sz[$6] = $7; cur += $7; cnt++ }
$1 == "free" && ($6 in sz) { cur -= sz[$6]; cnt--; delete sz[$6] }
$1 == "exit" { cur = 0; cnt = 0; delete sz }
END {
	flush_t()
	kmax = int((last + step - 1) / step)
	if (kmax * step < last) kmax++
	for (; k <= kmax; k++) emit(k)
}
