#!/usr/bin/env bats
# The command lines of every man page's EXAMPLES, as mandoc renders them
# for a terminal, and of the README's code blocks, pasted into a shell:
# each must exit 0 and print something (to standard output or a file it
# writes), and say nothing on standard error but the tools' summaries.
# They run on recordings made here, in a directory laid out as the
# examples assume (see lay_out).  A command whose needs this machine
# lacks (root, tracefs, a program) is not run, nor one that reads its
# files, and the test is skipped saying which.

load helpers

# A man page's command is a line "$ command"; the README's a line of a
# code block that begins with an mt- program.  Lines indented deeper
# continue it.  A crontab line (five time fields, then an mt- program)
# is run as cron would run it, EX_CRON_RUNS times.
EX_SECONDS=2			# the longest a recording runs here (-d)
EX_APP_SECONDS=25		# app.mtr's length, and every recording of ./app's
EX_LIVE=20			# a live pipeline's clock runs this much faster
EX_CRON_RUNS=13			# cron's first hour at */5

# What the tools say on standard error when all is well: their
# summaries.  Anything else (a warning, a note that an argument asks for
# more than the input has) fails the command.
EX_SUMMARY='^(mt-record: |mt-lifetime: [0-9]+ (lifetimes|blocks)|mt-group: (suppressed|[0-9]+ groups changed)|mt-pooldiff: suppressed|mt-plot: |mt-report: [^ ]+: the page|mt-symbolize: [0-9]+ address(es)? without a name)'

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	# app.mtr: the WPA walkthrough stretched to EX_APP_SECONDS, so that
	# the windows the pages name (10 s to 20 s, the last 5 s) fall on
	# its steady state, its step-up and its spikes.
	mt-record -o walk.mtr -- "$PROGS/memtestapp" >/dev/null 2>&1
	stretch_to walk.mtr $((EX_APP_SECONDS * 1000000000)) >app.mtr
	mt-decode app.mtr | awk -F'\t' '$1 == "proc" { print $2; exit }' >app.pid
	lay_out layout
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	STARTED= GONE=" "
	declare -gA NAMED=()
}

teardown() {
	local pid
	for pid in $STARTED; do
		kill "$pid" 2>/dev/null || true
	done
}

# The last time of a trace, in ns.
trace_end() {
	mt-decode "$1" | awk -F'\t' '
		($1 == "alloc" || $1 == "free" || $1 == "exit" || $1 == "lost") && $2 != "-" && $2 + 0 > m { m = $2 + 0 }
		END { printf "%.0f\n", m }'
}

# Trace $1 with its times stretched to end at $2 ns, as a trace, to stdout.
stretch_to() {
	mt-decode "$1" | awk -F'\t' -v OFS='\t' -v e="$(trace_end "$1")" -v t="$2" '
		BEGIN { k = e > 0 ? t / e : 1 }
		($1 == "alloc" || $1 == "free" || $1 == "exit" || $1 == "lost") && $2 != "-" { $2 = sprintf("%.0f", $2 * k) }
		$1 == "proc" && $4 != "-" { $4 = sprintf("%.0f", $4 * k) }
		{ print }' | "$PROGS/mtr-encode"
}

# A duration as the tools write it (10s, 250ms, 2m), in ns.
duration_ns() {
	awk -v d="$1" 'BEGIN {
		n = d + 0; u = d; sub(/^[0-9.]+/, "", u)
		m["ns"] = 1; m["us"] = 1e3; m["ms"] = 1e6; m["s"] = 1e9; m["m"] = 60e9; m["min"] = 60e9; m["h"] = 3600e9
		if (!(u in m)) exit 1
		printf "%.0f\n", n * m[u] }'
}

# mandoc's output without its overstriking (bold, underline) and tabs:
# col -bx, which a new Debian has not (bsdextrautils).
plain() {
	perl -CS -pe '1 while s/[^\x08]\x08//g; 1 while s/\t/" " x (8 - length($`) % 8)/e'
}

