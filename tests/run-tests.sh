#!/bin/sh
# Every test of mt: the bats suites, the man page lint, eslint on the
# report page's scripts, the same suites against an ASan+UBSan build, a
# build by the other compiler (clang when CC is gcc) with warnings as
# errors, and a short fuzzing run of the decoder, the parsers and
# mt-record's collector.  The last line is "N passed, N failed".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
log=$(mktemp -d)
pass=0 fail=0 skip=0

count_tap() {	# a TAP log: counts its results, shows its failures
	p=$(grep -c '^ok ' "$1" | tr -d ' ')
	s=$(grep -c '^ok .* # skip' "$1" | tr -d ' ')
	f=$(grep -c '^not ok ' "$1" | tr -d ' ')
	pass=$((pass + p - s)) skip=$((skip + s)) fail=$((fail + f))
	grep -A12 '^not ok ' "$1" || true
	grep '^ok .* # skip' "$1" || true
}

copy_tree() {	# the sources, no build products, for a build of their own
	mkdir -p "$1"
	tar -cf - --exclude=.git --exclude='*.o' --exclude='*.a' --exclude='*.so' . | (cd "$1" && tar -xf -)
}

step() {	# one check that passes or fails as a whole
	name=$1
	shift
	if "$@" >"$log/step.out" 2>&1; then
		pass=$((pass + 1))
		echo "ok - $name"
	else
		fail=$((fail + 1))
		echo "not ok - $name"
		tail -20 "$log/step.out"
	fi
}

skipped() {	# a check this machine cannot make: said with its reason, not passed
	skip=$((skip + 1))
	echo "ok - $1 # skip $2"
}

echo "== bats"
bats --tap tests/*.bats >"$log/bats.tap" 2>&1
count_tap "$log/bats.tap"
echo "$pass passed so far"

echo "== man pages"
for m in man/*.[0-9]; do
	step "mandoc -Tlint $m" sh -c "out=\$(mandoc -Tlint -Wwarning '$m' 2>&1); [ -z \"\$out\" ] || { echo \"\$out\"; exit 1; }"
done

echo "== eslint"
# Debian's eslint loads its modules from /usr/share/nodejs, where Debian's
# node looks and another node (NodeSource's) does not: NODE_PATH says it.
if command -v eslint >/dev/null; then
	step "eslint share/report/*.js" env NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs" \
		eslint share/report/*.js
else
	skipped "eslint share/report/*.js" "eslint is not installed (Debian's package eslint)"
fi

echo "== ASan+UBSan build"
san=$log/san
copy_tree "$san"
if step "make SAN=1" make -C "$san" -s clean all SAN=1 WERROR="${WERROR:-}"; then
	MT_BINDIR=$san/cmd bats --tap tests/cli.bats tests/mt-decode.bats tests/mt-record.bats tests/mt-symbolize.bats tests/mt-lifetime.bats tests/mt-window.bats tests/mt-group.bats tests/mt-plot.bats tests/mt-pooldiff.bats tests/realworld.bats tests/hostile.bats tests/unwind.bats tests/attach.bats tests/uprobes.bats tests/uprobes-safety.bats tests/both-ways.bats >"$log/san.tap" 2>&1
	count_tap "$log/san.tap"
fi

# The compiler CC is not, gcc or clang: a warning only it gives is an
# error here too.  Built, not tested: the suites ran on CC's build.
case $(${CC:-cc} --version 2>/dev/null) in
*clang*) other=gcc ;;
*) other=clang ;;
esac
echo "== $other build"
if command -v "$other" >/dev/null 2>&1; then
	copy_tree "$log/$other"
	step "make CC=$other WERROR=1" make -C "$log/$other" -s clean all tests CC="$other" WERROR=1
else
	skipped "make CC=$other" "no $other on PATH"
fi

echo "== fuzzing"
if step "build fuzzers" make -s fuzz; then
	# The call frame interpreter's seed: a program's .eh_frame_hdr and
	# what follows it, with the address of main in the image's terms
	# (its header seen at 0x1000).
	mkdir -p "$log/corpus-fuzz-ehframe"
	hdr=$(readelf -lW tests/progs/unofp | awk '$1 == "GNU_EH_FRAME" { print $2, $3 }')
	main=$(nm tests/progs/unofp | awk '$3 == "main" { print $1 }')
	if [ -n "$hdr" ] && [ -n "$main" ]; then
		set -- $hdr
		pc=$((0x1000 + 0x$main - $2 + 16))
		{
			for i in 0 1 2 3 4 5 6 7; do
				printf "\\$(printf %03o $(((pc >> (8 * i)) & 255)))"
			done
			tail -c +$(($1 + 1)) tests/progs/unofp | head -c 4096
		} >"$log/corpus-fuzz-ehframe/unofp"
	fi
	for f in tests/fuzz/fuzz-decode tests/fuzz/fuzz-parse tests/fuzz/fuzz-ktrace tests/fuzz/fuzz-collector \
	    tests/fuzz/fuzz-ehframe tests/fuzz/fuzz-procmap; do
		# The collector says on stderr what each lie was: not wanted here.
		quiet=
		[ "$f" = tests/fuzz/fuzz-collector ] && quiet=-close_fd_mask=2
		mkdir -p "$log/corpus-$(basename "$f")"
		cp tests/fuzz/corpus/* "$log/corpus-$(basename "$f")/" 2>/dev/null
		# Traces of the current format, made now from the fixtures.
		tests/progs/mtr-encode tests/fixtures/mt-decode/roundtrip.txt \
			>"$log/corpus-$(basename "$f")/roundtrip.mtr"
		tests/progs/mtr-encode -n 3 tests/fixtures/mt-decode/roundtrip.txt \
			>"$log/corpus-$(basename "$f")/roundtrip3.mtr"
		head -c 300 "$log/corpus-$(basename "$f")/roundtrip3.mtr" \
			>"$log/corpus-$(basename "$f")/cut.mtr"
		# Allocations made before recording (mt-record -p), as text and .mtr.
		cp tests/fixtures/mt-decode/before.txt "$log/corpus-$(basename "$f")/"
		tests/progs/mtr-encode -n 2 tests/fixtures/mt-decode/before.txt \
			>"$log/corpus-$(basename "$f")/before.mtr"
		# Version 1, still read; and a recording, whose frames name a
		# time unit (--time-resolution).
		cp tests/fixtures/mt-decode/v1-*.mtr "$log/corpus-$(basename "$f")/"
		cmd/mt-record -o "$log/corpus-$(basename "$f")/demo.mtr" -- tests/progs/demo \
			>/dev/null 2>&1 || true
		head -120 tests/fixtures/mt-record/trace_pipe.txt >"$log/corpus-$(basename "$f")/trace_pipe.txt"
		tar -xJOf tests/fixtures/mt-record/raw.tar.xz per_cpu/cpu1/trace_pipe_raw 2>/dev/null |
			head -c 8192 >"$log/corpus-$(basename "$f")/pages.raw"
		step "$(basename "$f") for ${FUZZ_SECONDS:-20}s" "$f" -max_total_time="${FUZZ_SECONDS:-20}" \
			-timeout=10 -rss_limit_mb=2048 $quiet "$log/corpus-$(basename "$f")"
	done
fi

rm -rf "$log"
[ "$skip" = 0 ] || echo "($skip skipped: not counted as passed)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
