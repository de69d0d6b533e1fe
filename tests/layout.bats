#!/usr/bin/env bats
# The shape of the source (issue 28): rooms a newcomer can live in.  Each
# rule is checked on every tracked source, so that a file grown past it
# is seen in the change that grows it.

load helpers

setup() {
	cd "$TESTS/.."
	command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 ||
		skip "not a git checkout (the rules read git's list of sources)"
}

@test "no source under cmd/ or lib/ over 800 lines, no function over 150" {
	run awk -f tests/layout.awk $(git ls-files 'cmd/*.[chS]' 'lib/*.[chS]')
	[ "$status" = 0 ] || { echo "$output"; false; }
	# The check itself sees a long function and a long file.
	awk 'BEGIN { print "f(void)\n{"; for (i = 0; i < 900; i++) print "\tx();"; print "}" }' \
		>"$BATS_TEST_TMPDIR/long.c"
	run -1 awk -f tests/layout.awk "$BATS_TEST_TMPDIR/long.c"
	has_line "$output" 'long\.c:1: function f is 902 lines$'
	has_line "$output" 'long\.c: 902 lines$'
}

@test "no file includes a .c file" {
	run grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]*\.c[>"]' \
		$(git ls-files '*.[ch]' '*.cc')
	[ "$status" = 1 ] || { echo "$output"; false; }
}

@test "lib/ says nothing on its own: diagnostics go through diag.c" {
	# Outside diag.c no library file names stderr or the program's name,
	# and none prints to stdout behind its caller's back.
	run grep -nE 'stderr|mt_progname|[^sn]printf\(|[^f]puts\(|putchar\(|perror\(' \
		$(git ls-files 'lib/*.c' 'lib/*/*.c' | grep -v -e '^lib/diag\.c$' -e '^lib/preload/')
	[ "$status" = 1 ] || { echo "$output"; false; }
}