# The EXAMPLES section of man page $1 as a terminal shows it.
examples_text() {
	mandoc -Tascii -Owidth=1000 "$1" | plain |
		awk '/^[A-Z]/ { on = ($0 == "EXAMPLES"); next } on'
}

# The commands in text on stdin, each "run CMD" or "cron CMD" and a NUL;
# with "readme", lines of code blocks that begin with an mt- program.
commands_in() {
	awk -v readme="${1:-}" '
		function flush() { if (cmd != "") printf "%s%c", cmd, 0; cmd = "" }
		BEGIN { f = "[0-9*/,-]+ +"; cron = "^" f f f f f "mt-" }
		{ match($0, /^ */); ind = RLENGTH; line = substr($0, ind + 1) }
		cmd != "" && line != "" && ind > cind { cmd = cmd "\n" $0; next }
		{ flush() }
		!readme && line ~ /^\$ / { cmd = "run " substr(line, 3); cind = ind; next }
		readme && ind >= 4 && line ~ /^([A-Z_]+=[^ ]* )*mt-/ { cmd = "run " line; cind = ind; next }
		readme && ind >= 4 && line ~ /^\$ mt-/ { cmd = "run " substr(line, 3); cind = ind; next }
		ind >= 4 && line ~ cron {
			sub("^" f f f f f, "", line); cmd = "cron " line; cind = ind; next }
		END { flush() }'
}

# The directory the examples assume, made in $1: app.mtr and ./app
# (tests/progs/memtestapp), old.mtr and new.mtr; ./server (a program
# that leaks from one function, tests/progs/poolleak); ./pool (a pool
# allocator's, tests/progs/pool); myservice and
# mydaemon (tests/progs/attach-target, started when a command names
# them); hello.c and script.py; the absolute directories the pages
# name, under root/; a host "prod" whose files are under prod/ (scp);
# mail that writes to mail.sent; flamegraph.pl, unless installed, a
# stand-in that takes only folded stacks ("frame;frame;... weight") and
# draws a box a stack.  EX_DIR names it when a command runs.
lay_out() {
	local w=$1
	mkdir -p "$w/bin" "$w/root/var/log" "$w/root/srv/symbols/app-1.4" \
		"$w/root/srv/symbols/libs" "$w/root/mnt/prod/usr/lib/debug" "$w/syms" \
		"$w/prod/usr/bin" "$w/prod/usr/lib/x86_64-linux-gnu"
	cp app.mtr "$w/app.mtr"
	# the README's first example records the program by its path in a clone
	mkdir -p "$w/tests/progs"
	cp "$PROGS/memtestapp" "$w/tests/progs/"
	cp app.mtr "$w/old.mtr"
	cp walk.mtr "$w/new.mtr"
	cp "$PROGS/memtestapp" "$w/app"
	cp "$PROGS/poolleak" "$w/server"
	cp "$PROGS/poolleak" "$w/prod/usr/bin/app"
	cp "$PROGS/liballoc.so" "$w/prod/usr/lib/x86_64-linux-gnu/libfoo.so.1"
	cp "$PROGS/pool" "$w/pool"
	cp "$PROGS/attach-target" "$w/myservice"
	cp "$PROGS/attach-target" "$w/mydaemon"
	printf 'int main(void) { return 0; }\n' >"$w/hello.c"
	printf 'x = [str(i) * 3 for i in range(10000)]\nprint(len(x))\n' >"$w/script.py"
	cat >"$w/bin/mail" <<-'EOF'
		#!/bin/sh
		{ echo "mail $*"; cat; } >>"$EX_DIR/mail.sent"
	EOF
	cat >"$w/bin/scp" <<-'EOF'
		#!/bin/sh
		# prod:PATH is $EX_DIR/prod/PATH.
		for a; do
			case $a in prod:*) a=$EX_DIR/prod/${a#prod:} ;; esac
			set -- "$@" "$a"
			shift
		done
		exec cp "$@"
	EOF
	if ! command -v flamegraph.pl >/dev/null; then
		cat >"$w/bin/flamegraph.pl" <<-'EOF'
			#!/bin/sh
			awk '!/^[^ ;][^;]*(;[^;]+)* [0-9]+$/ { print "flamegraph.pl: not a folded stack: " $0 >"/dev/stderr"; bad = 1 }
				{ print "<rect><title>" $0 "</title></rect>" }
				END { exit bad || NR == 0 }'
		EOF
	fi
	chmod +x "$w"/bin/*
}

# Why command $1 cannot run here, or nothing.
unmet_need() {
	local cmd=$1 scope p
	if [[ $cmd =~ (^|[[:space:]])(--kernel|-k)([[:space:]]|$) ]]; then
		[ "$(id -u)" = 0 ] || { echo "kernel tracing needs root"; return; }
		grep -qw tracefs /proc/filesystems || { echo "this kernel has no tracefs"; return; }
	fi
	if [[ $cmd =~ mt-record[^|]*[[:space:]](-u|--uprobes|--alloc-fn)[[:space:]] ]]; then
		[ "$(id -u)" = 0 ] || { echo "uprobes need root"; return; }
		[ -e /sys/bus/event_source/devices/uprobe/type ] || { echo "this kernel has no uprobes"; return; }
	fi
	if [[ $cmd == *--snapshot* ]] && ! [ -r /proc/slabinfo ]; then
		echo "a snapshot reads /proc/slabinfo, which needs root"
		return
	fi
	if [[ $cmd =~ mt-record[^|]*[[:space:]](-p|--pid)[[:space:]] ]]; then
		scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)
		if [ "$(id -u)" != 0 ] && [ "$scope" -ge 1 ]; then
			echo "attaching needs root (kernel.yama.ptrace_scope is $scope)"
			return
		fi
	fi
	[[ $cmd == *mt-plot* ]] && cmd="$cmd gnuplot"
	for p in gcc python3 gnuplot go; do
		if [[ $cmd =~ (^|[^[:alnum:]_.-])$p([^[:alnum:]_.-]|$) ]] && ! command -v $p >/dev/null; then
			echo "$p is not installed"
			return
		fi
	done
}

# The files command $1 writes: -o FILE, >FILE, >>FILE.
outputs_of() {
	grep -oE '(^|[[:space:]])(-o|>>?) *[^ |;&<>]+' <<<"$1" |
		sed -E 's/^[[:space:]]*(-o|>>?) *//' | grep -v '^-$' || true
}

