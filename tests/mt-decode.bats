#!/usr/bin/env bats
# mt-decode: every record survives text -> .mtr -> text; damage is found,
# said and never crashes; what came before the damage is written.

load helpers

FIX=$TESTS/fixtures/mt-decode
ENCODE=$TESTS/progs/mtr-encode

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "every record type survives text -> .mtr -> text, in one frame and in many" {
	"$ENCODE" "$FIX/roundtrip.txt" >one.mtr
	run -0 mt-decode one.mtr
	[ "$output" = "$(cat "$FIX/roundtrip.txt")" ]
	"$ENCODE" -n 3 "$FIX/roundtrip.txt" >many.mtr
	run -0 mt-decode many.mtr
	[ "$output" = "$(cat "$FIX/roundtrip.txt")" ]
	# text in, text out: passed through
	run -0 mt-decode "$FIX/roundtrip.txt"
	[ "$output" = "$(cat "$FIX/roundtrip.txt")" ]
}

@test "a version 1 trace (times in ns, frees by address from the last address) still decodes" {
	# Made by mtr-encode at 3bf1d5b, the last version 1 writer: every
	# record type in frames of 3, and 674 lines of a pairs recording in
	# frames of 100, whose frees of earlier frames' blocks go by address.
	run -0 mt-decode "$FIX/v1-roundtrip.mtr"
	[ "$output" = "$(cat "$FIX/roundtrip.txt")" ]
	run -0 mt-decode "$FIX/v1-pairs.mtr"
	[ "$output" = "$(cat "$FIX/v1-pairs.txt")" ]
	[ "$(grep -c '^free' "$FIX/v1-pairs.txt")" -gt 250 ]
	# and the same text written now, as version 3, decodes the same
	"$ENCODE" -n 100 "$FIX/v1-pairs.txt" >v3.mtr
	[ "$(od -An -tu1 -j8 -N1 v3.mtr | tr -d ' ')" = 3 ]
	run -0 mt-decode v3.mtr
	[ "$output" = "$(cat "$FIX/v1-pairs.txt")" ]
}

@test "allocations made before recording (mt-record -p): time '-', through .mtr and back, and their lifetimes" {
	cp "$FIX/before.txt" b.txt
	for n in 1 100; do
		"$ENCODE" -n $n b.txt >b.mtr
		run -0 mt-decode b.mtr
		[ "$output" = "$(cat b.txt)" ]
	done
	run -0 mt-decode -c b.mtr
	# allocated before: class ao, the piece freed aofi with its size
	run -0 --separate-stderr mt-lifetime b.mtr
	has_line "$output" $'^life\t-\t20\t7\t7\tmmap\t0x7f0000000000\t524288\t-\taofi\t-524288$'
	has_line "$output" $'^life\t-\t-\t7\t7\tmmap\t0x7f0000080000\t524288\t-\taofo\t0\tend$'
	has_line "$output" $'^life\t-\t-\t7\t7\treserve\t0x7f0000200000\t2097152\t-\taofo\t0\tend$'
	has_line "$output" $'^life\t9\t30\t7\t7\tmalloc\t0x1000\t32\t-\taifi\t0\t'
	# a bad time is still refused
	printf 'alloc\tx\t7\t7\tmmap\t0x1\t1\t-\n' >bad.txt
	run -1 --separate-stderr mt-decode bad.txt
	has_line "$stderr" "bad time 'x'"
}

@test "reads standard input and several files in order" {
	"$ENCODE" "$FIX/roundtrip.txt" >a.mtr
	run -0 mt-decode <a.mtr
	[ "$output" = "$(cat "$FIX/roundtrip.txt")" ]
	run -0 mt-decode a.mtr - <a.mtr
	[ "$output" = "$(cat "$FIX/roundtrip.txt" "$FIX/roundtrip.txt")" ]
}

@test "a recording decodes to the same text through any number of hops" {
	mt-record -o r.mtr -- "$PROGS/threads" >/dev/null 2>&1
	mt-decode r.mtr >r.txt
	"$ENCODE" r.txt >r2.mtr
	run -0 mt-decode r2.mtr
	[ "$output" = "$(cat r.txt)" ]
	[ "$(wc -l <r.txt)" -gt 400000 ]
}

@test "--check validates and prints nothing" {
	"$ENCODE" -n 3 "$FIX/roundtrip.txt" >a.mtr
	run -0 --separate-stderr mt-decode --check a.mtr
	[ -z "$output" ]
	[ -z "$stderr" ]
	head -c 300 a.mtr >cut.mtr
	run -1 --separate-stderr mt-decode -c cut.mtr
	[ -z "$output" ]
	has_line "$stderr" '^mt-decode: cut.mtr: truncated after frame \d+ \(byte \d+\)$'
}

