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
