# The layout rules of the tree, each on the files it is about.  Prints
# each breach, exits 1.
#
# C sources: files over 800 lines and functions over 150 under the
# paths given: a function runs from its name at the start of a line to
# the '}' that starts a line after it (the style of STYLE.md).
#
# bats files and their helpers: a command turned by a bare '!' asserts
# nothing.  bats runs a test under set -e, which ignores any status that
# '!' turned, so `! grep -q x f` passes whatever grep finds, unless it is
# the last command of its @test (whose status is the test's).  It is
# written `run ! cmd`, or `! cmd || false`; in a `sh -c` script
# `|| exit N`.  The same after ';' or '&&', outside the condition of an
# if or a loop.
function toolong() { if (prev != "" && last > 800) { printf "%s: %d lines\n", prev, last; bad = 1 } }
function bare(what) {
	printf "%s:%d: a bare '!' asserts nothing: %s\n", FILENAME, bangline, what
	bad = 1
}
function firstline(s) { sub(/^[ \t]*/, "", s); sub(/\n.*/, "", s); return s }
# A bare '!' seen and not yet judged is judged when the next command shows
# whether it was the last of its @test.
function flush() { if (bang != "") bare(bang); bang = "" }
FNR == 1 { toolong(); prev = ""; name = ""; flush(); intest = 0; stmt = "" }

FILENAME ~ /\.(bats|bash)$/ {
	line = $0
	if (stmt == "" && line ~ /^[ \t]*(#|$)/)
		next
	if (bang != "") {
		if (!(line ~ /^}/ && intest))
			bare(bang)
		bang = ""
	}
	if (line ~ /^@test /)
		intest = 1
	else if (line ~ /^}/)
		intest = 0
	# A command goes on over lines that end in '\', '|', '&&' or '||'.
	if (stmt == "")
		stmtline = FNR
	stmt = stmt line
	if (line ~ /(\\|\||&&)[ \t]*$/) {
		stmt = stmt "\n"
		next
	}
	if (stmt ~ /\|\|[ \t]*(false|exit)([^A-Za-z0-9_]|$)/ || stmt ~ /^[ \t]*(if|elif|while|until)[ \t]/)
		stmt = ""
	else if (stmt ~ /^[ \t]*![ \t]/) {
		bang = firstline(stmt)
		bangline = stmtline
		stmt = ""
	} else {
		if (stmt ~ /(;|&&)[ \t]*![ \t]/) {
			bangline = stmtline
			bare(firstline(stmt))
		}
		stmt = ""
	}
	next
}

{ prev = FILENAME; last = FNR }
/^[A-Za-z_][A-Za-z0-9_]*\(/ && !/;[ \t]*$/ { name = $0; sub(/\(.*/, "", name); start = FNR }
/^}/ && name != "" {
	if (FNR - start + 1 > 150) {
		printf "%s:%d: function %s is %d lines\n", FILENAME, start, name, FNR - start + 1
		bad = 1
	}
	name = ""
}
END { toolong(); flush(); exit bad }
