#!/usr/bin/env bats
# mt-window on the WPA walkthrough (tests/progs/memtestapp.c), recorded
# for real: the numbers WPA-SEMANTICS.md says WPA shows.

load helpers

setup_file() {
	record_walkthrough
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# count size impact of the life lines of heap $2 in $1
sums() {
	awk -F'\t' -v h="$2" '$1 == "life" && $6 == h {
		n++; if ($10 ~ /^ai/) s += $8; i += $11 } END { print n + 0, s + 0, i + 0 }' "$1"
}

@test "the whole run: mmap Size 120 MiB, Impacting Size 0; the leak impacting, to the block" {
	mt-window wpa.life >w.txt
	[ "$(head -n 2 w.txt | tail -n 1 | cut -f1)" = window ]
	[ "$(sums w.txt mmap)" = "12 $((120 * MiB)) 0" ]
	[ "$(awk -F'\t' '$1 == "life" && $6 == "malloc" && $8 == 40 && $10 == "aifo"' w.txt | wc -l)" = 250 ]
	[ "$(awk -F'\t' '$1 == "life" && $6 == "malloc" && $8 == 40 { i += $11 } END { print i }' w.txt)" = 10000 ]
}

@test "a window over the step-up: +10 MiB impacting, from main; the earlier 10 MiB counts 0" {
	step=$(step_up)
	[ -n "$step" ]
	mt-window --from "$((step - 1000000))ns" --to "$((step + 1000000))ns" --heap mmap wpa.life >w.txt
	[ "$(sums w.txt mmap)" = "2 $((10 * MiB)) $((10 * MiB))" ]
	[ "$(awk -F'\t' '$1 == "life" && $10 == "aofo"' w.txt | wc -l)" = 1 ]
	sid=$(awk -F'\t' '$1 == "life" && $10 == "aifo" { print $9 }' w.txt)
	frames=$(awk -F'\t' -v s="$sid" '$1 == "sym" { f[$2] = f[$2] $3 " " }
		$1 == "stack" && $2 == s { for (i = 3; i <= NF; i++) printf "%s", f[$i] }' w.txt)
	[[ $frames == "commit main "* ]]
}

@test "a window over the last four spikes: transient, Count 4, Size 40 MiB, impact 0, main->Operation1->ManipulateTemporaryBuffer" {
	from=$(spike 7)
	to=$(awk -F'\t' -v a="$(spike 10)" '$1 == "life" && $2 == a { print $3 }' wpa.life)
	mt-window --from "$((from - 1000000))ns" --to "$((to + 1000000))ns" \
		--match ManipulateTemporaryBuffer wpa.life >w.txt
	[ "$(sums w.txt mmap)" = "4 $((40 * MiB)) 0" ]
	[ "$(awk -F'\t' '$1 == "life" { print $10 }' w.txt | sort -u)" = aifi ]
	sid=$(awk -F'\t' '$1 == "life" { print $9 }' w.txt | sort -u | head -n 1)
	frames=$(awk -F'\t' -v s="$sid" '$1 == "stack" && $2 == s { for (i = 3; i <= NF; i++) print $i }' w.txt |
		while read -r ip; do awk -F'\t' -v ip="$ip" '$1 == "sym" && $2 == ip { print $3 }' w.txt; done | head -n 4 | tr '\n' ' ')
	[[ $frames == *"ManipulateTemporaryBuffer Operation1 main"* ]]
	# without the filter the steady state is there too, outstanding
	mt-window --from "$((from - 1000000))ns" --to "$((to + 1000000))ns" --heap mmap wpa.life >all.txt
	[ "$(sums all.txt mmap)" = "6 $((40 * MiB)) 0" ]
	[ "$(awk -F'\t' '$1 == "life" && $10 == "aofo"' all.txt | wc -l)" = 2 ]
}

@test "--exclude, --pid, --last, and the window line" {
	mt-window --exclude ManipulateTemporaryBuffer --heap mmap wpa.life >w.txt
	[ "$(sums w.txt mmap | cut -d' ' -f1)" = 2 ]
	pid=$(awk -F'\t' '$1 == "proc" { print $2 }' wpa.life)
	[ "$(mt-window --pid "$pid" wpa.life | grep -c '^life')" = "$(grep -c '^life' wpa.life)" ]
	[ "$(mt-window --pid 1 wpa.life | grep -c '^life')" = 0 ]
	run -0 bash -c "mt-window --last 100ms <wpa.life | grep '^window'"
	read -r _ a b <<<"$output"
	[ $((b - a)) = 100000000 ]
}

@test "--series: outstanding memory per process and heap at every step" {
	run -0 mt-window --series 10ms --heap mmap wpa.life
	# 10 MiB steady from the start, 20 MiB after the step-up, spikes on top
	max=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "sample" && $5 > m { m = $5 } END { print m }')
	[ "$max" = $((30 * MiB)) ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "sample" { print $5 }' | sort -un | head -n 3 | tr '\n' ' ')" = "0 $((10 * MiB)) $((20 * MiB)) " ]
}

@test "bad options and bad input" {
	run -2 --separate-stderr mt-window --from xs wpa.life
	[ "$stderr" = "mt-window: bad duration for --from 'xs'" ]
	run -2 --separate-stderr mt-window --match '(' wpa.life
	has_line "$stderr" "^mt-window: bad regular expression '\(': missing closing parenthesis at 1$"
	run -2 --separate-stderr mt-window --from 2s --to 1s wpa.life
	[ "$stderr" = "mt-window: empty window: --to must come after --from" ]
}

@test "share/mt-plot draws the series as a PNG and an SVG" {
	mt-window --series 5ms wpa.life >s.txt
	run -0 "$TESTS/../share/mt-plot" -o g.png -t walkthrough s.txt
	[ "$output" = "mt-plot: g.png" ]
	[ "$(head -c 8 g.png | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
	run -0 "$TESTS/../share/mt-plot" -o g.svg s.txt
	grep -q '<svg' g.svg
	run -1 --separate-stderr "$TESTS/../share/mt-plot" -o g.png /dev/null
	[ "$stderr" = "mt-plot: no sample lines (mt-window --series STEP makes them)" ]
}

@test "mt-plot: /dev/zero, a trace, a directory judged before awk reads them: said, exit 1" {
	run -1 --separate-stderr timeout 10 "$TESTS/../share/mt-plot" -o z.png /dev/zero
	[ "$stderr" = "mt-plot: /dev/zero: not event text (bad magic)" ]
	# a trace is read as mt-window -b's stream is, and has no samples
	run -1 --separate-stderr timeout 10 "$TESTS/../share/mt-plot" -o z.png wpa.mtr
	[ "$stderr" = "mt-plot: no sample lines (mt-window --series STEP makes them)" ]
	run -1 --separate-stderr timeout 10 "$TESTS/../share/mt-plot" -o z.png </dev/zero
	[ "$stderr" = "mt-plot: <stdin>: not event text (bad magic)" ]
	mkdir -p dir
	run -1 --separate-stderr "$TESTS/../share/mt-plot" -o z.png dir
	[ "$stderr" = "mt-plot: dir: Is a directory" ]
	run -1 --separate-stderr "$TESTS/../share/mt-plot" -o z.png no-such
	[ "$stderr" = "mt-plot: no-such: No such file or directory" ]
	[ ! -e z.png ]
	# the byte judged is put back: stdin draws what the file draws
	mt-window --series 5ms wpa.life >s.txt
	"$TESTS/../share/mt-plot" -o f.svg s.txt
	run -0 "$TESTS/../share/mt-plot" -o i.svg <s.txt
	cmp f.svg i.svg
}

@test "--series: many processes and heaps, lifetimes interleaved, against python's own sums, maxima and minima, and their instants" {
	python3 - <<'PY'
import random
random.seed(3)
lives, out = [], []
for n in range(20000):
    pid, heap = random.randrange(100, 400), random.choice(('malloc', 'mmap', 'cache:x'))
    ta = random.randrange(0, 1000000)
    tf = ta + random.randrange(1, 300000) if random.random() < 0.8 else None
    size = random.randrange(1, 5000)
    lives.append((pid, heap, ta, tf, size))
    out.append('life\t%d\t%s\t%d\t%d\t%s\t0x%x\t%d\t-\t%s\t%d' % (ta, '-' if tf is None else tf, pid,
        pid, heap, 4096 + 16 * n, size, 'aifo' if tf is None else 'aifi', size if tf is None else 0))
end = max(max(ta, tf or 0) for _, _, ta, tf, _ in lives) + 1
step = 50000
exp = []
for pid, heap in sorted(set((l[0], l[1]) for l in lives)):
    mine = [l for l in lives if l[0] == pid and l[1] == heap]
    def at(t):
        return sum(l[4] for l in mine if l[2] <= t and (l[3] is None or t < l[3]))
    changes = sorted(set([l[2] for l in mine] + [l[3] for l in mine if l[3] is not None]))
    for k in range((end - 1 + step - 1) // step + 1):
        t = k * step
        on = [l for l in mine if l[2] <= t and (l[3] is None or t < l[3])]
        # every instant of (t - step, t]: where it starts, and each change in it
        # (the bytes then, the instant), in time order
        seen = [(at(t), t)] if k == 0 else [(at(t - step), t - step)] + \
            [(at(c), c) for c in changes if t - step < c <= t]
        hi, lo = max(v for v, _ in seen), min(v for v, _ in seen)
        # the first instant each was reached
        thi, tlo = next(c for v, c in seen if v == hi), next(c for v, c in seen if v == lo)
        exp.append('sample\t%d\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d' % (t, pid, heap, sum(l[4] for l in on),
            len(on), hi, lo, thi, tlo))
open('l.txt', 'w').write('\n'.join(out) + '\n')
open('expect', 'w').write('\n'.join(sorted(exp)) + '\n')
PY
	mt-window --series 50us l.txt | grep '^sample' | sort >got
	[ "$(wc -l <expect)" -gt 10000 ]
	diff expect got
	# The same past the changes it keeps: runs in TMPDIR, merged.
	MT_WINDOW_KEEP=1000 mt-window --series 50us l.txt | grep '^sample' | sort >got.runs
	diff expect got.runs
}

@test "--match and --exclude on the process: its executable, by pid, among many processes" {
	# 300 processes, three executables; pid 1100 runs /bin/sh, then execs
	# /usr/bin/cc: it matches either name.  Each has one lifetime.
	awk 'BEGIN { for (p = 1000; p < 1300; p++) {
		e = p % 3 == 0 ? "/usr/bin/cc" : p % 3 == 1 ? "/usr/bin/ld" : "/bin/sh"
		printf "proc\t%d\t1\t0\t%s\t%s\n", p, e, e
		if (p == 1100)
			printf "proc\t%d\t1\t1\t/usr/bin/cc\tcc\n", p
		printf "life\t%d\t%d\t%d\t%d\tmalloc\t0x%x\t8\t-\taifi\t0\n", p, p + 1, p, p, 4096 + p * 16 } }' >p.life
	pids() { awk -F'\t' '$1 == "life" { print $4 }' | sort -n | tr '\n' ' '; }
	[ "$(mt-window --match '/cc$' p.life | pids)" = "$(awk 'BEGIN { for (p = 1000; p < 1300; p++) if (p % 3 == 0 || p == 1100) printf "%d ", p }')" ]
	[ "$(mt-window --exclude 'sh$|cc$' p.life | pids)" = "$(awk 'BEGIN { for (p = 1000; p < 1300; p++) if (p % 3 == 1 && p != 1100) printf "%d ", p }')" ]
	[ "$(mt-window --match '^/bin/sh$' --exclude cc p.life | grep -c '^life')" -eq 99 ]
}

# A root process (100) that runs to 1.1 s with 4096 bytes it never frees,
# and a child (200) that leaks 100 blocks of 1000 bytes and exits at
# 0.117 s, as leak1 under a shell.
exited_child() {
	printf '#mt-events\t1\tstart=0\thost=t\n'
	printf 'proc\t100\t1\t0\t/bin/sh\tsh\n'
	printf 'alloc\t1000\t100\t100\tmalloc\t0x9000\t4096\t-\n'
	printf 'proc\t200\t100\t50000000\t/usr/bin/leak1\tleak1\n'
	for i in $(seq 100); do
		printf 'alloc\t%d\t200\t200\tmalloc\t0x%x\t1000\t-\n' $((90000000 + i)) $((65536 + i * 1024))
	done
	printf 'exit\t117000000\t200\t0\n'
	printf 'alloc\t600000000\t100\t100\tmalloc\t0xa000\t64\t-\n'
	printf 'free\t700000000\t100\t100\tmalloc\t0xa000\t-\n'
	printf 'exit\t1100000000\t100\t0\n'
}

@test "an exited process holds nothing after its exit in a series; its leak is outstanding in every window" {
	exited_child | mt-lifetime >e.life 2>/dev/null
	# leak1's blocks end at its exit, still leaked at exit
	[ "$(awk -F'\t' '$1 == "life" && $4 == 200 && $3 == 117000000 && $12 == "exit"' e.life | wc -l)" = 100 ]
	mt-window --series 100ms e.life >s.txt
	[ "$(awk -F'\t' '$3 == 200 && $2 == 100000000 { print $5, $6 }' s.txt)" = "100000 100" ]
	[ "$(awk -F'\t' '$3 == 200 && $2 >= 200000000 && $5 != 0' s.txt | wc -l)" = 0 ]
	[ "$(awk -F'\t' '$3 == 200 && $2 >= 200000000' s.txt | wc -l)" = 10 ]
	[ "$(awk -F'\t' '$3 == 100 && $2 == 1000000000 { print $5 }' s.txt)" = 4096 ]
	# --at after its exit: nothing of it
	run -0 mt-window --at 0.3s e.life
	[ "$(echo "$output" | awk -F'\t' '$1 == "life" && $4 == 200' | wc -l)" = 0 ]
	# a window after its exit: its leak is the baseline, as in WPA, where
	# an exit writes no free
	mt-window --from 0.3s --to 0.5s e.life >w.txt
	[ "$(awk -F'\t' '$1 == "life" && $4 == 200 && $10 == "aofo" && $11 == 0' w.txt | wc -l)" = 100 ]
	[ "$(awk -F'\t' '$1 == "life" && $4 == 100 { print $10, $11 }' w.txt)" = "aofo 0" ]
	# a window over its exit: allocated inside and never freed, impacting
	mt-window --from 0.05s --to 0.5s e.life >w.txt
	[ "$(awk -F'\t' '$1 == "life" && $4 == 200 && $10 == "aifo" && $11 == 1000' w.txt | wc -l)" = 100 ]
	run -0 mt-group --by pid,type w.txt
	has_line "$output" '^200 +leaked +100 +97.7 KiB +97.7 KiB +1000 B$'
	# the whole run as a window: the same as no window
	mt-window e.life >w.txt
	[ "$(awk -F'\t' '$1 == "life" && $4 == 200 && $10 == "aifo" && $11 == 1000' w.txt | wc -l)" = 100 ]
	[ "$(awk -F'\t' '$1 == "life" && $4 == 100 && $8 == 4096 { print $10, $11 }' w.txt)" = "aifo 4096" ]
	diff <(mt-group --format tsv w.txt) <(mt-group --format tsv e.life)
}

@test "recorded: no process holds memory at a sample at or after its exit, nor after an exec" {
	mt-record -o x.mtr -- sh -c "$PROGS/demo >/dev/null; $PROGS/demo >/dev/null; sleep 0.3; exec $PROGS/demo >/dev/null" 2>/dev/null
	mt-decode x.mtr | awk -F'\t' '$1 == "exit" { print $3, $2 } $1 == "proc" { print $2, $4, "proc" }' >ends
	mt-lifetime -q x.mtr | mt-window --series 20ms >s.txt
	# demo leaks 96 bytes at exit: each of the two children held them
	[ "$(awk '$3 == "" ' ends | wc -l)" -ge 3 ]
	awk -F'\t' 'NR == FNR { if ($3 == "") end[$1] = $2; else if (seen[$1]++) exec_[$1] = $2; next }
		$1 == "sample" && ($3 in end) && $2 + 0 >= end[$3] + 0 && $5 != 0 { print "held after exit:", $0; bad++ }
		END { exit bad > 0 }' FS=' ' ends FS='\t' s.txt
	# the shell's image ended at its exec: its blocks are not the last demo's
	[ "$(mt-lifetime -q x.mtr | awk -F'\t' '$1 == "life" && $12 == "exit" && $3 == "-"' | wc -l)" = 0 ]
}

@test "--process: by the name mt-group shows, never by path or frame" {
	# the assembler, and a cc1plus with a frame in a function 'alias'
	{
		printf 'proc\t10\t1\t0\t/usr/bin/x86_64-linux-gnu-as\tas\n'
		printf 'proc\t20\t1\t0\t/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus\tcc1plus\n'
		printf 'proc\t30\t1\t0\t/usr/bin/as-not\tx\n'
		printf 'stack\t1\t0x1000\n'
		printf 'sym\t0x1000\talias\tgcc/alias.cc:10\t/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus\n'
		for p in 10 20 30; do
			printf 'life\t1\t2\t%d\t%d\tmalloc\t0x%x\t8\t%s\taifi\t0\n' $p $p $((4096 * p)) \
				"$([ $p = 20 ] && echo 1 || echo -)"
		done
	} >a.life
	pids() { awk -F'\t' '$1 == "life" { print $4 }' | tr '\n' ' '; }
	[ "$(mt-window --process '^x86_64-linux-gnu-as$' a.life | pids)" = "10 " ]
	[ "$(mt-window -N 'as$' a.life | pids)" = "10 " ]
	[ "$(mt-window --process '^as' a.life | pids)" = "30 " ]
	# --match also takes paths and frames: cc1plus's frame in alias
	[ "$(mt-window --match 'as$' a.life | pids)" = "10 20 " ]
	[ "$(mt-window --match '^x86_64-linux-gnu-as$' a.life | pids)" = "" ]
	# the name mt-group shows for it
	[ "$(mt-window --process '^x86_64-linux-gnu-as$' a.life | mt-group --by process --format tsv | cut -f1 | tail -n 1)" = x86_64-linux-gnu-as ]
	run -2 mt-window --process '(' a.life
}

@test "mt-plot: a title and a file name are text, never gnuplot's code" {
	mt-window --series 5ms wpa.life >s.txt
	rm -f pwned1 pwned2
	t='a"; system("touch pwned1"); "`touch pwned2` x_2^3'
	run -0 "$TESTS/../share/mt-plot" -o 'g"q.svg' -t "$t" s.txt
	[ ! -e pwned1 ] && [ ! -e pwned2 ]
	[ -s 'g"q.svg' ]
	# written as given: no markup taken from it (x_2^3 stays)
	grep -qF 'x_2^3' 'g"q.svg'
}

@test "stdin kept in TMPDIR for the second reading, and a bad line said once, as stdin's" {
	printf 'life\t1\t2\t10\t10\tmalloc\t0x10\t8\t-\taifi\t0\nlife\tx\n' >bad.life
	run -1 --separate-stderr mt-window <bad.life
	[ "$stderr" = "mt-window: <stdin>:2: missing fields in 'life'" ]
	run -2 --separate-stderr env TMPDIR=/nonexistent mt-window <bad.life
	[ "$stderr" = "mt-window: a copy of <stdin> in /nonexistent: No such file or directory" ]
}

@test "/dev/zero on stdin: judged by its first bytes, nothing kept in TMPDIR, said once as stdin's" {
	mkdir -p spool
	rm -f spool/*
	run -1 --separate-stderr env TMPDIR="$PWD/spool" timeout 10 mt-window </dev/zero
	[ -z "$output" ]
	[ "$stderr" = "mt-window: <stdin>: not an mt trace or event text (bad magic)" ]
	[ -z "$(ls -A spool)" ]
	# what it read of stdin: the 8 bytes of a magic, not 64 MiB spooled
	truncate -s 64M zeros
	run -1 --separate-stderr sh -c 'TMPDIR="$1" timeout 10 mt-window --at peak; r=$?
		sed -n "s/^pos:[[:space:]]*/read /p" /proc/$$/fdinfo/0; exit $r' sh "$PWD/spool" <zeros
	[ "$output" = "read 8" ]
	[ "$stderr" = "mt-window: <stdin>: not an mt trace or event text (bad magic)" ]
	rm zeros
	# a file named: said once, by its name, though it is read twice
	run -1 --separate-stderr timeout 10 mt-window /dev/zero
	[ "$stderr" = "mt-window: /dev/zero: not an mt trace or event text (bad magic)" ]
	printf '\x89MTQ\r\n\x1a\n\x01\0\0\0\0\0\0\0' >bad.mtr
	run -1 --separate-stderr mt-window <bad.mtr
	[ "$stderr" = "mt-window: <stdin>: not an mt trace (bad magic)" ]
	# a good stdin is kept and read twice, as before
	run -0 --separate-stderr mt-window <wpa.life
	[ "$output" = "$(mt-window wpa.life)" ]
}

@test "a regular expression that fails to match (match limit, invalid UTF-8): said with the pattern, counted, exit 1" {
	x=$(printf 'x%.0s' $(seq 40))
	printf 'proc\t10\t1\t0\t/bin/%s\tx\nproc\t11\t1\t0\t/bin/%s\tx\n' "$x" "$x" >re.life
	printf 'life\t1\t2\t%d\t%d\tmalloc\t0x%x\t8\t-\taifi\t0\n' 10 10 16 11 11 32 >>re.life
	run -1 --separate-stderr mt-window --exclude '(x+x+)+[^x]' re.life
	[ "${stderr_lines[0]}" = "mt-window: regular expression '(x+x+)+[^x]': match limit exceeded: taken as no match (the count at the end)" ]
	[ "${stderr_lines[1]}" = "mt-window: regular expression '(x+x+)+[^x]': match limit exceeded in 2 subjects, taken as no match" ]
	printf 'proc\t12\t1\t0\t/bin/\377\tx\nlife\t1\t2\t12\t12\tmalloc\t0x30\t8\t-\taifi\t0\n' >u.life
	run -1 --separate-stderr mt-window --match '(*UTF)x' u.life
	[[ "${stderr_lines[0]}" == "mt-window: regular expression '(*UTF)x': UTF-8 error: "* ]]
}

@test "--series: memory for the steps that change, not one per step (lifetimes longer than the window at a fine step)" {
	{
		printf 'proc\t10\t1\t0\t/bin/a\ta\n'
		for h in 1 2 3; do
			printf 'life\t0\t1000000000000\t10\t10\theap%d\t0x10\t8\t-\taifi\t0\n' $h
		done
		printf 'life\t500000\t700000\t10\t10\theap1\t0x20\t4\t-\taifi\t0\n'
	} >long.life
	# 1000 s lives at 1 us steps: once 10^9 steps of 16 bytes a series
	# peak RSS, not ulimit -v: a sanitizer's shadow takes address space
	run -0 --separate-stderr peak_rss rss mt-window --series 1us --to 1ms long.life
	[ "$(tail -n 1 rss)" -lt "$(rss_bound 500000)" ]
	# the proc line passed on, then 1001 samples a heap: 0 to 1 ms
	[ "${#lines[@]}" = 3004 ]
	[ "$(printf '%s\n' "$output" | grep -c '^sample')" = 3003 ]
	[ "$(awk -F'\t' '$4 == "heap1" && $2 == 600000 { print $5, $6 }' <<<"$output")" = "12 2" ]
	[ "$(awk -F'\t' '$4 == "heap1" && $2 == 700000 { print $5, $6 }' <<<"$output")" = "8 1" ]
}

@test "--series: a 100 ms spike is in the maximum of its sample at any step (ten spikes of 10 MiB)" {
	mt-record -o s.mtr -- "$PROGS/spikes" >/dev/null 2>&1
	mt-lifetime -q s.mtr >s.life
	for st in 1s 700ms 250ms 2s; do
		run -0 bash -c "mt-window --series $st s.life | grep '^sample'"
		# each line: bytes within [min, max]; the highest max is the peak,
		# 1 MiB held and 10 MiB at once; no step after the first misses one
		printf '%s\n' "$output" | awk -F'\t' -v peak=$((11 * 1048576)) '
			NF != 10 || $7 < $5 || $8 > $5 { print "bad: " $0; exit 1 }
			$7 > peak { print "over the peak: " $0; exit 1 }
			$7 == peak { n++ }
			END { if (n < 1) { print "no peak"; exit 1 } }'
	done
	# at 1s both whole steps held a spike, whether a sample instant fell
	# in one or not (a spike's length is the machine's: 100-200 ms)
	run -0 bash -c "mt-window --series 1s s.life | grep '^sample' | sed -n 2,3p"
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$7 == 11 * 1048576' | wc -l)" = 2 ]
	# each peak's instant is when a spike's 10 MiB was allocated, by
	# its life line, or the step's start when a spike was live then
	run -0 bash -c "mt-window --series 1s s.life | grep '^sample'"
	[ "$(awk -F'\t' -v peak=$((11 * 1048576)) '
		FNR == NR { if ($1 == "life" && $8 == 10485760) spike[$2] = 1; next }
		$7 == peak { all++ }
		$7 == peak && ($9 in spike && $9 > $2 - 1e9 && $9 <= $2 || $9 == $2 - 1e9 && was == peak) { n++ }
		{ was = $5 }
		END { print (n == all && all >= 2) }' s.life - <<<"$output")" = 1 ]
	mt-record -o m.mtr -- "$PROGS/spikes" mmap >/dev/null 2>&1
	run -0 bash -c "mt-lifetime -q m.mtr | mt-window --series 1s --heap mmap | grep '^sample'"
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$7 == 10 * 1048576' | wc -l)" -ge 2 ]
	# reserve and commit, as VirtualAlloc's users do: at 1 s 10 MiB
	# committed within each step
	mt-record -o r.mtr -- "$PROGS/spikes" reserve >/dev/null 2>&1
	run -0 bash -c "mt-lifetime -q r.mtr | mt-window --series 1s --heap mmap | grep '^sample' | sed -n 2,3p"
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$7 == 10 * 1048576' | wc -l)" = 2 ]
}

@test "--series: more changes than it keeps at the nanosecond: exact, in runs in TMPDIR, memory bounded" {
	# 2.2M blocks of 1 byte, each live 5 ns of every 10; one of 1000 bytes
	awk 'BEGIN { for (i = 0; i < 2200000; i++)
		printf "life\t%d\t%d\t1\t1\tmalloc\t0x%x\t1\t-\taifi\t0\n", i * 10, i * 10 + 5, 4096 + i * 16
		print "life\t6000002\t6000003\t1\t1\tmalloc\t0x10\t1000\t-\taifi\t0" }' >b.life
	mt-window --series 1ms b.life >all.txt
	run ! grep -q '^#mt-window' all.txt
	# every step but the spike's: 1 byte at most, 0 at least
	awk -F'\t' '$1 == "sample" && $2 > 0 && $2 != 7000000 && ($7 != 1 || $8 != 0) { exit 1 }' all.txt
	output=$(cat all.txt)
	# the spike in (6 ms, 7 ms]: the 1000 bytes and the 1 beside, at 6000002
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "sample" && $2 == 7000000 { print $7, $9 }')" = "1001 6000002" ]
	# 0 to 22 ms: the first sample at or after the last instant, 21.999995 ms
	[ "$(printf '%s\n' "$output" | grep -c '^sample')" = 23 ]
	# the same with 100,000 changes kept, in some 20 MB
	run -0 --separate-stderr peak_rss rss env MT_WINDOW_KEEP=100000 mt-window --series 1ms b.life
	cmp all.txt <(printf '%s\n' "$output")
	[ "$(tail -n 1 rss)" -lt "$(rss_bound 60000)" ]
}

# massif_peak PROG...: the heap's peak bytes, as massif measures them
massif_peak() {
	valgrind --tool=massif --peak-inaccuracy=0 --massif-out-file=ms.out "$@" >/dev/null 2>&1
	grep -B8 'heap_tree=peak' ms.out | sed -n 's/^mem_heap_B=//p'
}

# heaptrack_peak PROG...: heaptrack_print's peak heap memory, in bytes
heaptrack_peak() {
	heaptrack -o ht "$@" >/dev/null 2>&1
	heaptrack_print ht.* 2>/dev/null | awk '/^peak heap memory consumption:/ {
		v = $5; u = substr(v, length(v)); v += 0
		print int(v * (u == "K" ? 1e3 : u == "M" ? 1e6 : u == "G" ? 1e9 : 1)) }'
}

# our_peak PROG...: the bytes of mt-window --at peak's sample line for malloc
our_peak() {
	mt-record -o p.mtr -- "$@" >/dev/null 2>&1
	mt-lifetime -q p.mtr >p.life
	mt-window --at peak --heap malloc p.life >at.life
	awk -F'\t' '$1 == "sample" && $4 == "malloc" { print $5 }' at.life
}

# near A B PERMILLE: A within PERMILLE thousandths of B
near() {
	echo "ours $1, theirs $2" >&3
	[ $(( ($1 > $2 ? $1 - $2 : $2 - $1) * 1000 )) -le $(( $2 * $3 )) ]
}

@test "--at peak: the peak of C, C++ and python3 programs as massif and heaptrack measure it; what was live then" {
	# C: ten spikes of 10 MiB over 1 MiB: exactly massif's peak
	ours=$(our_peak "$PROGS/spikes")
	[ "$ours" = "$(massif_peak "$PROGS/spikes")" ]
	[ "$ours" = $((11 * 1048576)) ]
	# what was live then, grouped: the two blocks, all of the peak
	run -0 mt-group --by heap --format tsv at.life
	[ "${lines[1]}" = "$(printf 'malloc\t2\t%d\t%d\t%d' "$ours" "$ours" $((ours / 2)))" ]
	# C++: massif exactly; heaptrack to its two decimals
	ours=$(our_peak "$PROGS/peak-cxx")
	[ "$ours" = "$(massif_peak "$PROGS/peak-cxx")" ]
	near "$ours" "$(heaptrack_peak "$PROGS/peak-cxx")" 2
	mt-symbolize p.life | mt-window --at peak --heap malloc | mt-group --no-suppress --by function,line --format tsv >g.tsv
	# the map's 20,000 nodes of 72 bytes and their strings' copies
	# (length 40 + i % 50, and the nul), at build()'s line that fills it
	want=$(awk 'BEGIN { for (k = 0; k < 20000; k++) s += 72 + 41 + k % 50; print s }')
	line=$(grep -n 'index\[i \* 7\] = ' "$PROGS/peak-cxx.cc" | cut -d: -f1)
	has_line "$(cat g.tsv)" "^build<[^\t]*\t[^\t]*peak-cxx\.cc:$line\t40000\t$want\t$want\t[0-9]+\$"
	[ "$(awk -F'\t' 'NR > 1 { s += $4 } END { print s }' g.tsv)" = "$ours" ]
	# python3 (its allocator off): within 0.5% of both (their own
	# libraries' and environment's few blocks besides)
	export PYTHONMALLOC=malloc PYTHONHASHSEED=0
	printf '%s\n' 'd = [{"k%d" % i: "v" * (i % 64)} for i in range(50000)]' 'del d' \
		'keep = [str(i) for i in range(10000)]' >p.py
	ours=$(our_peak /usr/bin/python3 p.py)
	near "$ours" "$(massif_peak /usr/bin/python3 p.py)" 5
	near "$ours" "$(heaptrack_peak /usr/bin/python3 p.py)" 5
}

@test "--at TIME: the lifetimes live at that instant; refused with a window or a series" {
	mt-record -o s.mtr -- "$PROGS/spikes" >/dev/null 2>&1
	mt-lifetime -q s.mtr >s.life
	# at 1 s: the 1 MiB held, a spike perhaps; never a block freed by then
	run -0 bash -c "mt-window --at 1s s.life | grep '^life'"
	printf '%s\n' "$output" | awk -F'\t' '($2 != "-" && $2 > 1000000000) || ($3 != "-" && $3 <= 1000000000) { exit 1 }'
	printf '%s\n' "$output" | awk -F'\t' '$8 == 1048576 && $10 == "aifo" && $11 == 1048576 { n++ } END { exit n != 1 }'
	# after the exit, nothing
	run -0 --separate-stderr bash -c "mt-window --at 100s s.life | grep -c '^life' || true"
	[ "$output" = 0 ]
	has_line "$stderr" "^mt-window: warning: --at 100s is past the trace's end \\([0-9]+\\.[0-9]+s\\)$"
	has_line "$stderr" '^mt-window: warning: no lifetimes live at 100s$'
	run -2 mt-window --at peak --series 1s s.life
	run -2 mt-window --at 1s --from 0 s.life
	run -2 mt-window --at soon s.life
}

@test "mt-plot: names as text, the biggest series and one 'other', a band where a step held more, reserve on its own axis" {
	# 12 processes of a cache each, one reserving; pid 100's a 100 ms spike
	awk 'BEGIN {
		for (p = 100; p < 112; p++) printf "proc\t%d\t1\t0\t/usr/bin/app_%d\tapp\n", p, p
		for (p = 100; p < 112; p++) for (k = 0; k <= 10; k++)
			printf "sample\t%d\t%d\tcache:anon_vma_chain\t%d\t1\t%d\t%d\n", k * 100000000, p,
			    (p - 99) * 1048576, (p == 100 && k == 5 ? 50 : p - 99) * 1048576, (p - 99) * 1048576
		for (k = 0; k <= 10; k++) printf "sample\t%d\t100\treserve\t%d\t1\t%d\t%d\n", k * 100000000, 1073741824, 1073741824, 1073741824
	}' >p.txt
	run -0 "$TESTS/../share/mt-plot" -n 3 -o p.svg p.txt
	# the three biggest by their peak (100 with its spike first), then other
	for t in 'app_100 (100) cache:anon_vma_chain' 'app_111 (111) cache:anon_vma_chain' \
		'app_110 (110) cache:anon_vma_chain' 'other (9 series)' 'app_100 (100) reserved' \
		'GiB reserved (dashed)'; do
		grep -qF ">$t<" p.svg || { echo "no '$t'"; return 1; }
	done
	[ -z "$(grep -F '>app_109 (109)' p.svg)" ]
	# the bands: filled, see-through
	grep -q 'fill-opacity' p.svg
	run -2 "$TESTS/../share/mt-plot" -n x -o p.svg p.txt
}

