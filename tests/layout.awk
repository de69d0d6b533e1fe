# Files over 800 lines and functions over 150 under the paths given: a
# function runs from its name at the start of a line to the '}' that
# starts a line after it (the style of STYLE.md).  Prints each, exits 1.
function toolong() { if (prev != "" && last > 800) { printf "%s: %d lines\n", prev, last; bad = 1 } }
FNR == 1 { toolong(); name = "" }
{ prev = FILENAME; last = FNR }
/^[A-Za-z_][A-Za-z0-9_]*\(/ && !/;[ \t]*$/ { name = $0; sub(/\(.*/, "", name); start = FNR }
/^}/ && name != "" {
	if (FNR - start + 1 > 150) {
		printf "%s:%d: function %s is %d lines\n", FILENAME, start, name, FNR - start + 1
		bad = 1
	}
	name = ""
}
END { toolong(); exit bad }