# Starts a fresh copy of each program that command $1 names by pidof,
# running for 5 s (1000 lines of attach-target): a process is attached
# to once.
start_named() {
	local rest=$1 name
	while [[ $rest =~ pidof[[:space:]]+([a-z]+) ]]; do
		name=${BASH_REMATCH[1]} rest=${rest#*"${BASH_REMATCH[0]}"}
		[ -x "$W/$name" ] || continue
		[ -z "${NAMED[$name]:-}" ] || kill "${NAMED[$name]}" 2>/dev/null || true
		# One of that name, so that $(pidof NAME) is one pid: a copy left
		# running from before (a fresh machine once had two) goes first.
		pkill -x "$name" 2>/dev/null || true
		for _ in $(seq 100); do
			pidof "$name" >/dev/null || break
			sleep 0.02
		done
		(cd "$W" && exec "./$name" 1000 >/dev/null 2>&1) &
		NAMED[$name]=$!
		STARTED="$STARTED $!"
		for _ in $(seq 100); do
			pidof "$name" >/dev/null && break
			sleep 0.02
		done
	done
}

# Command $1 as it runs here, into REWRITTEN: the absolute directories
# under root/; the pid a page names (4242) the one app.mtr recorded; a
# recording for longer than EX_SECONDS cut to it, and its trace
# stretched back after (STRETCH, "file ns"), as is a recording of ./app
# to EX_APP_SECONDS; a live pipeline's intervals EX_LIVE times shorter.
rewrite() {
	local cmd=$1 ns re time='[0-9.]+(ns|us|ms|s|min|m|h)'
	re="(^|[[:space:]:=<>'\"])/(var/log|srv|mnt)/"
	while [[ $cmd =~ $re ]]; do
		cmd=${cmd/"${BASH_REMATCH[0]}"/"${BASH_REMATCH[1]}$W/root/${BASH_REMATCH[2]}/"}
	done
	re='(^|[^0-9])4242([^0-9]|$)'
	while [[ $cmd =~ $re ]]; do
		cmd=${cmd/"${BASH_REMATCH[0]}"/"${BASH_REMATCH[1]}$(cat "$BATS_FILE_TMPDIR/app.pid")${BASH_REMATCH[2]}"}
	done
	STRETCH=
	if [[ $cmd =~ mt-record[^|]*[[:space:]](-d|--duration)([=[:space:]]+)($time) ]]; then
		ns=$(duration_ns "${BASH_REMATCH[3]}")
		if [ "$ns" -gt $((EX_SECONDS * 1000000000)) ]; then
			cmd=${cmd/"${BASH_REMATCH[1]}${BASH_REMATCH[2]}${BASH_REMATCH[3]}"/"${BASH_REMATCH[1]}${BASH_REMATCH[2]}${EX_SECONDS}s"}
			STRETCH="$(outputs_of "$cmd" | head -1) $ns"
		fi
	elif [[ $cmd =~ mt-record[^|]*[[:space:]]--[[:space:]]+\./app([[:space:]]|$) ]]; then
		STRETCH="$(outputs_of "$cmd" | head -1) $((EX_APP_SECONDS * 1000000000))"
	fi
	if [[ $cmd == *--live* && $cmd =~ [[:space:]](--interval|-i)([=[:space:]]+)($time) ]]; then
		ns=$(duration_ns "${BASH_REMATCH[3]}")
		cmd=${cmd/"${BASH_REMATCH[1]}${BASH_REMATCH[2]}${BASH_REMATCH[3]}"/"${BASH_REMATCH[1]}${BASH_REMATCH[2]}$((ns / EX_LIVE))ns"}
	fi
	REWRITTEN=$cmd
}

# Runs the commands on stdin (as commands_in prints them), from source
# $1, in a directory laid out by lay_out; says what went wrong with
# each; fails if one failed, and is skipped if one could not run here.
run_examples() {
	local src=$1 kind cmd orig reason f file ns n=0 ran=0 failed= skipped= status times
	W=$BATS_TEST_TMPDIR/w
	cp -a "$BATS_FILE_TMPDIR/layout/." "$W"
	export EX_DIR=$W
	while IFS= read -r -d '' cmd; do
		n=$((n + 1))
		kind=${cmd%% *} cmd=${cmd#* } orig=$cmd
		reason=$(unmet_need "$cmd")
		for f in $GONE; do
			[[ -z $reason && $cmd == *"$f"* ]] && reason="it reads $f, which is not made here"
		done
		if [ -n "$reason" ]; then
			skipped="$skipped; $reason"
			GONE="$GONE $(outputs_of "$cmd" | tr '\n' ' ')"
			printf '# not run (%s): %s\n' "$reason" "$orig" >&3
			continue
		fi
		start_named "$cmd"
		rewrite "$cmd"
		cmd=$REWRITTEN
		touch "$BATS_TEST_TMPDIR/mark"
		times=1
		[ "$kind" = cron ] && times=$EX_CRON_RUNS
		for _ in $(seq "$times"); do
			status=0
			(cd "$W" && PATH="$W/bin:$PATH" timeout 120 bash -c "$cmd") \
				>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" </dev/null || status=$?
			[ "$status" = 0 ] || break
		done
		if [ -n "$STRETCH" ] && [ "$status" = 0 ]; then
			read -r file ns <<<"$STRETCH"
			stretch_to "$W/$file" "$ns" >"$W/$file.stretched" && mv "$W/$file.stretched" "$W/$file"
		fi
		ran=$((ran + 1))
		# mt-pooldiff --growth exits 1 when it found growth, as cmp(1)
		# when files differ: a verdict, not a failure.
		if [ "$status" = 1 ] && grep -q '^#mt-pooldiff growth: [1-9][0-9]* of' "$BATS_TEST_TMPDIR/out"; then
			status=0
		fi
		reason=
		if [ "$status" != 0 ]; then
			reason="exit $status"
		elif ! [ -s "$BATS_TEST_TMPDIR/out" ] &&
			[ -z "$(find "$W" -newer "$BATS_TEST_TMPDIR/mark" -type f)" ]; then
			reason="printed nothing and wrote no file"
		elif grep -vqE "$EX_SUMMARY" "$BATS_TEST_TMPDIR/err"; then
			reason="said more than its summary on standard error"
		fi
		if [ -n "$reason" ]; then
			failed=1
			printf '%s: %s: %s\n' "$src" "$reason" "$orig"
			[ "$cmd" = "$orig" ] || printf '  run as: %s\n' "$cmd"
			sed 's/^/  stderr: /' "$BATS_TEST_TMPDIR/err" | head -20
		fi
	done
	echo "$src: $n commands, $ran run"
	[ "$n" -gt 0 ] || { echo "$src: no command found in its examples"; return 1; }
	[ -z "$failed" ] || return 1
	[ -z "$skipped" ] || skip "$((n - ran)) of $n not run${skipped/;/:}"
}

run_page() {
	run_examples "$1" < <(examples_text "$TESTS/../man/$1" | commands_in)
}

@test "mt-decode(1): its examples run" {
	run_page mt-decode.1
}

@test "mt-symbolize(1): its examples run" {
	run_page mt-symbolize.1
}

@test "mt-lifetime(1): its examples run" {
	run_page mt-lifetime.1
}

@test "mt-window(1): its examples run" {
	run_page mt-window.1
}

@test "mt-group(1): its examples run" {
	run_page mt-group.1
}

@test "mt-pooldiff(1): its examples run, the crontab lines as cron would" {
	run_page mt-pooldiff.1
}

@test "mt-report(1): its examples run" {
	run_page mt-report.1
}

@test "mt-plot(1): its examples run" {
	run_page mt-plot.1
}

@test "mt-record(1): its examples run" {
	run_page mt-record.1
}

@test "mt-events(5): its examples run" {
	run_page mt-events.5
}

@test "README.md: the mt- commands of its code blocks run" {
	# Its cron step installs a crontab file; the log that would make is
	# made here, as cron would, for the steps that read it.
	mkdir -p w/root/var/log
	if [ -r /proc/slabinfo ]; then
		for _ in $(seq "$EX_CRON_RUNS"); do
			mt-pooldiff --snapshot >>w/root/var/log/mt-pool.log
		done
	else
		GONE="$GONE /var/log/mt-pool.log"
	fi
	run_examples README.md < <(commands_in readme <"$TESTS/../README.md")
}

@test "man -l shows each page's examples as mandoc does" {
	command -v man >/dev/null || skip "man (man-db) is not installed"
	for page in "$TESTS"/../man/*.[0-9]; do
		diff -u <(examples_text "$page") \
			<(LANG=C.UTF-8 MANWIDTH=1000 man -l "$page" 2>/dev/null |
				awk '/^[A-Z]/ { on = ($0 == "EXAMPLES"); next } on')
	done
}

@test "no page nests quotes or turns words of its prose into flags" {
	local page bad=
	for page in "$TESTS"/../man/*.[0-9]; do
		# A quote opened inside a quote: '.Pq Ql a , Ql b' nests.
		# A flag that is an English word: '.Fl d , or' goes on as flags.
		if mandoc -Tutf8 -Owidth=1000 "$page" | plain |
			grep -nE '‘[^’]*‘|(^|[ (])-(or|and|none|the|at|to|in|of|on|when|with|for|by)([ ,;:.)]|$)'; then
			echo "in $page"
			bad=1
		fi
	done
	[ -z "$bad" ]
}
