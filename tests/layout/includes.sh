#!/bin/sh
# The include graph between modules (a directory under cmd/ or lib/ with
# what is below it, or cmd/ or lib/ itself for their own files): a line "FROM TO" when a file of FROM
# includes a header of TO, looked for beside it, then in lib/ and cmd/.
for f in "$@"; do
	d=$(dirname "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
	while read -r inc; do
		for c in "$d/$inc" "lib/$inc" "cmd/$inc"; do
			[ -f "$c" ] || continue
			realpath --relative-to=. "$c"
			break
		done | awk -v f="$f" 'function module(path,  p, n) {
				n = split(path, p, "/"); return n > 2 ? p[1] "/" p[2] : p[1] }
			{ if (module($0) != module(f)) print module(f), module($0) }'
	done
done | sort -u
