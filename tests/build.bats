#!/usr/bin/env bats
# The build itself: what a port would meet.

load helpers

# The preload library where there is no shadow stack (not x86-64): its
# sources compile with that path turned off, warnings as errors.
@test "the preload library compiles without its x86-64 shadow stack" {
	run -0 --separate-stderr make -s -C "$BATS_TEST_DIRNAME/.." WERROR=1 preload-portable
	[ -z "$output" ]
	[ -z "$stderr" ]
}

# The page's d3 is mt-report's alone (issue 40): the other programs build
# without it, and mt-report says what is missing.  make -n: what would run.
@test "only mt-report needs d3" {
	top="$BATS_TEST_DIRNAME/.."
	run -0 --separate-stderr make -n -C "$top" D3_JS=/nonexistent cmd/mt-decode cmd/mt-group
	! has_line "$output" nonexistent || false
	run -0 --separate-stderr make -n -C "$top" D3_JS=/nonexistent cmd/mt-report
	has_line "$output" "/nonexistent not found"
	run -2 --separate-stderr make -s -C "$top" D3_JS=/nonexistent cmd/report/report-page.h
	has_line "$stderr" "^mt: /nonexistent not found: run 'make deps' \\(as root\\) first: it installs node-d3$"
}
