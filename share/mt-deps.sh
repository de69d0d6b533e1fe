#!/bin/sh
# Installs the Debian packages mt needs to build and test, when they are
# missing: as root with apt-get, its progress shown (a line a package);
# otherwise it prints the line to run.
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "mt: missing packages:$missing" >&2
	echo "mt: as root, run: apt-get install -y$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
install() {
	apt-get install -y -q --no-install-recommends -o Dpkg::Use-Pty=0 $missing
}
update() {
	echo "mt: apt-get update" >&2
	apt-get update -q
}
echo "mt: installing:$missing" >&2
# A new machine may have no package lists at all: they come first.
if ! ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1; then
	update || { echo "mt: apt-get update failed" >&2; exit 1; }
fi
install && exit 0
echo "mt: apt-get install failed: the package lists may be old" >&2
update && install && exit 0
echo "mt: apt-get install failed:$missing" >&2
exit 1
