#!/usr/bin/env bats
# A new user's first ten minutes: --help, --version, bad options, one
# letter one meaning, a command that does not exist, a missing file, a raw
# trace where lifetimes are wanted, times without a unit, sizes as the
# tables print them.  Each message pinned with its exit status.

load helpers

PROGRAMS="mt-record mt-decode mt-symbolize mt-lifetime mt-window mt-group mt-pooldiff mt-report mt-plot"
FILTERS="mt-decode mt-symbolize mt-lifetime mt-window mt-group mt-pooldiff mt-report"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# "letter long" for each option line of a --help: "  -k, --by KEYS  ...".
help_letters() {
	"$1" --help | sed -nE 's/^  -([A-Za-z]), --([a-z-]+).*/\1 \2/p'
}

@test "--help: the usage and every option on stdout, exit 0; --version; a bad option: the usage on stderr, exit 2" {
	for p in $PROGRAMS; do
		run -0 --separate-stderr "$p" --help
		[ -z "$stderr" ]
		[[ ${lines[0]} == "usage: $p "* ]]
		usage=$(printf '%s\n' "$output" | sed -n '/^$/q; p')
		# Every option has its line, -h and -V among them.
		has_line "$output" '^  -h, --help +this help$'
		has_line "$output" '^  -V, --version +the version$'
		[ "$(help_letters "$p" | wc -l)" -ge 3 ]
		run -0 --separate-stderr "$p" -h
		[ "$(printf '%s\n' "$output" | sed -n '/^$/q; p')" = "$usage" ]
		run -0 --separate-stderr "$p" --version
		[ "$output" = "$p (mt) 0.1.0" ]
		[ -z "$stderr" ]
		run -2 --separate-stderr "$p" -Z
		[ -z "$output" ]
		[ "${stderr_lines[0]}" = "$p: invalid option -- 'Z'" ]
		[ "$(printf '%s\n' "${stderr_lines[@]:1}")" = "$usage" ]
		run -2 --separate-stderr "$p" --no-such-option
		[ -z "$output" ]
		[ "$(printf '%s\n' "${stderr_lines[@]:1}")" = "$usage" ]
	done
}

@test "--help lists every option the program takes, with the letter it takes" {
	for f in "$TESTS"/../cmd/mt-*.c; do
		p=$(basename "$f" .c)
		# { "by", required_argument, NULL, 'k' } -> "k by"
		sed -nE "s/^[[:space:]]*\{ \"([a-z-]+)\", [a-z_]+, NULL, '(.)' \},?$/\2 \1/p" "$f" |
			sort >src
		[ -s src ]
		help_letters "$p" | sort >help
		# Lettered lines as the source has them; every long name listed.
		comm -13 src help >wrong
		[ ! -s wrong ] || { echo "$p: not in the source: $(cat wrong)"; return 1; }
		diff <(cut -d' ' -f2 src | sort) <("$p" --help | grep -oE '^  (-[A-Za-z], |    )?--[a-z-]+' |
		    grep -oE -- '--[a-z-]+' | sed 's/^--//' | sort)
	done
}

@test "one letter, one meaning across the filters of a pipeline" {
	# Options that mean the same thing under two names.
	same() {
		case $1 in
		include) echo match ;;
		interval) echo series ;;
		tag) echo by ;;
		html) echo output ;;
		*) echo "$1" ;;
		esac
	}
	declare -A meaning
	for p in $FILTERS mt-plot; do
		while read -r letter long; do
			m=$(same "$long")
			if [ -n "${meaning[$letter]}" ] && [ "${meaning[$letter]}" != "$m" ]; then
				echo "-$letter is --${meaning[$letter]} and, in $p, --$long"
				return 1
			fi
			meaning[$letter]=$m
		done < <(help_letters "$p")
	done
	# The issue's examples: -b is --binary, -s is --sort.
	[ "${meaning[b]}" = binary ]
	[ "${meaning[s]}" = sort ]
}

