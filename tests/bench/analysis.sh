#!/bin/bash
# The analysis path against heaptrack_print (issue 43), on one run of
# python3 building and round-tripping 300k dicts LOOPS times (default 5:
# some 140M events) recorded by mt-record and by heaptrack.  Each step
# and heaptrack_print run in turn RUNS times (default 3), so that a
# machine whose speed drifts meanwhile (these do, by a fifth) slows them
# alike; a ratio is the median of each turn's own, with their range.
#
#   summary   mt-report app.mtr (wall, and CPU: how many cores it used)
#   -b        mt-lifetime -b | mt-symbolize | mt-group --by function
#   readme    mt-symbolize | mt-lifetime | mt-group --by type,function,line
#   window    mt-lifetime | mt-window --from 1s --to 2s | mt-group, text
#             and -b between the filters
#   peak      mt-window --at peak on the life lines: its time, and its
#             bytes and instant against mt-report's (exact: the same)
#   spill     mt-lifetime -b --memory with a tenth of the table it needs: its time,
#             its RSS, and its output against the one in memory (cmp)
# and each one's peak RSS, the pairer's as bytes a block live at the peak;
# then tests/bench/handoff.c: what a record costs to hand from one core to
# the other, the floor under splitting the summary's pass in two.
. "$(dirname "$0")/common.sh"

record_python "${LOOPS:-5}"
/usr/bin/time -f %M -o "$work/rss.mem" cmd/mt-lifetime -qb "$work/py.mtr" >"$work/py.life"
# A tenth of what pairing in memory takes (its RSS, the table most of it).
budget=$(( $(cat "$work/rss.mem") / 10 ))k

summary() { /usr/bin/time -f '%M %U %S' -o "$work/rss.summary" cmd/mt-report "$work/py.mtr" >/dev/null; }
ht() { /usr/bin/time -f %M -o "$work/rss.ht" heaptrack_print "$work"/ht.* >/dev/null; }
bpipe() {
	/usr/bin/time -f %M -o "$work/rss.lifetime" cmd/mt-lifetime -qb "$work/py.mtr" |
	cmd/mt-symbolize | cmd/mt-group --by function >/dev/null
}
readme() { cmd/mt-symbolize "$work/py.mtr" | cmd/mt-lifetime -q | cmd/mt-group --by type,function,line >/dev/null; }
# $1: -b for a .mtr stream between the filters, or nothing for text.
window() {
	cmd/mt-lifetime $1 -q "$work/py.mtr" | cmd/mt-window $1 --from 1s --to 2s |
	cmd/mt-group --by process,heap,type,function >/dev/null
}
wtext() { window ""; }
wbin() { window -b; }
spill() { /usr/bin/time -f %M -o "$work/rss.spill" cmd/mt-lifetime -qb --memory "$budget" "$work/py.mtr" >"$work/spill.life"; }
peak() { /usr/bin/time -f %M -o "$work/rss.peak" cmd/mt-window -q --at peak "$work/py.life" >"$work/peak.out" 2>"$work/peak.err"; }

steps="summary bpipe readme wtext wbin peak spill"
for s in $steps ht; do : >"$work/t.$s"; : >"$work/r.$s"; done
: >"$work/cpu.summary"
for i in $(seq "$RUNS"); do
	# Each goes first in turn: the one after a gigabyte of pipes and page
	# cache is not always the same.
	set -- $steps ht
	k=$(( (i - 1) % $# ))
	order="${*:k+1} ${*:1:k}"
	for s in $order; do
		seconds "$s" >>"$work/t.$s"
		[ "$s" = summary ] && awk '{ print $2 + $3 }' "$work/rss.summary" >>"$work/cpu.summary"
	done
	h=$(tail -n 1 "$work/t.ht")
	for s in $steps; do echo "$(tail -n 1 "$work/t.$s") / $h" | bc -l >>"$work/r.$s"; done
done
range() { sort -n "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }
line() {	# name, step, target
	printf '%-44s %6.2f s  %5.2fx (turns %s; target %s)\n' "$1" "$(median <"$work/t.$2")" \
		"$(median <"$work/r.$2")" "$(range "$work/r.$2")" "$3"
}
printf '%d events, %d turns; heaptrack_print %.2f s, %d MiB\n' "$events" "$RUNS" \
	"$(median <"$work/t.ht")" $(($(cat "$work/rss.ht") / 1024))
line "mt-report (summary)" summary "<= 0.6x"
printf '%-44s %6.2f s of CPU: %.2f cores; %d MiB\n' "  its CPU" "$(median <"$work/cpu.summary")" \
	"$(echo "$(median <"$work/cpu.summary") / $(median <"$work/t.summary")" | bc -l)" \
	$(($(cut -d' ' -f1 "$work/rss.summary") / 1024))
line "mt-lifetime -b | mt-symbolize | mt-group" bpipe "<= 1x"
line "mt-symbolize | mt-lifetime | mt-group (README)" readme "<= 1.5x"
line "mt-lifetime | mt-window | mt-group, text" wtext "-"
line "mt-lifetime | mt-window | mt-group, -b" wbin "-"
line "mt-window --at peak (life lines)" peak "-"
line "mt-lifetime -b --memory (a tenth of its table)" spill "-"
printf '%-44s %d MiB, in memory %d MiB; its output and the one in memory: %s\n' "  its RSS" \
	$(($(cat "$work/rss.spill") / 1024)) $(($(cat "$work/rss.mem") / 1024)) \
	"$(cmp -s "$work/spill.life" "$work/py.life" && echo same || echo DIFFERENT)"

# The peak: mt-window's against mt-report's (from the events, in time order).
want=$(cmd/mt-report -B -q --no-symbolize "$work/py.mtr" | awk '$3 == "malloc" && $2 ~ /^[0-9]+$/ { print $4, $5; exit }')
got=$(awk -F'\t' '$1 == "sample" && $4 == "malloc" { printf "%d %d.%03d\n", $5, $2 / 1e9, ($2 % 1e9) / 1e6; n = $6 }
	END { print n > "/dev/stderr" }' "$work/peak.out" 2>"$work/live")
printf 'peak of malloc: mt-window --at peak %s, mt-report %s: %s; %s\n' "$got" "$want" \
	"$([ "$got" = "$want" ] && echo same || echo DIFFERENT)" "$(tr '\n' ' ' <"$work/peak.err")"
live=$(cat "$work/live")
printf 'pairing: mt-lifetime %d MiB for %d blocks live at the peak: %.1f bytes a block (target <= 32); mt-window --at peak %d MiB\n' \
	$(($(cat "$work/rss.lifetime") / 1024)) "$live" \
	"$(echo "$(cat "$work/rss.lifetime") * 1024 / $live" | bc -l)" $(($(cat "$work/rss.peak") / 1024))

# Two cores: handing a record from one to the other (see handoff.c).
cc -O2 -pthread -o "$work/handoff" tests/bench/handoff.c && "$work/handoff" 100000000 4096
