#!/usr/bin/env bats
# share/mt-plot, checked by the gnuplot script it writes (--gnuplot): the input
# it reads, the axes, the units, the panels, the shaded window and where
# a spike is drawn; and that the picture is made.

load helpers

setup_file() {
	record_walkthrough
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# gp SCRIPT: the script without its data (the lines of numbers)
gp() {
	grep -v '^[0-9-]' "$1"
}

# xdiv SCRIPT: nanoseconds a unit of its x axis, by its label
xdiv() {
	if grep -qx "set xlabel 'milliseconds'" "$1"; then echo 1000000; else echo 1000000000; fi
}

# x NS SCRIPT: NS as the script writes it on its x axis
x() {
	awk -v t="$1" -v d="$(xdiv "$2")" 'BEGIN { printf "%.6f", t / d }'
}

# series TITLE SCRIPT: the number of the datablock of the line titled so
series() {
	grep -o "\$d[0-9]* using 1:2 axes x1y1 with steps [^,]*title '$1'" "$2" | sed 's/^\$d\([0-9]*\) .*/\1/'
}

# png FILE: a PNG and not empty
png() {
	[ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]
}

@test "mt-plot reads the .mtr stream of mt-lifetime -b | mt-window -b as it reads text" {
	mt-lifetime -q -b wpa.mtr | mt-window -b --series 50ms >s.bin
	[ "$(head -c 4 s.bin | od -An -c | tr -d ' ')" = 211MTR ]
	run -0 mt-plot --gnuplot b.gp -o b.png s.bin
	[ "$output" = "mt-plot: b.png" ]
	png b.png
	mt-lifetime -q wpa.mtr | mt-window --series 50ms | mt-plot --gnuplot t.gp -o b.png
	cmp b.gp t.gp
	# from standard input, and with no mt-decode on PATH (the built one
	# beside share/ is found)
	run -0 env PATH=/usr/bin:/bin "$TESTS/../share/mt-plot" --gnuplot i.gp -o b.png <s.bin
	cmp b.gp i.gp
	png b.png
	# a stream cut short: mt-decode says so, nothing drawn
	head -c 100 s.bin >cut.bin
	run -1 --separate-stderr mt-plot -o c.png cut.bin
	[[ $stderr == mt-decode:* ]]
	[ "${#stderr_lines[@]}" = 1 ]
	[ ! -e c.png ]
}

@test "mt-plot: units that fit each panel, a panel for a heap a hundredth of another, the x axis the trace's" {
	mt-window --series 50ms wpa.life >s.txt
	run -0 mt-plot --gnuplot w.gp -o w.png s.txt
	png w.png
	gp w.gp >w.cmd
	# memtestapp's mappings: 30 MiB at once at most (memtestapp.c: the
	# steady 10, the step-up 10 and a transient 10); its malloc heap:
	# the 250 leaked blocks of 40 bytes (10,000 bytes, its own count)
	# and stdio's buffer, in KiB in a panel of its own
	grep -qx 'set multiplot layout 2,1 .*' w.cmd
	[ "$(grep -A1 '^set yrange' w.cmd | sed -n 1,2p)" = "$(printf "set yrange [0:32.4]\nset ylabel 'MiB outstanding: mmap'")" ]
	peak=$(awk -F'\t' '$1 == "sample" && $4 == "malloc" && $7 > m { m = $7 } END { print m }' s.txt)
	[ "$peak" -ge 10000 ] && [ "$peak" -lt $((1024 * 1024)) ]
	grep -qx "set yrange \\[0:$(awk -v p="$peak" 'BEGIN { printf "%.9g", p * 1.08 / 1024 }')\\]" w.cmd
	grep -qx "set ylabel 'KiB outstanding: malloc'" w.cmd
	[ "$(grep -c '^plot ' w.cmd)" = 2 ]
	# the x axis: from 0 to the first step at or after the trace's last
	# instant (the exit, by mt-decode)
	last=$(mt-decode wpa.mtr | awk -F'\t' '$1 == "exit" { print $2 }')
	end=$(( (last + 49999999) / 50000000 * 50000000 ))
	grep -qx "set xrange \\[0.000000:$(x $end w.gp)\\]" w.cmd
	# a 20.15 s trace ends at 20.15 s, not gnuplot's round 25
	awk 'BEGIN { for (k = 0; k <= 403; k++) printf "sample\t%.0f\t1\tmalloc\t%d\t1\t%d\t%d\n", k * 50000000, k * 300, k * 300, k * 300 }' >l.txt
	mt-plot --gnuplot l.gp -o l.png l.txt
	grep -qx 'set xrange \[0.000000:20.150000\]' l.gp
	# 120,900 bytes: KiB, one panel
	grep -qx "set ylabel 'KiB outstanding: malloc'" l.gp
	[ "$(grep -c '^set multiplot' l.gp)" = 0 ]
}

@test "mt-plot: heaps within a hundredfold share a panel; reserved address space has its own" {
	# spikes mmap: 1 MiB of malloc beside 10 MiB mappings
	mt-record -o m.mtr -- "$PROGS/spikes" mmap >/dev/null 2>&1
	mt-lifetime -q m.mtr | mt-window --series 100ms | mt-plot --gnuplot m.gp -o m.png
	grep -qx "set ylabel 'MiB outstanding: mmap, malloc'" m.gp
	[ "$(grep -c '^plot ' m.gp)" = 1 ]
	# spikes reserve: 100 MiB reserved, committed 10 MiB at a time
	mt-record -o r.mtr -- "$PROGS/spikes" reserve >/dev/null 2>&1
	mt-lifetime -q r.mtr | mt-window --series 100ms | mt-plot --gnuplot r.gp -o r.png
	png r.png
	[ "$(grep -c '^plot ' r.gp)" = 2 ]
	grep -qx "set ylabel 'MiB reserved (dashed)'" r.gp
	[ "$(grep '^plot ' r.gp | tail -n 1 | grep -o 'dt 2' | wc -l)" -ge 1 ]
	grep -qx "set yrange \\[0:108\\]" r.gp
}

@test "mt-plot --from/--to: the window a table covers, shaded on every panel" {
	mt-window --series 50ms wpa.life >s.txt
	run -0 mt-plot --from 300ms --to 0.6s --gnuplot w.gp -o w.png s.txt
	png w.png
	# the bounds mt-window takes for the same options
	read -r from to < <(mt-window --from 300ms --to 0.6s wpa.life | awk -F'\t' '$1 == "window" { print $2, $3; exit }')
	[ "$from $to" = "300000000 600000000" ]
	[ "$(grep -c "^set object 1 rect from first $(x $from w.gp), graph 0 to first $(x $to w.gp), graph 1 behind" w.gp)" = 1 ]
	if [ "$(xdiv w.gp)" = 1000000 ]; then l='300 to 600 ms'; else l='0.3 to 0.6 s'; fi
	grep -q "^set label 1 'window $l'" w.gp
	# before the first panel: on each of them
	[ "$(grep -n -m1 '^set object 1' w.gp | cut -d: -f1)" -lt "$(grep -n -m1 '^plot ' w.gp | cut -d: -f1)" ]
	# --from alone: to the end of the trace
	mt-plot -f 200ms --gnuplot f.gp -o f.png s.txt
	[ "$(sed -n "s/^set object 1 rect from first $(x 200000000 f.gp), graph 0 to first \([0-9.]*\),.*/\1/p" f.gp)" = \
	  "$(sed -n 's/^set xrange \[.*:\(.*\)\]/\1/p' f.gp)" ]
	# a window after the last sample: said, none drawn
	run -0 --separate-stderr mt-plot --from 100s --gnuplot p.gp -o p.png s.txt
	[[ $stderr == "mt-plot: warning: --from is past the last sample ("*"): no window drawn" ]]
	! grep -q '^set object' p.gp || false
	! grep -q '^set label' p.gp || false
	# no window asked: none drawn
	mt-plot --gnuplot n.gp -o n.png s.txt
	! grep -q '^set object' n.gp || false
	run -2 --separate-stderr mt-plot --from 2s --to 1s -o x.png s.txt
	[ "$stderr" = "mt-plot: empty window: --to must come after --from" ]
	run -2 --separate-stderr mt-plot --from 500 -o x.png s.txt
	[ "$stderr" = "mt-plot: bad time for --from '500' (10s, 250ms, 1.5s, 2m)" ]
	# the long forms with '=', and -f; --to wants its time
	mt-plot -f 300ms --to=600ms --gnuplot=e.gp -o w.png s.txt
	cmp w.gp e.gp
	run -2 --separate-stderr mt-plot -o x.png s.txt --to
	[ "${stderr_lines[0]}" = "mt-plot: option '--to' requires an argument" ]
}

@test "mt-plot: a spike drawn at its instant, not over its step" {
	# a 1 s step that held 10 MiB more from 0.23 s to 0.24 s, and one
	# that stepped up at 1.6 s: a line at 0.23, the step at 1.6
	printf 'sample\t%s\t1\tmalloc\t%s\t1\t%s\t%s\t%s\t%s\n' \
		0 1048576 1048576 1048576 0 0 \
		1000000000 1048576 11534336 1048576 230000000 0 \
		2000000000 2097152 2097152 1048576 1600000000 1000000000 >s.txt
	mt-plot --gnuplot s.gp -o s.png s.txt
	png s.png
	[ "$(sed -n '/^\$s1 << EOD/,/^EOD/p' s.gp)" = "$(printf '$s1 << EOD\n0.230000 1 10\nEOD')" ]
	[ "$(sed -n '/^\$d1 << EOD/,/^EOD/p' s.gp)" = \
	  "$(printf '$d1 << EOD\n0.000000 1\n1.000000 1\n1.600000 2\n2.000000 2\nEOD')" ]
	grep -q '\$s1 using 1:2:(0):3 axes x1y1 with vectors' s.gp
	! grep -q 'filledcurves' s.gp || false
	# the walkthrough at 100 ms: every instant drawn inside a step is one
	# at which a mapping was made or unmade, by the life lines
	mt-window --series 100ms wpa.life >w.txt
	mt-plot --gnuplot w.gp -o w.png w.txt
	d=$(xdiv w.gp) k=$(series mmap w.gp)
	[ -n "$k" ]
	awk -F'\t' -v d=$d '$1 == "life" && $6 == "mmap" { printf "%.6f\n", $2 / d
		if ($3 != "-") printf "%.6f\n", $3 / d }' wpa.life | sort -u >events
	awk -F'\t' -v d=$d '$1 == "sample" { printf "%.6f\n", $2 / d }' w.txt | sort -u >samples
	sed -n "/^\\\$[ds]$k << EOD/,/^EOD/p" w.gp | awk '$1 ~ /^[0-9]/ { print $1 }' | sort -u >x
	comm -23 x samples >drawn
	[ -s drawn ]
	[ -z "$(comm -23 drawn events)" ]
}