@test "the old letters still work where the program has no other use for them" {
	mt-record -o d.mtr -- "$PROGS/demo" 2>/dev/null
	mt-lifetime -q d.mtr >d.life
	[ "$(mt-group -b process,heap d.life)" = "$(mt-group -k process,heap d.life)" ]
	[ "$(mt-group -t d.life)" = "$(mt-group -T d.life)" ]
	[ "$(mt-group -f tsv d.life)" = "$(mt-group -F tsv d.life)" ]
	[ "$(mt-window -s 1ms d.life)" = "$(mt-window -i 1ms d.life)" ]
	[ "$(mt-pooldiff -I 1ms -t heap d.life)" = "$(mt-pooldiff -i 1ms -k heap d.life)" ]
	mt-record -s 3 -o s.mtr -- "$PROGS/demo" 2>/dev/null
	mt-record -D 3 -o D.mtr -- "$PROGS/demo" 2>/dev/null
	# Three frames and the mark of a cut stack.
	[ "$(mt-decode s.mtr | awk -F'\t' '$1 == "stack" { print NF - 2, $NF }' | sort -u)" = "4 ..." ]
	[ "$(mt-decode D.mtr | awk -F'\t' '$1 == "stack" { print NF - 2, $NF }' | sort -u)" = "4 ..." ]
}

@test "a command that does not exist: said once, exit 127, no trace file" {
	mkdir empty
	cd empty
	run -127 --separate-stderr mt-record -- ./typo
	[ -z "$output" ]
	[ "$stderr" = "mt-record: ./typo: command not found" ]
	run -127 --separate-stderr mt-record -o t.mtr -- no-such-command-here
	[ "$stderr" = "mt-record: no-such-command-here: command not found" ]
	[ -z "$(ls)" ]
	# Found but not runnable: 126, as a shell says it.
	cd ..
	mkdir dir
	printf 'echo hi\n' >noexec.sh
	run -126 --separate-stderr mt-record -- ./noexec.sh
	[ "$stderr" = "mt-record: ./noexec.sh: Permission denied" ]
	run -126 --separate-stderr mt-record -- ./dir
	[ "$stderr" = "mt-record: ./dir: Is a directory" ]
	# Runnable, yet its interpreter is missing: the exec fails in the child.
	printf '#!/no/such/interpreter\n' >bad.sh
	chmod +x bad.sh
	run -127 --separate-stderr mt-record -o b.mtr -- ./bad.sh
	[ "$stderr" = "mt-record: ./bad.sh: No such file or directory" ]
	[ ! -e b.mtr ]
	[ -z "$(ls mt.*.mtr 2>/dev/null)" ]
}

@test "a missing input file: said once, nothing else printed" {
	for p in $FILTERS; do
		status_want=1
		[ "$p" = mt-pooldiff ] && status_want=2
		run -$status_want --separate-stderr "$p" no-such-file
		[ -z "$output" ]
		[ "$stderr" = "$p: no-such-file: No such file or directory" ]
	done
	# Among others, the others are read.
	printf '#mt-events\t1\tstart=1\thost=h\n' >ok.txt
	run -1 --separate-stderr mt-decode no-such-file ok.txt
	[ "$output" = "$(cat ok.txt)" ]
	[ "$stderr" = "mt-decode: no-such-file: No such file or directory" ]
	run -1 --separate-stderr mt-decode .
	[ "$stderr" = "mt-decode: .: Is a directory" ]
}

@test "a raw trace to mt-window or mt-group: run mt-lifetime first, exit 1" {
	mt-record -o d.mtr -- "$PROGS/demo" 2>/dev/null
	run -1 --separate-stderr mt-window d.mtr
	[ "$stderr" = "mt-window: no life records: run mt-lifetime first" ]
	run -1 --separate-stderr mt-group d.mtr
	[ "$stderr" = "mt-group: no life records: run mt-lifetime first" ]
	[ -z "$output" ]
	run -1 --separate-stderr bash -c "mt-decode d.mtr | mt-group --format tsv"
	[ "$stderr" = "mt-group: no life records: run mt-lifetime first" ]
	# Lifetimes, or a stream with none, are fine; nothing at all is no
	# stream.
	run -0 --separate-stderr bash -c "mt-lifetime -q d.mtr | mt-group"
	[ -z "$stderr" ]
	printf '#mt-events\t1\n' >h.txt
	run -0 --separate-stderr mt-group h.txt
	run -1 --separate-stderr mt-group /dev/null
	[ "$stderr" = "mt-group: /dev/null: empty: not an mt trace or event text" ]
}