@test "--series and --at peak: bytes outstanding past 2^63-1 saturate, the sums kept wide, the field said, exit 1" {
	cd "$BATS_TEST_TMPDIR"
	M=9223372036854775807
	# two blocks of 2^63-1 bytes from the same nanosecond, freed apart
	printf 'life\t1\t%s\t10\t10\tmalloc\t0x%s\t%s\t-\taifi\t0\n' 5 100 $M 6 200 $M >big.life
	said="mt-window: a sample's bytes saturated at $M (more than 2^63-1: read it as at least that)"
	run -1 --separate-stderr mt-window --series 1ns big.life
	# once 0 bytes at 5 with a block of 2^63-1 live, and 2^64-2^63+1 at 6
	# (the instants: when the most and least were first reached, the
	# step's start when held from before)
	[ "$output" = "$(printf 'sample\t%s\t10\tmalloc\t%s\t%s\t%s\t%s\t%s\t%s\n' \
		0 0 0 0 0 0 0  1 $M 2 $M 0 1 0  2 $M 2 $M $M 1 1  3 $M 2 $M $M 2 2 \
		4 $M 2 $M $M 3 3  5 $M 1 $M $M 4 5  6 0 0 $M 0 5 6)" ]
	[ "$stderr" = "$said" ]
	run -1 --separate-stderr mt-window --at peak big.life
	[ "${lines[1]}" = "$(printf 'sample\t1\t10\tmalloc\t%s\t2' $M)" ]
	[ "$(printf '%s\n' "$output" | grep -c '^life')" = 2 ]
	[ "$stderr" = "$said" ]
}