@test "mt-plot: a build's processes summed by program; a line only while its process lived" {
	mkdir -p build && cd build
	for n in 1 2 3 4 5 6 7 8 9 10; do
		printf '#include <stdlib.h>\nint f%d(void) { char *p = malloc(100); free(p); return %d; }\n' $n $n >f$n.c
	done
	printf 'all: %s\n%%.o: %%.c\n\t$(CC) -c -o $@ $<\n' "$(echo f{1..10}.o)" >Makefile
	mt-record -o b.mtr -- make -j2 >/dev/null 2>&1
	mt-lifetime -q b.mtr | mt-window --series 20ms >s.txt
	# the compilers by their proc lines: ten cc1 (or cc1 under another
	# driver's name: counted as mt-plot names them, by the executable)
	ncc1=$(awk -F'\t' '$1 == "proc" { sub(/.*\//, "", $5); if ($5 == "cc1") n++ } END { print n }' s.txt)
	[ "$ncc1" -ge 10 ]
	mt-plot --gnuplot b.gp -o b.png s.txt
	png b.png
	grep -q "title 'cc1 ($ncc1 processes) malloc'" b.gp
	# the sum at each sample: the cc1 processes' malloc bytes then
	k=$(series "cc1 ($ncc1 processes) malloc" b.gp)
	# in the unit of its panel's label
	u=$(awk -v k="$k" '/^set ylabel/ { u = $3 } /^plot / && index($0, "$d" k " ") { print substr(u, 2) }' b.gp)
	case $u in B) u=1 ;; KiB) u=1024 ;; MiB) u=1048576 ;; *) false ;; esac
	awk -F'\t' -v d="$(xdiv b.gp)" -v u=$u '
		FNR == NR { if ($1 == "proc") { sub(/.*\//, "", $5); cc1[$2] = $5 == "cc1" }; next }
		$1 == "sample" && $4 == "malloc" && cc1[$3] { s[$2] += $5 }
		END { for (t in s) printf "%.6f %.9g\n", t / d, s[t] / u }' s.txt s.txt | sort >want
	sed -n "/^\\\$d$k << EOD/,/^EOD/p" b.gp | grep '^[0-9]' | sort >got
	[ -s got ]
	[ -z "$(comm -13 want got)" ]
}

@test "mt-plot: a line from its process's first memory to after its last" {
	for k in 0 1 2 3 4 5 6; do
		printf 'sample\t%d\t7\tmalloc\t%d\t1\n' $((k * 1000000000)) $([ $k = 3 ] || [ $k = 4 ] && echo 2048 || echo 0)
	done >t.txt
	mt-plot --gnuplot t.gp -o t.png t.txt
	[ "$(sed -n '/^\$d1 << EOD/,/^EOD/p' t.gp)" = \
	  "$(printf '$d1 << EOD\n2.000000 0\n3.000000 2\n4.000000 2\n5.000000 0\nEOD')" ]
	grep -qx "set ylabel 'KiB outstanding: malloc'" t.gp
}

@test "mt-plot: never over its input, never half a picture; a link's target replaced" {
	cd "$BATS_TEST_TMPDIR"
	mt-lifetime -q "$BATS_FILE_TMPDIR/wpa.mtr" | mt-window --series 5ms >in.png
	cp in.png orig
	run -2 --separate-stderr mt-plot -o in.png in.png
	[ "$stderr" = "mt-plot: in.png: the input itself: not written over" ]
	run -2 --separate-stderr mt-plot -o in.png <in.png
	cmp in.png orig
	# gnuplot failing half way: the old picture stays, nothing beside it.
	mkdir bin
	printf '#!/bin/sh\nout=$(sed -n "s/^set output .\\(.*\\).$/\\\\1/p" "$1")\necho half >"$out"\nexit 1\n' >bin/gnuplot
	chmod +x bin/gnuplot
	echo old >p.png
	run -1 env PATH="$PWD/bin:$PATH" mt-plot -o p.png orig
	[ "$(cat p.png)" = old ]
	[ "$(ls -A | grep -c '^\.p\.png')" = 0 ]
	# Made whole: over a link, its target; the mode it had.
	chmod 604 p.png
	ln -s p.png l.png
	run -0 mt-plot -o l.png orig
	[ -L l.png ]
	[ "$(head -c 4 p.png | od -An -c | tr -d ' ')" = '211PNG' ]
	[ "$(stat -c %a p.png)" = 604 ]
}
