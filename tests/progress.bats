#!/usr/bin/env bats
# The progress meter (issue 29): on a terminal's stderr only, for an input
# of known size read for more than two seconds; never on stdout, never
# without a terminal, never with -q; a warning said while it is up comes
# out on a line of its own.  The reading is made long honestly: the
# filter's output goes to a reader that sleeps first, so the filter waits
# on a full pipe with most of its input still to read.

load helpers

FILTERS="mt-decode mt-symbolize mt-lifetime mt-window mt-group mt-pooldiff mt-report"
SLOW='(sleep 2.5; cat >out)'

setup() {
	cd "$BATS_TEST_TMPDIR"
	command -v script >/dev/null || skip "script(1) of util-linux: the pseudo-terminal"
	# 300k records, some 10 MB: more than the pipe and the filter's
	# buffer hold, so that most of it is read after the wait.
	awk 'BEGIN { OFS = "\t"
		print "#mt-events", 1, "start=0", "host=x"
		print "proc", 7, 1, 0, "/bin/x", "x"
		print "stack", 1, "0x401000"
		for (i = 0; i < 150000; i++) {
			a = sprintf("0x%x", 4096 + 16 * (i % 1000))
			print "alloc", 2 * i + 1, 7, 7, "malloc", a, 16, 1
			print "free", 2 * i + 2, 7, 7, "malloc", a, 1
		} }' >big.txt
	cp big.txt bad.txt
	printf 'alloc\tbogus\t7\t7\tmalloc\t0x10\t16\t1\n' >>bad.txt
}

# The command line $1 run on a pseudo-terminal: what the terminal got in
# tty (its newlines as CR LF), its exit status (the filter's) in $status.
on_tty() {
	status=0
	SHELL=/bin/bash script -qfec "set -o pipefail; $1" /dev/null </dev/null >tty ||
		status=$?
}

meter_re='[a-z.]+:  ?[ 0-9]{2}[0-9]%  [0-9.]+[KMGT]? events/s  [0-9:]+ left'

@test "a long read of a file on a terminal: the meter, erased at the end, nothing on stdout" {
	on_tty "mt-decode big.txt | $SLOW"
	[ "$status" = 0 ]
	grep -aqE "^big\.txt: +[0-9]+%  [0-9.]+[KM]? events/s  [0-9]+:[0-9]{2} left" <(tr '\r' '\n' <tty)
	# Each drawing goes over the last, and the last is erased.
	[ "$(head -c 1 tty)" = $'\r' ]
	[ "$(tail -c 4 tty)" = $'\r\e[K' ]
	cmp out big.txt
	# Standard input that is the file itself: its size is known too.
	on_tty "mt-decode <big.txt | $SLOW"
	grep -aqE "^<stdin>: +[0-9]+%" <(tr '\r' '\n' <tty)
	cmp out big.txt
}

@test "each filter that reads a trace shows it" {
	mt-lifetime -q big.txt >big.life
	for cmd in "mt-symbolize big.txt" "mt-lifetime big.txt" "mt-window big.life" \
	    "mt-pooldiff -i 100ns --live big.life"; do
		on_tty "$cmd | $SLOW"
		grep -aqE "^big\.(txt|life): +[0-9]+%  [0-9.]+[KM]? events/s" <(tr '\r' '\n' <tty) ||
			{ echo "$cmd: no meter"; cat -A tty; return 1; }
		# The output is what the same command writes with no terminal.
		eval "$cmd" >want 2>/dev/null || true
		cmp out want
	done
}

@test "a warning said while the meter is up comes out on a line of its own" {
	on_tty "mt-decode bad.txt | $SLOW"
	[ "$status" = 1 ]
	grep -aqE "$meter_re" tty
	# The meter's line erased just before the message, which ends the output.
	[ "$(grep -ac 'mt-decode' tty)" = 1 ]
	grep -aqF $'\r\e[Kmt-decode: bad.txt:300004: bad time \'bogus\'\r' tty
	[ "$(tail -c 2 tty | od -An -tx1)" = ' 0d 0a' ]
}

@test "no terminal, a pipe, -q: not a byte more on stderr" {
	run -1 --separate-stderr bash -o pipefail -c "mt-decode bad.txt | $SLOW"
	[ "$stderr" = "mt-decode: bad.txt:300004: bad time 'bogus'" ]
	# A pipe has no size to go by.
	on_tty "cat bad.txt | mt-decode | $SLOW"
	[ "$(cat tty)" = $'mt-decode: <stdin>:300004: bad time \'bogus\'\r' ]
	for q in -q --quiet; do
		on_tty "mt-decode $q bad.txt | $SLOW"
		[ "$status" = 1 ]
		[ "$(cat tty)" = $'mt-decode: bad.txt:300004: bad time \'bogus\'\r' ]
	done
	# mt-lifetime's -q still silences its summary too.
	on_tty "mt-lifetime -q big.txt | $SLOW"
	[ "$status" = 0 ]
	[ ! -s tty ]
}

@test "every filter takes -q and --quiet, and says nothing more without a terminal" {
	mt-lifetime -q big.txt >big.life
	for p in $FILTERS; do
		in=big.life
		[ "$p" = mt-decode ] || [ "$p" = mt-symbolize ] || [ "$p" = mt-lifetime ] && in=big.txt
		extra=
		[ "$p" = mt-report ] && extra=--no-symbolize
		"$p" $extra "$in" >want 2>want.err || true
		for q in -q --quiet; do
			"$p" $q $extra "$in" >got 2>got.err || true
			cmp got want
			# -q drops mt-lifetime's and mt-report's notes, nothing else.
			case $p in
			mt-lifetime | mt-report) [ ! -s got.err ] ;;
			*) cmp got.err want.err ;;
			esac
		done
		! grep -q $'\e' want.err || false
	done
}
