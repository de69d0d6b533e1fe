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

@test "no bare '!' in a bats file: bats passes it whatever its command says" {
	run awk -f tests/layout.awk $(git ls-files 'tests/*.bats' 'tests/*.bash')
	[ "$status" = 0 ] || { echo "$output"; false; }
	# The check itself sees each bare form and lets each that asserts be.
	cd "$BATS_TEST_TMPDIR"
	cp "$TESTS/fixtures/layout/bang.in" bang.bats
	run -1 --separate-stderr awk -f "$TESTS/layout.awk" bang.bats
	diff -u "$TESTS/fixtures/layout/bang.out" - <<<"$output"
}

@test "modules include one another without a cycle (tsort finds none)" {
	sh tests/layout/includes.sh $(git ls-files 'cmd/*.[ch]' 'lib/*.[ch]') >"$BATS_TEST_TMPDIR/inc"
	[ -s "$BATS_TEST_TMPDIR/inc" ]
	run --separate-stderr tsort "$BATS_TEST_TMPDIR/inc"
	[ "$status" = 0 ] && [ -z "$stderr" ] || { echo "$stderr"; false; }
	# The check itself sees a header of lib/ that includes one of lib/recorder/.
	mkdir -p "$BATS_TEST_TMPDIR/lib/recorder"
	echo '#include "recorder/x.h"' >"$BATS_TEST_TMPDIR/lib/y.h"
	echo '#include "y.h"' >"$BATS_TEST_TMPDIR/lib/recorder/x.h"
	(cd "$BATS_TEST_TMPDIR" && sh "$TESTS/layout/includes.sh" lib/y.h lib/recorder/x.h) >"$BATS_TEST_TMPDIR/bad"
	run -1 --separate-stderr tsort "$BATS_TEST_TMPDIR/bad"
	[[ "$stderr" == *loop* ]]
}

@test "the files of mt-record's collectors call one another one way: downward, no circle" {
	for d in cmd/record lib/recorder; do
		sh tests/layout/calls.sh "$d" >"$BATS_TEST_TMPDIR/calls"
		# The objects were read: main calls what is below it.
		[ "$(wc -l <"$BATS_TEST_TMPDIR/calls")" -gt 10 ]
		run --separate-stderr tsort "$BATS_TEST_TMPDIR/calls"
		[ "$status" = 0 ] && [ -z "$stderr" ] || { echo "$d: $stderr"; false; }
	done
	# The check itself sees two files that call each other.
	cd "$BATS_TEST_TMPDIR"
	printf 'void b(void);\nvoid a(void) { b(); }\n' >a.c
	printf 'void a(void);\nvoid b(void) { a(); }\n' >b.c
	cc -c a.c b.c
	run -0 sh "$TESTS/layout/calls.sh" .
	has_line "$output" '^a b$'
	has_line "$output" '^b a$'
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

# Debian's eslint, with the page's config alone, on a file of this
# folder (eslint 6 fails on a path that leaves it).  It loads its modules
# from /usr/share/nodejs, where Debian's node looks and another node
# (NodeSource's) does not: NODE_PATH says it to both.
page_eslint() {
	NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs" \
		eslint --no-eslintrc -c "$TESTS/../share/report/.eslintrc.json" "$@"
}

@test "the page's scripts are modules: eslint rejects a name one leaks or takes unsaid" {
	command -v eslint >/dev/null || skip "eslint is not installed (Debian's package eslint)"
	cp share/report/page-table.js "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr page_eslint page-table.js
	[ -z "$stderr" ]
	# A name used that no module gave: a global, read or made.
	sed -i 's/^\tfunction valueAt(e, key) {$/&\n\t\tlastKey = key;/' page-table.js
	run -1 --separate-stderr page_eslint page-table.js
	[ -z "$stderr" ]
	has_line "$output" "^ +[0-9]+:3 +error +'lastKey' is not defined +no-undef$"
	# A name put at the top, beside the module's one const.
	cp "$TESTS/../share/report/page-table.js" .
	echo 'var lastKey = null;' >>page-table.js
	run -1 --separate-stderr page_eslint page-table.js
	[ -z "$stderr" ]
	has_line "$output" "^ +[0-9]+:5 +error +Implicit global variable, assign as global property instead +no-implicit-globals$"
	has_line "$output" "error +A page script holds one module"
}