@test "a truncated trace: every whole frame, then where it stopped, exit 1 -- at every byte" {
	"$ENCODE" -n 3 "$FIX/roundtrip.txt" >a.mtr
	mt-decode a.mtr >full.txt
	size=$(stat -c %s a.mtr)
	for k in $(seq 1 $((size - 1))); do
		head -c "$k" a.mtr >cut.mtr
		run -1 --separate-stderr mt-decode cut.mtr
		[ "$(printf '%s' "$output" | wc -c)" -eq 0 ] ||
			[ "$output" = "$(head -n "${#lines[@]}" full.txt)" ]
		has_line "$stderr" '^mt-decode: cut.mtr: truncated (after frame \d+ \(byte \d+\)|header \(\d+ bytes\))$'
	done
}

@test "the exact truncation messages" {
	"$ENCODE" -n 3 "$FIX/roundtrip.txt" >a.mtr
	head -c 5 a.mtr >h.mtr
	run -1 --separate-stderr mt-decode h.mtr
	[ "$stderr" = "mt-decode: h.mtr: truncated header (5 bytes)" ]
	head -c 16 a.mtr >h.mtr
	run -1 --separate-stderr mt-decode h.mtr
	[ "$stderr" = "mt-decode: h.mtr: truncated after frame 0 (byte 16)" ]
	# cut at a frame boundary: the missing end record tells
	size=$(stat -c %s a.mtr)
	head -c $((size - 1)) a.mtr >cut.mtr
	run -1 --separate-stderr mt-decode cut.mtr
	byte=$(printf '%s' "$stderr" | sed -n 's/.*(byte \([0-9]*\))$/\1/p')
	head -c "$byte" a.mtr >boundary.mtr
	run -1 --separate-stderr mt-decode boundary.mtr
	has_line "$stderr" "^mt-decode: boundary.mtr: truncated after frame \d+ \(byte $byte\)$"
}

@test "a corrupt byte anywhere: found (exit 1) or harmless, never silent, never a crash" {
	"$ENCODE" -n 3 "$FIX/roundtrip.txt" >a.mtr
	mt-decode a.mtr >full.txt
	size=$(stat -c %s a.mtr)
	for k in $(seq 0 $((size - 1))); do
		perl -e 'open my $f, "<", $ARGV[0]; binmode $f; local $/; my $d = <$f>;
			substr($d, $ARGV[1], 1) ^= "A"; print $d' a.mtr "$k" >bad.mtr
		run --separate-stderr mt-decode bad.mtr
		if [ "$status" = 0 ]; then
			[ "$output" = "$(cat full.txt)" ]
		else
			[ "$status" = 1 ]
			[ "${#stderr_lines[@]}" = 1 ]
		fi
	done
}

@test "not a trace, a newer version: a clear message and exit 1" {
	printf '\x01\x02binary' >junk
	run -1 --separate-stderr mt-decode junk
	[ "$stderr" = "mt-decode: junk: not an mt trace or event text (bad magic)" ]
	printf '\x89MTQ\r\n\x1a\n\x01\0\0\0\0\0\0\0' >bad.mtr
	run -1 --separate-stderr mt-decode bad.mtr
	[ "$stderr" = "mt-decode: bad.mtr: not an mt trace (bad magic)" ]
	printf '\x89MTR\r\n\x1a\n\x04\0\0\0\0\0\0\0' >v4.mtr
	run -1 --separate-stderr mt-decode v4.mtr
	[ "$stderr" = "mt-decode: v4.mtr: trace version 4 is newer than this mt reads (3)" ]
	printf '\x89MTR\r\n\x1a\n\0\0\0\0\0\0\0\0' >v0.mtr
	run -1 --separate-stderr mt-decode v0.mtr
	[ "$stderr" = "mt-decode: v0.mtr: trace version 0: no mt writes that" ]
	run -1 --separate-stderr mt-decode no-such.mtr
	[ "$stderr" = "mt-decode: no-such.mtr: No such file or directory" ]
}

@test "an empty file or input is not a trace: said, exit 1, for every reader" {
	: >e.mtr
	run -1 --separate-stderr mt-decode -c e.mtr
	[ "$stderr" = "mt-decode: e.mtr: empty: not an mt trace or event text" ]
	run -1 --separate-stderr mt-decode </dev/null
	[ "$stderr" = "mt-decode: <stdin>: empty: not an mt trace or event text" ]
	for p in mt-symbolize mt-lifetime mt-window mt-group mt-pooldiff; do
		run --separate-stderr "$p" e.mtr
		[ "$status" -ge 1 ] && [ "$status" -le 2 ]
		[ "${stderr_lines[0]}" = "$p: e.mtr: empty: not an mt trace or event text" ]
	done
}

@test "bad text lines: prog: file:line: what 'token', the rest goes on, exit 1" {
	run -1 --separate-stderr mt-decode "$FIX/badlines.txt"
	[ "${lines[0]}" = "$(printf 'alloc\t10\t100\t100\tmalloc\t0x10\t32\t1')" ]
	[ "${lines[1]}" = "$(printf 'allc\t1\tunknown records of a newer version pass')" ]
	[ "${lines[2]}" = "$(printf 'free\t14\t100\t100\tmalloc\t0x10\t-')" ]
	[ "${#lines[@]}" = 3 ]
	[ "$stderr" = "mt-decode: $FIX/badlines.txt:2: bad record 'Alloc'
mt-decode: $FIX/badlines.txt:3: bad time 'x'
mt-decode: $FIX/badlines.txt:4: bad address 'zz'
mt-decode: $FIX/badlines.txt:5: bad exit status 'SIGFOO'
mt-decode: $FIX/badlines.txt:6: missing fields in 'alloc'" ]
}

@test "numbers of every length read as python reads them; the bad ones said, line by line" {
	# Times and sizes of 0-22 digits, leading zeros, around 2^63 and 2^64,
	# a stray character here and there; pids signed, of 32 bits.  Python
	# is the oracle: what passes, what is said, and (through mt-lifetime,
	# which writes the numbers anew) their values.
	python3 - <<'PY'
import random
random.seed(9)
lines, out, err, lives = [], [], [], []
def num():
    r = random.random()
    if r < 0.05:
        return random.choice(('18446744073709551615', '18446744073709551616', '018446744073709551615',
                              '9223372036854775807', '9223372036854775808', '09223372036854775807',
                              '99999999999999999999', '9999999999999999999', '0', '00000000000000000000000'))
    s = ''.join(random.choice('0123456789') for _ in range(random.randrange(0, 23)))
    if s and random.random() < 0.05:
        k = random.randrange(len(s))
        s = s[:k] + random.choice('x:/ -+.') + s[k + 1:]
    return s
def ok(s, bound=2 ** 63):
    return s.isdigit() and s.isascii() and int(s) < bound
for n in range(1, 20001):
    t, size, pid = num(), num(), random.choice((num(), '+' + num(), '-0'))
    line = 'alloc\t%s\t%s\t7\tmalloc\t0x%x\t%s\t-' % (t, pid, 16 * n, size)
    lines.append(line)
    p = pid[1:] if pid[:1] in '+-' else pid
    # '-': an allocation made before recording (mt-record -p)
    if t != '-' and not ok(t):
        err.append("n.txt:%d: bad time '%s'" % (n, t))
    elif not (ok(p, 2 ** 31) and (pid[0] != '-' or int(p) == 0)):
        err.append("n.txt:%d: bad pid '%s'" % (n, pid))
    elif not ok(size):
        err.append("n.txt:%d: bad size '%s'" % (n, size))
    else:
        out.append(line)
        if t == '-':
            lives.append('life\t-\t-\t%d\t7\tmalloc\t0x%x\t%d\t-\taofo\t0\tend' % (int(p), 16 * n, int(size)))
        else:
            lives.append('life\t%d\t-\t%d\t7\tmalloc\t0x%x\t%d\t-\taifo\t%d\tend' % (int(t), int(p), 16 * n, int(size), int(size)))
open('n.txt', 'w').write('\n'.join(lines) + '\n')
open('n.out', 'w').write('\n'.join(out) + '\n')
open('n.err', 'w').write('\n'.join(err) + '\n')
open('n.life', 'w').write('\n'.join(sorted(lives)) + '\n')
PY
	[ "$(wc -l <n.out)" -gt 5000 ]
	[ "$(wc -l <n.err)" -gt 5000 ]
	[ "$(wc -l <n.life)" -gt 1000 ]
	run -1 bash -c 'mt-decode n.txt >got.out 2>got.err'
	diff n.out got.out
	diff <(sed 's/^/mt-decode: /' n.err) got.err
	# Their values, as mt-lifetime writes them anew.
	mt-lifetime -q n.out | grep '^life' | sort >got.life
	diff n.life got.life
}

@test "a full standard output is said, exit 1" {
	run -1 --separate-stderr bash -c "mt-decode '$FIX/roundtrip.txt' >/dev/full"
	[ "$stderr" = "mt-decode: stdout: No space left on device" ]
}

@test "a corrupt frame is skipped, said with its number, and the frames after it decode (exit 1)" {
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN { printf "#mt-events\t1\tstart=0\thost=x\nproc\t5\t1\t0\t/bin/x\tx\n"
		for (i = 1; i <= 3000; i++) printf "alloc\t%d\t5\t5\tmalloc\t0x%x\t%d\t-\n", i, 4096 + 64 * i, i % 100 + 1 }' >f.txt
	"$PROGS/mtr-encode" -n 1000 f.txt >f.mtr
	# one bit flipped in the first frame, 60 bytes past its zstd magic
	python3 -c '
import sys
d = bytearray(open("f.mtr", "rb").read())
d[d.index(bytes([0x28, 0xb5, 0x2f, 0xfd])) + 60] ^= 0x10
open("bad.mtr", "wb").write(d)'
	run -1 --separate-stderr mt-decode bad.mtr
	[[ "$stderr" == "mt-decode: bad.mtr: corrupt frame 1 (byte 16): "*"; skipped to byte "* ]]
	# the later frames whole (two of 1000 records, and the rest): the
	# last allocations of the trace, as they were
	n=$(grep -c '^alloc' <<<"$output")
	[ "$n" -ge 2000 ] && [ "$n" -lt 3000 ]
	diff <(mt-decode f.mtr | grep '^alloc' | tail -n "$n") <(grep '^alloc' <<<"$output")
	# and through a filter too
	run -1 --separate-stderr mt-lifetime bad.mtr
	[ "$(grep -c '^life' <<<"$output")" = "$n" ]
}
