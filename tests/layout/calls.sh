#!/bin/sh
# The calls between the files of a directory, from their objects: a line
# "FROM TO" when FROM.o calls a function TO.o defines.  nm reads gcc's
# LTO objects through its plugin.
dir=$1
for o in "$dir"/*.o; do
	[ -e "$o" ] || { echo "calls.sh: no objects in $dir (build first)" >&2; exit 2; }
	nm "$o" | awk -v f="$(basename "$o" .o)" \
	    '$(NF - 1) == "T" { print "D", f, $NF } $1 == "U" { print "U", f, $2 }'
done | awk '$1 == "D" { def[$3] = $2; next } { use[++n] = $2 " " $3 }
	END { for (i = 1; i <= n; i++) { split(use[i], a, " ")
		if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' | sort -u
