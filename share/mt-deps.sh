#!/bin/sh
# Installs the Debian packages mt needs to build and test, when they are
# missing: as root with apt-get; otherwise it prints the line to run.
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
echo "mt: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends $missing >/dev/null ||
	{ apt-get update >/dev/null && apt-get install -y --no-install-recommends $missing >/dev/null; } ||
	{ echo "mt: apt-get install failed:$missing" >&2; exit 1; }