@test "times: a unit is asked for; past the end and empty windows warn; a series too long is refused" {
	run -2 --separate-stderr mt-window --from 500000000 /dev/null
	[ "$stderr" = "mt-window: --from '500000000' needs a unit: ns, us, ms, s, m or h" ]
	run -2 --separate-stderr mt-window --to 1.5 /dev/null
	[ "$stderr" = "mt-window: --to '1.5' needs a unit: ns, us, ms, s, m or h" ]
	run -2 --separate-stderr mt-window --last 3x /dev/null
	[ "$stderr" = "mt-window: bad duration for --last '3x'" ]
	run -2 --separate-stderr mt-record -k -d 30
	[ "$stderr" = "mt-record: --duration '30' needs a unit: ns, us, ms, s, m or h" ]
	# Zero needs none.
	printf '#mt-events\t1\n' >h.txt
	run -0 --separate-stderr mt-window --from 0 h.txt
	# A trace of 2 s: lifetimes from 0.5 s to 1.5 s and one to 2 s.
	printf 'life\t500000000\t1500000000\t1\t1\tmalloc\t0x10\t8\t-\taifi\t0\n' >t.life
	printf 'life\t600000000\t2000000000\t1\t1\tmalloc\t0x20\t8\t-\taifi\t0\n' >>t.life
	run -0 --separate-stderr mt-window --from 5s t.life
	[ "$stderr" = "mt-window: warning: --from 5s is past the trace's end (2s)
mt-window: warning: no lifetimes in the window [5s, 5.000000001s)" ]
	run -0 --separate-stderr mt-window --to 1m t.life
	[ "$stderr" = "mt-window: warning: --to 60s is past the trace's end (2s)" ]
	[ "$(printf '%s\n' "$output" | grep -c '^life')" = 2 ]
	run -0 --separate-stderr mt-window --from 100ms --to 200ms t.life
	[ "$stderr" = "mt-window: warning: no lifetimes in the window [0.1s, 0.2s)" ]
	run -0 --separate-stderr mt-window --pid 7 t.life
	[ "$stderr" = "mt-window: warning: no lifetimes in the window [0s, 2.000000001s) that the filters keep" ]
	# 2 s at 1 ns: 2,000,000,001 samples a series.
	run -2 --separate-stderr mt-window --series 1ns t.life
	[ "$stderr" = "mt-window: --series 1ns makes 2000000001 samples a series, more than 10000000: a longer step, or a shorter window" ]
	[ -z "$output" ]
	run -0 --separate-stderr mt-window --series 1us t.life
	[ "$(printf '%s\n' "$output" | grep -c '^sample')" = 2000001 ]
}

@test "sizes as the tables print them: 64K, 64KiB, 66KB, 1.5M" {
	for m in 64K 64KiB 66KB 1.5M 1.5MiB 0.1G; do
		run -0 --separate-stderr mt-record -m "$m" -o m.mtr -- "$PROGS/pairs" 100000
		mt-decode -c m.mtr
	done
	# 64K and 64KiB are the same size: the same bound.
	run -0 --separate-stderr mt-record -m 64KiB -o a.mtr -- "$PROGS/pairs" 100000
	[ "$(stat -c %s a.mtr)" -le 65536 ]
	run -2 --separate-stderr mt-record -m 10KiB -- true
	[ "$stderr" = "mt-record: bad size '10KiB' (64K or more)" ]
	run -2 --separate-stderr mt-record -m 64Q -- true
	[ "$stderr" = "mt-record: bad size '64Q' (64K or more)" ]
}
