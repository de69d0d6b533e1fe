#!/usr/bin/env bats
# make install and uninstall: PREFIX, BINDIR, LIBDIR, MANDIR, DESTDIR, and
# an installed mt-record that finds its installed library.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	top=$TESTS/..
}

@test "install under DESTDIR and PREFIX; the installed tools record, decode and symbolize" {
	run -0 make -s -C "$top" install DESTDIR="$PWD/root" PREFIX=/opt/mt
	for f in bin/mt-record bin/mt-decode bin/mt-symbolize lib/mt/libmt-preload.so \
	    share/man/man1/mt-record.1 share/man/man1/mt-decode.1 \
	    share/man/man1/mt-symbolize.1 share/man/man5/mt-events.5; do
		[ -e "root/opt/mt/$f" ]
	done
	run -0 --separate-stderr root/opt/mt/bin/mt-record -o d.mtr -- "$PROGS/demo"
	[ "$(root/opt/mt/bin/mt-decode d.mtr | grep -c '^alloc')" = 9 ]
	root/opt/mt/bin/mt-symbolize d.mtr | grep -q $'^sym\t.*\tmake_name\t'
}

@test "BINDIR, LIBDIR and MANDIR each on their own; uninstall removes what install put" {
	run -0 make -s -C "$top" install DESTDIR="$PWD/root" BINDIR=/b LIBDIR=/l MANDIR=/m SHAREDIR=/s
	[ -x root/b/mt-record ]
	[ -e root/l/libmt-preload.so ]
	[ -e root/m/man5/mt-events.5 ]
	[ -x root/s/mt-plot ]
	[ -e root/s/mt-pool.cron ]
	[ -x root/b/mt-pooldiff ]
	[ -e root/m/man1/mt-pooldiff.1 ]
	# not beside the binary: MT_PRELOAD points at it, as the man page says
	MT_PRELOAD=$PWD/root/l/libmt-preload.so run -0 --separate-stderr root/b/mt-record -o d.mtr -- "$PROGS/demo"
	run -0 make -s -C "$top" uninstall DESTDIR="$PWD/root" BINDIR=/b LIBDIR=/l MANDIR=/m SHAREDIR=/s
	[ -z "$(find root -type f)" ]
}
