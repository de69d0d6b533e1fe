#!/usr/bin/env bats
# The same command recorded both ways, through the preload library and
# through BPF uprobes (--uprobes): the same proc and exit lines, the map
# lines as far as both can know them, and the same lifetimes in the same
# order (issue 40).  Pids differ from run to run: each is replaced by
# its order of first appearance.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# The proc lines' programs of trace $1, one a line.
programs() {
	mt-decode "$1" | awk -F'\t' '$1 == "proc" { print $5 }'
}

@test "a program run through a symbolic link: named by the link, both ways and attached to" {
	need_uprobes
	here=$(pwd -P)
	ln -s "$PROGS/uexec" link
	# Run by a relative path: made absolute by the directory it ran in.
	# The parent, its forked child, and the child's exec of ./link.
	mt-record -o p.mtr -- ./link >/dev/null 2>&1
	mt-record --uprobes -o u.mtr -- ./link >/dev/null 2>&1
	[ "$(programs p.mtr | sort | uniq -c | awk '{ print $1, $2 }')" = "3 $here/link" ]
	[ "$(programs u.mtr | sort | uniq -c | awk '{ print $1, $2 }')" = "3 $here/link" ]
	# Attached to, by an absolute path: the link too (a relative one is
	# the file's path: where it ran from is not known), and the default
	# output is named after it.
	ln -s "$PROGS/attach-target" at-link
	start_target "$here/at-link" 3000
	run -0 --separate-stderr mt-record -p "$TARGET" --uprobes -d 0.5s
	has_line "$stderr" "^mt-record: [0-9]+ events, 1 process, [0-9]+ bytes written to mt\\.at-link\\.$TARGET\\.mtr$"
	[ "$(programs "mt.at-link.$TARGET.mtr")" = "$here/at-link" ]
	mt-record -p "$TARGET" -d 0.5s -o a.mtr 2>/dev/null
	[ "$(programs a.mtr)" = "$here/at-link" ]
	kill "$TARGET"
	wait_target
}
