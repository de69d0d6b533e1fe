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
	has_line "$output" 'long\.c:1: function f is 903 lines$'
	has_line "$output" 'long\.c: 903 lines$'
}

INCLUDE_C='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"][^>"]*\.c[>"]'
PRINTS='stderr|fprintf\(stdout|, stdout\)|mt_progname|(^|[^a-z_])(printf|puts|putchar|perror)\('

@test "no file includes a .c file" {
	run grep -nE "$INCLUDE_C" $(git ls-files '*.[ch]' '*.cc')
	[ "$status" = 1 ] || { echo "$output"; false; }
	echo '#include "../../cmd/mt-record.c"' >"$BATS_TEST_TMPDIR/inc.c"
	run -0 grep -nE "$INCLUDE_C" "$BATS_TEST_TMPDIR/inc.c"
}

@test "lib/ says nothing on its own: diagnostics go through diag.c" {
	# Outside diag.c no library file names stderr or the program's name,
	# and none prints to stdout behind its caller's back.
	run grep -nE "$PRINTS" \
		$(git ls-files 'lib/*.c' 'lib/*/*.c' | grep -v -e '^lib/diag\.c$' -e '^lib/preload/')
	[ "$status" = 1 ] || { echo "$output"; false; }
	# Each way of printing is seen; a stream given by the caller is not one.
	printf '%s\n' 'fprintf(stderr, "x");' '	printf("x");' 'puts("x");' 'fputs(s, stdout);' \
		'fprintf(f, "x"); fflush(stdout); snprintf(b, 1, "x");' >"$BATS_TEST_TMPDIR/p.c"
	run -0 grep -cE "$PRINTS" "$BATS_TEST_TMPDIR/p.c"
	[ "$output" = 4 ]
}