# Over 65,536 changes in one series: the new ones are sorted and merged
# into the kept ones many times, and every sample is still the sum of
# the events, as an awk script reading mt-decode's text finds it.
@test "--series of 200,000 events, merged in parts, as the events sum to" {
	cd "$BATS_TEST_TMPDIR"
	"$PROGS/gen-trace" 200000 >g.mtr
	mt-lifetime -qb g.mtr >g.life
	mt-decode g.mtr | awk -F'\t' '!($1 == "alloc" && $5 != "malloc")' |
		awk -F'\t' -v step=100 -f "$BATS_TEST_DIRNAME/series.awk" | cut -f1,2,5- >want
	mt-window --series 100ns g.life | awk -F'\t' '$1 == "sample" && $4 == "malloc"' |
		cut -f1,2,5- >got
	[ "$(wc -l <want)" -gt 100000 ]
	diff want got
}

@test "--at peak past the changes it keeps: read again where a bucket may hold it, the instant and bytes exact" {
	cd "$BATS_TEST_TMPDIR"
	# two processes' 1- and 2-byte blocks, each live 5 ns of every 10;
	# a spike in each: 1000 bytes at 60,002 ns beside block 6000's byte,
	# 300 at 150,001-150,004 ns, beside pid 2's block 15000 from 150,003
	awk 'BEGIN { OFS = "\t"
		for (i = 0; i < 20000; i++) {
			print "life", i * 10, i * 10 + 5, 1, 1, "malloc", sprintf("0x%x", 4096 + i * 16), 1, "-", "aifi", 0
			print "life", i * 10 + 3, i * 10 + 8, 2, 2, "malloc", sprintf("0x%x", 4096 + i * 16), 2, "-", "aifi", 0 }
		print "life", 60002, 60003, 1, 1, "malloc", "0x10", 1000, "-", "aifi", 0
		print "life", 150001, 150004, 2, 2, "malloc", "0x10", 300, "-", "aifi", 0 }' >k.life
	printf 'sample\t60002\t1\tmalloc\t1001\t2\nsample\t150003\t2\tmalloc\t302\t2\n' >want
	run -0 --separate-stderr mt-window --at peak k.life
	[ -z "$stderr" ]
	grep '^sample' <<<"$output" | diff want -
	printf '%s\n' "$output" >all
	for keep in 4000 400 40; do
		run -0 --separate-stderr env MT_WINDOW_KEEP=$keep mt-window --at peak k.life
		[[ $stderr =~ "more changes than the $((keep / 4)) kept: the peaks made exact in "[0-9]+" more reading" ]]
		printf '%s\n' "$output" | diff all -
	done
	# and what was live then: block 6000, the spike of 1000, pid 2's two
	[ "$(grep -c '^life' all)" = 4 ]

	# a trace of the generator through mt-lifetime, and from stdin
	"$PROGS/gen-trace" 300000 | mt-lifetime -qb >g.life
	mt-window --at peak g.life >all
	[ "$(grep -c '^sample' all)" -ge 2 ]
	env MT_WINDOW_KEEP=8000 mt-window --at peak g.life 2>/dev/null | cmp all -
	env MT_WINDOW_KEEP=200 mt-window --at peak <g.life 2>/dev/null | cmp all -
}
