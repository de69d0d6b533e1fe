#!/usr/bin/env bats
# make install and uninstall: PREFIX, BINDIR, LIBDIR, MANDIR, DESTDIR, and
# an installed mt-record that finds its installed library.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	top=$TESTS/..
}

@test "install under DESTDIR and PREFIX; the installed tools record, decode and symbolize" {
	run -0 make -s -C "$top" install DESTDIR="$PWD/root" PREFIX=/opt/mt
	for f in bin/mt-record bin/mt-decode bin/mt-symbolize lib/mt/libmt-preload.so \
	    share/man/man1/mt-record.1 share/man/man1/mt-decode.1 \
	    share/man/man1/mt-symbolize.1 share/man/man5/mt-events.5; do
		[ -e "root/opt/mt/$f" ]
	done
	run -0 --separate-stderr root/opt/mt/bin/mt-record -o d.mtr -- "$PROGS/demo"
	[ "$(root/opt/mt/bin/mt-decode d.mtr | grep -c '^alloc')" = 9 ]
	root/opt/mt/bin/mt-symbolize d.mtr | grep -q $'^sym\t.*\tmake_name\t'
}

@test "BINDIR, LIBDIR and MANDIR each on their own; uninstall removes what install put" {
	run -0 make -s -C "$top" install DESTDIR="$PWD/root" BINDIR=/b LIBDIR=/l MANDIR=/m SHAREDIR=/s
	[ -x root/b/mt-record ]
	[ -e root/l/libmt-preload.so ]
	[ -e root/m/man5/mt-events.5 ]
	[ -x root/b/mt-plot ]
	[ -e root/m/man1/mt-plot.1 ]
	[ -e root/s/mt-pool.cron ]
	[ -e root/s/mt-suppress ]
	[ -x root/b/mt-pooldiff ]
	[ -e root/m/man1/mt-pooldiff.1 ]
	# not beside the binary: MT_PRELOAD points at it, as the man page says
	MT_PRELOAD=$PWD/root/l/libmt-preload.so run -0 --separate-stderr root/b/mt-record -o d.mtr -- "$PROGS/demo"
	[ -e root/usr/local/share/bash-completion/completions/mt-group ]
	run -0 make -s -C "$top" uninstall DESTDIR="$PWD/root" BINDIR=/b LIBDIR=/l MANDIR=/m SHAREDIR=/s
	[ -z "$(find root -type f)" ]
}

@test "the installed cron file runs under cron's own PATH (/usr/bin:/bin)" {
	run -0 make -s -C "$top" install PREFIX="$PWD/p"
	cron=p/share/mt/mt-pool.cron
	# Every command names mt-pooldiff by its installed path.
	grep -q "^\*/5 .* root $PWD/p/bin/mt-pooldiff --snapshot >> /var/log/mt-pool.log$" "$cron"
	[ "$(grep -v '^#' "$cron" | grep -c ' mt-pooldiff')" = 0 ]
	# The lines as cron runs them: sh -c, PATH=/usr/bin:/bin, the log here.
	grep -v '^#' "$cron" | grep . | cut -d' ' -f7- | sed 's|/var/log/|'"$PWD"'/|g' >cmds
	[ "$(wc -l <cmds)" = 2 ]
	for i in 1 2 3; do
		env -i PATH=/usr/bin:/bin HOME=/ sh -c "$(sed -n 1p cmds)"
	done
	[ "$(grep -c '^#mt-pool 1 ' mt-pool.log)" = 3 ]
	# The verdict: nothing grew in three snapshots a moment apart, or
	# something did; either way it ran (not 127, not 2).
	run env -i PATH=/usr/bin:/bin HOME=/ sh -c "$(sed -n 2p cmds)"
	[ "$status" = 0 ] || [ "$status" = 1 ]
	[ -e mt-pool.verdict ]
	run -0 make -s -C "$top" uninstall PREFIX="$PWD/p"
}

@test "mt-plot is installed on PATH with its man page; the completions complete in an interactive bash" {
	run -0 make -s -C "$top" install PREFIX="$PWD/p"
	run -0 env PATH="$PWD/p/bin:/usr/bin:/bin" mt-plot --help
	[ "${lines[0]}" = "usage: mt-plot [-o file.png|file.svg] [-L title] [-n count] [-f time] [--to time] [--gnuplot script] [file]" ]
	mandoc -Tascii p/share/man/man1/mt-plot.1 | grep -q "draw memory outstanding over time"
	comp=$PWD/p/share/bash-completion/completions
	for p in mt-record mt-decode mt-symbolize mt-lifetime mt-window mt-group mt-pooldiff mt-report mt-plot; do
		[ -e "$comp/$p" ]
	done
	# What bash offers at a TAB, in a bash -i that loaded the file.
	complete_line() {
		PATH="$PWD/p/bin:$PATH" bash --norc -i -c '
			source "$1"; shift
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			_mt "$1"; printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp/$1" "$@" 2>/dev/null
	}
	[ "$(complete_line mt-group --fo)" = "--format" ]
	[ "$(complete_line mt-group --format j)" = "json" ]
	[ "$(complete_line mt-group --by process,he)" = "process,heap" ]
	[ "$(complete_line mt-window --se)" = "--series" ]
	[ "$(complete_line mt-record --ke)" = "--kernel" ]
	[ "$(complete_line mt-record --events kmalloc,pa)" = "kmalloc,page" ]
	[ "$(complete_line mt-decode -)" = "$(printf '%s\n' --check --help --quiet --version -V -c -h -q | sort)" ]
	[ "$(complete_line mt-pooldiff --sort per)" = "per-alloc" ]
	[ "$(complete_line mt-pooldiff --format t)" = "$(printf 'table\ntsv')" ]
	[ "$(complete_line mt-group --format p)" = "pprof" ]
	[ "$(complete_line mt-plot --ti)" = "--title" ]
	complete_line mt-record -o t.mtr -- bas | grep -qx bash
	touch afile.mtr
	[ "$(complete_line mt-lifetime afile.m)" = "afile.mtr" ]
	run -0 make -s -C "$top" uninstall PREFIX="$PWD/p"
}

@test "the README's set-up: what a new machine lacks first, and the Makefile's package list" {
	readme=$top/README.md
	grep -qx '    apt-get install git make' "$readme"
	# The indented block after "The packages (the Makefile's `APT_PACKAGES`):".
	listed=$(awk '/^The packages|APT_PACKAGES`\):$/ { on = 1; next }
		on && /^    / { print; next } on && /^$/ && seen++ { exit }' "$readme" | xargs -n1 | sort)
	[ -n "$listed" ]
	[ "$listed" = "$(make -s -C "$top" print-packages | xargs -n1 | sort)" ]
}
