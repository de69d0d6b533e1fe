#!/usr/bin/env bats
# mt-symbolize: symbols checked against binutils' addr2line, on committed
# fixtures (see fixtures/mt-symbolize/build.sh) and on recordings.

load helpers

FIX=$TESTS/fixtures/mt-symbolize

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# "function<TAB>file:line" for every frame addr2line -i gives for ip in
# module, read from a decoded trace (the map of the module gives lo and
# offset; the fixtures' text segments have p_vaddr == p_offset).
oracle() {	# trace.txt module ip
	local lo off
	read -r lo off <<<"$(awk -F'\t' -v m="$2" '$1 == "map" && $7 == m { print $3, $5 }' "$1" | tail -n 1)"
	addr2line -i -f -C -e "$2" "$(printf '0x%x' $(($3 - lo + off - 1)))" |
		paste - - | sed 's/ (discriminator [0-9]*)//' |
		awk -F'\t' '{ n = split($2, p, "/"); print $1 "\t" p[n] }'
}

ours() {	# symbolized.txt ip
	awk -F'\t' -v ip="$2" '$1 == "sym" && $2 == ip {
		n = split($4, p, "/"); print $3 "\t" p[n] }' "$1"
}

@test "inlined frames, innermost first, at their call sites: as addr2line -i says" {
	mt-record -o in.mtr -- "$FIX/inline" 2>/dev/null
	mt-decode in.mtr >in.txt
	run -0 --separate-stderr mt-symbolize in.mtr
	echo "$output" >sym.txt
	ips=$(awk -F'\t' -v m="$FIX/inline" '$1 == "sym" && $5 == m { print $2 }' sym.txt | sort -u)
	[ -n "$ips" ]
	# _start too: past the end of main's line sequence, where addr2line
	# says ??:? and we say -
	grep -q $'\t_start\t-\t' sym.txt
	for ip in $ips; do
		diff <(oracle in.txt "$FIX/inline" "$ip" | sed 's/\t??:?$/\t-/') <(ours sym.txt "$ip")
	done
	# the allocation behind two inlined functions has three frames
	[ "$(awk -F'\t' '$1 == "sym" && $3 == "inner_copy"' sym.txt | wc -l)" = 1 ]
	ip=$(awk -F'\t' '$1 == "sym" && $3 == "inner_copy" { print $2 }' sym.txt)
	[ "$(ours sym.txt "$ip" | cut -f1 | tr '\n' ' ')" = "inner_copy outer_copy main " ]
	[ "$(ours sym.txt "$ip" | cut -f2 | tr '\n' ' ')" = "inline.c:19 inline.c:28 inline.c:43 " ]
}

@test "every input line passes through unchanged and in order; sym lines come before their stack" {
	mt-record -o in.mtr -- "$FIX/inline" 2>/dev/null
	mt-decode in.mtr >in.txt
	mt-symbolize in.txt >sym.txt
	diff <(grep -v '^sym' sym.txt) in.txt
	awk -F'\t' '$1 == "sym" { s[$2] = 1 } $1 == "stack" { for (i = 3; i <= NF; i++) if (!($i in s)) exit 1 }' sym.txt
	# each distinct address once
	[ "$(awk -F'\t' '$1 == "sym" { print $2 }' sym.txt | uniq | sort | uniq -d | wc -l)" = 0 ]
}

@test "C++: namespaces, templates, operator new, demangled; --no-demangle keeps them raw" {
	mt-record -o cx.mtr -- "$FIX/cxx" 2>/dev/null
	mt-decode cx.mtr >cx.txt
	mt-symbolize cx.mtr >sym.txt
	grep -q $'^sym\t0x[0-9a-f]*\tshop::make_widget(int)\t.*cxx.cc:22\t' sym.txt
	grep -q $'^sym\t0x[0-9a-f]*\tstd::__new_allocator<long>::allocate(unsigned long, void const\\*)\t' sym.txt
	grep -q $'^sym\t0x[0-9a-f]*\toperator new(unsigned long)\t' sym.txt
	for ip in $(awk -F'\t' -v m="$FIX/cxx" '$1 == "sym" && $5 == m && $3 != "_start" { print $2 }' sym.txt | sort -u); do
		diff <(oracle cx.txt "$FIX/cxx" "$ip") <(ours sym.txt "$ip")
	done
	mt-symbolize --no-demangle cx.mtr >raw.txt
	grep -q $'^sym\t0x[0-9a-f]*\t_ZN4shop11make_widgetEi\t' raw.txt
}

@test "--no-inline: one frame an address, the function that holds the code" {
	mt-record -o in.mtr -- "$FIX/inline" 2>/dev/null
	mt-symbolize --no-inline in.mtr >sym.txt
	[ "$(awk -F'\t' '$1 == "sym" { print $2 }' sym.txt | sort | uniq -d | wc -l)" = 0 ]
	grep -q $'^sym\t0x[0-9a-f]*\tinner_copy\t.*inline.c:19\t' sym.txt
}

# The recording of inline, with the map of its module pointing elsewhere.
moved_trace() {	# new-path
	mt-record -o in.mtr -- "$FIX/inline" 2>/dev/null
	mt-decode in.mtr | awk -F'\t' -v OFS='\t' -v old="$FIX/inline" -v new="$1" \
		'$1 == "map" && $7 == old { $7 = new } { print }'
}

@test "a separate debug file found through .gnu_debuglink beside the binary" {
	mkdir app
	cp "$FIX/debuglink" app/inline
	cp "$FIX/debug/inline.debug" app/
	moved_trace "$PWD/app/inline" >t.txt
	run -0 --separate-stderr mt-symbolize t.txt
	has_line "$output" '^sym\t0x[0-9a-f]+\tinner_copy\t.*inline.c:19\t'
}

@test "on another machine: -s DIR finds the binary by name and its debug file" {
	moved_trace /gone/inline >t.txt
	mkdir syms
	cp "$FIX/debuglink" syms/inline
	cp "$FIX/debug/inline.debug" syms/
	run -0 --separate-stderr mt-symbolize t.txt
	has_line "$output" '^sym\t0x[0-9a-f]+\tinline\+0x[0-9a-f]+\t-\t/gone/inline$'
	run -0 --separate-stderr mt-symbolize -s "$PWD/syms" t.txt
	has_line "$output" '^sym\t0x[0-9a-f]+\tinner_copy\t.*inline.c:19\t/gone/inline$'
	run -0 --separate-stderr mt-symbolize -s syms t.txt
	has_line "$output" '^sym\t0x[0-9a-f]+\tinner_copy\t.*inline.c:19\t/gone/inline$'
}

@test "a build-id directory in the symbol path" {
	mkdir app
	cp "$FIX/stripped" app/inline
	moved_trace "$PWD/app/inline" >t.txt
	run -0 --separate-stderr mt-symbolize -s "$FIX/buildid" t.txt
	has_line "$output" '^sym\t0x[0-9a-f]+\tnot_inlined\t.*inline.c:34\t'
	# Relative, as in the man page's example: it found nothing, without
	# a word (elfutils takes a relative debug path from the binary's
	# directory, not ours).
	cp -r "$FIX/buildid" bid
	for dir in bid ./bid; do
		run -0 --separate-stderr mt-symbolize -s "$dir" t.txt
		has_line "$output" '^sym\t0x[0-9a-f]+\tnot_inlined\t.*inline.c:34\t'
	done
	# One that is not there is said, not searched in vain.
	run -2 --separate-stderr mt-symbolize -s nosuch t.txt
	[ "$stderr" = "mt-symbolize: nosuch: No such file or directory" ]
}

@test "-y names a file, not a directory: said, exit 2, as one that does not exist" {
	touch syms.txt
	run -2 --separate-stderr mt-symbolize -y syms.txt </dev/null
	[ -z "$output" ]
	[ "$stderr" = "mt-symbolize: syms.txt: Not a directory" ]
	run -2 --separate-stderr mt-symbolize --symbols no-such </dev/null
	[ "$stderr" = "mt-symbolize: no-such: No such file or directory" ]
	mkdir syms
	printf '#mt-events\t1\n' >h.txt
	run -0 --separate-stderr mt-symbolize -y syms <h.txt
	[ -z "$stderr" ]
}

@test "a map path that names a FIFO, a build-id that is not hex: module+offset without hanging" {
	# mt-symbolize opened the FIFO and waited in open for ever.
	mkfifo fifo
	moved_trace "$PWD/fifo" >t.txt
	run -0 --separate-stderr timeout 20 mt-symbolize t.txt
	has_line "$output" '^sym\t0x[0-9a-f]+\tfifo\+0x[0-9a-f]+\t-\t'"$PWD"'/fifo$'
	# A build-id is not a path: ../ in one is not followed into the symbol path.
	mkdir -p syms/.build-id && mkfifo syms/evil
	awk -F'\t' -v OFS='\t' '$1 == "map" && $7 ~ /fifo$/ { $6 = "../evil" } { print }' t.txt >t2.txt
	run -0 --separate-stderr timeout 20 mt-symbolize -y syms t2.txt
	has_line "$output" '^sym\t0x[0-9a-f]+\tfifo\+0x[0-9a-f]+\t-\t'"$PWD"'/fifo$'
}

@test "a stripped binary without debug information: module+offset, as addr2line takes it" {
	mkdir app
	cp "$FIX/stripped" app/inline
	moved_trace "$PWD/app/inline" >t.txt
	run -0 --separate-stderr mt-symbolize t.txt
	# Said once at the end, with where debug information may be had.
	[ "${#stderr_lines[@]}" = 1 ]
	has_line "$stderr" "^mt-symbolize: \d+ address(es)? without a name, as module\+offset: \Q$PWD/app/inline\E \d+; their debug information: DEBUGINFOD_URLS \(a debuginfod server\)$"
	has_line "$output" "^sym\t0x[0-9a-f]+\tinline\+0x1[0-9a-f]{3}\t-\t$PWD/app/inline\$"
	# Named again later, the debug information found: binutils' addr2line
	# on the unstripped file names each offset as mt-symbolize does then.
	stripped=$output
	cp "$FIX/inline" app/inline
	run -0 --separate-stderr mt-symbolize t.txt
	named=0
	for ip in $(awk -F'\t' '$1 == "sym" && $3 ~ /^inline\+0x/ { print $2 }' <<<"$stripped" | sort -u); do
		off=$(awk -F'\t' -v ip="$ip" '$1 == "sym" && $2 == ip { sub(/^inline\+/, "", $3); print $3; exit }' <<<"$stripped")
		want=$(addr2line -f -e "$FIX/inline" "$off" | head -n 1)
		[ "$want" != "??" ] || continue
		got=$(awk -F'\t' -v ip="$ip" '$1 == "sym" && $2 == ip { print $3; exit }' <<<"$output")
		[ "$got" = "$want" ] || { echo "$off: addr2line $want, mt-symbolize $got"; false; }
		named=$((named + 1))
	done
	[ "$named" -ge 1 ]
}

@test "a file whose build-id differs from the recorded one: one warning, frames unresolved" {
	mkdir app
	cp "$FIX/other-inline" app/inline
	moved_trace "$PWD/app/inline" >t.txt
	id=$(awk -F'\t' -v m="$PWD/app/inline" '$1 == "map" && $7 == m { print $6 }' t.txt | head -n 1)
	run -0 --separate-stderr mt-symbolize t.txt
	[ "${stderr_lines[0]}" = "mt-symbolize: $PWD/app/inline: build-id differs from the recorded $id: its frames stay unresolved" ]
	[[ "${stderr_lines[1]}" == "mt-symbolize: "*" without a name, as module+offset: $PWD/app/inline "* ]]
	out=$output
	# A bare ! cannot fail a bats test: the status is pinned instead.
	run -1 has_line "$out" '^sym\t0x[0-9a-f]+\tinner_copy\t'
	has_line "$out" "^sym\t0x[0-9a-f]+\tinline\+0x[0-9a-f]+\t-\t$PWD/app/inline\$"
}

@test "a library loaded with dlopen at a random address" {
	mt-record -o d.mtr -- "$PROGS/dlopen" "$PROGS/liballoc.so" >/dev/null 2>&1
	mt-symbolize d.mtr >sym.txt
	sid=$(awk -F'\t' '$1 == "alloc" && $7 == 4242 { print $8 }' sym.txt)
	ip=$(awk -F'\t' -v s="$sid" '$1 == "stack" && $2 == s { print $3 }' sym.txt)
	grep -q $'^sym\t'"$ip"$'\tlib_allocate\t.*liballoc.c:9\t'"$PROGS/liballoc.so"'$' sym.txt
}

@test "python3: allocations resolve into the interpreter's functions with file:line" {
	printf 'def build(n):\n    return [{"k": i, "v": str(i)} for i in range(n)]\nx = build(5000)\n' >t.py
	PYTHONMALLOC=malloc mt-record -o p.mtr -- /usr/bin/python3 t.py 2>/dev/null
	mt-symbolize p.mtr >sym.txt
	grep -Eq $'^sym\t0x[0-9a-f]+\t_PyEval_EvalFrameDefault\t\\.\\./Python/ceval\\.c:[0-9]+\t/usr/bin/python3' sym.txt
	grep -Eq $'^sym\t0x[0-9a-f]+\t[A-Za-z_.0-9]+\t\\.\\./Objects/[a-z]+\\.c:[0-9]+\t/usr/bin/python3' sym.txt
	# most frames of the interpreter resolve
	total=$(awk -F'\t' '$1 == "sym" && $5 ~ /python3/' sym.txt | wc -l)
	known=$(awk -F'\t' '$1 == "sym" && $5 ~ /python3/ && $4 != "-"' sym.txt | wc -l)
	[ "$known" -ge $((total * 9 / 10)) ]
}

@test "[vdso], deleted files and addresses outside every map: named without fuss; garbage warned" {
	printf 'map\t1\t0x7fff0000\t0x7fff1000\t0x0\t-\t[vdso]\nmap\t1\t0x1000\t0x2000\t0x0\t-\t/tmp/x (deleted)\nstack\t1\t0x7fff0010\t0x1500\t0x9999\nstack\t2\tzz\nsym\tbad\nalloc\t1\t1\t1\tmalloc\t0x10\t8\t1\n' >g.txt
	run -1 --separate-stderr mt-symbolize g.txt
	# The offset of the call, the byte before the return address.
	[ "${lines[2]}" = "$(printf 'sym\t0x7fff0010\t[vdso]+0xf\t-\t[vdso]')" ]
	[ "${lines[3]}" = "$(printf 'sym\t0x1500\tx (deleted)+0x4ff\t-\t/tmp/x (deleted)')" ]
	[ "${lines[4]}" = "$(printf 'sym\t0x9999\t0x9999\t-\t[unknown]')" ]
	[ "${lines[6]}" = "$(printf 'alloc\t1\t1\t1\tmalloc\t0x10\t8\t1')" ]
	[ "$stderr" = "mt-symbolize: g.txt:4: bad address 'zz'
mt-symbolize: g.txt:5: missing fields in 'sym'
mt-symbolize: g.txt:3: address outside every map (1 such, named by it, in [unknown]) '0x9999'" ]
}

@test "stacks before the maps they need (an old circular trace): said once, resolved as in order" {
	mt-record -o in.mtr -- "$FIX/inline" 2>/dev/null
	mt-decode in.mtr >in.txt
	mt-symbolize in.txt >want.txt
	# every map line moved after the first stack line
	awk -F'\t' '$1 == "map" { m = m $0 "\n"; next }
		$1 != "stack" && !done && seen { printf "%s", m; done = 1 }
		$1 == "stack" { seen = 1 } { print }' in.txt >late.txt
	first=$(awk -F'\t' '$1 == "stack" { print NR; exit }' late.txt)
	n=$(awk -F'\t' '$1 == "map" { exit } $1 == "stack" { for (i = 3; i <= NF; i++) if ($i != "...") a[$i] = 1 }
		END { print length(a) }' late.txt)
	ip=$(awk -F'\t' '$1 == "stack" { print $3; exit }' late.txt)
	# a file: its maps read ahead, the sym lines where they belong
	run -1 --separate-stderr mt-symbolize late.txt
	[ "$stderr" = "mt-symbolize: late.txt:$first: stack before the map of its address ($n such, resolved by the later map) '$ip'" ]
	diff <(grep '^sym' want.txt | sort) <(echo "$output" | grep '^sym' | sort)
	diff <(echo "$output" | grep -v '^sym') late.txt
	awk -F'\t' '$1 == "sym" { s[$2] = 1 } $1 == "stack" { for (i = 3; i <= NF; i++) if (!($i in s)) exit 1 }' <<<"$output"
	# standard input: written after the map that holds them
	run -1 --separate-stderr mt-symbolize <late.txt
	[ "$stderr" = "mt-symbolize: <stdin>:$first: stack before the map of its address ($n such, resolved by the later map) '$ip'" ]
	diff <(grep '^sym' want.txt | sort) <(echo "$output" | grep '^sym' | sort)
	diff <(echo "$output" | grep -v '^sym') late.txt
	# a .mtr: the line mt-decode writes it on
	tests=$TESTS
	"$tests/progs/mtr-encode" late.txt >late.mtr
	run -1 --separate-stderr mt-symbolize late.mtr
	[ "$stderr" = "mt-symbolize: late.mtr:$first: stack before the map of its address ($n such, resolved by the later map) '$ip'" ]
	diff <(grep '^sym' want.txt | sort) <(echo "$output" | grep '^sym' | sort)
}

@test "Rust, legacy and v0 manglings, demangled" {
	xz -dc "$FIX/rust-legacy.xz" >rust-legacy
	xz -dc "$FIX/rust-v0.xz" >rust-v0
	chmod +x rust-legacy rust-v0
	mt-record -o l.mtr -- ./rust-legacy 2>/dev/null
	mt-record -o v.mtr -- ./rust-v0 2>/dev/null
	run -0 --separate-stderr mt-symbolize l.mtr
	has_line "$output" '^sym\t0x[0-9a-f]+\trust::shop::Basket<T>::fill\t.*rust\.rs:12\t'
	run -0 --separate-stderr mt-symbolize v.mtr
	has_line "$output" '^sym\t0x[0-9a-f]+\t<rust::shop::Basket<alloc::string::String>>::fill\t.*rust\.rs:12\t'
	run -0 --separate-stderr mt-symbolize --no-demangle v.mtr
	has_line "$output" '^sym\t0x[0-9a-f]+\t_RNvMNtCs[0-9A-Za-z_]+4rust4shopINtB2_6Basket'
}

@test "Rust's standard library in one path form: library/..., not also /rustc/<commit>/library/..." {
	xz -dc "$FIX/rust-legacy.xz" >rust-legacy
	chmod +x rust-legacy
	mt-record -o l.mtr -- ./rust-legacy 2>/dev/null
	run -0 --separate-stderr mt-symbolize l.mtr
	sym=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "sym"')
	# the program's units name std's generics /rustc/<commit>/library/...
	# (their line tables' directory), std's own units library/...
	readelf --debug-dump=rawline rust-legacy | grep -q '/rustc/[0-9a-f]*$'
	has_line "$sym" '\tlibrary/alloc/src/alloc\.rs:[0-9]+\t'
	! has_line "$sym" '\t/rustc/' || false
	# a function's line has one file: one row of mt-group
	[ -z "$(printf '%s\n' "$sym" | awk -F'\t' '{ n = $4; sub(/.*:/, "", n); k = $3 SUBSEP n
		if (k in f && f[k] != $4) print $3, f[k], $4; f[k] = $4 }')" ]
	# the program's own file as compiled
	has_line "$sym" '\t/.*/rust\.rs:12\t'
}

@test "JIT code: anonymous memory made executable is a map of its own, named by offset, no warning" {
	run -0 --separate-stderr mt-record -o j.mtr -- "$PROGS/jit"
	jit=$(printf '%s' "$output" | sed 's/jit at \(0x[0-9a-f]*\) .*/\1/')
	has_line "$(mt-decode j.mtr)" "^map\t\d+\t$jit\t0x[0-9a-f]+\t0x0\t-\t\[anon:exec\]$"
	run -0 --separate-stderr mt-symbolize j.mtr
	[ -z "$stderr" ]
	sid=$(printf '%s\n' "$output" | awk -F'\t' '$1 == "alloc" && $7 == 123 { print $8 }')
	ip=$(printf '%s\n' "$output" | awk -F'\t' -v s="$sid" '$1 == "stack" && $2 == s { print $3 }')
	has_line "$output" "^sym\t$ip\t\[anon:exec\]\+0x14\t-\t\[anon:exec\]$"
}

# The sym records of a .mtr stream, and the rest, as text.
binary_parts() {	# stream.mtr prefix
	mt-decode "$1" >"$2.all"
	grep '^sym' "$2.all" | sort >"$2.sym"
	grep -v '^sym' "$2.all" >"$2.rest"
	# each sym before every stack that needs it
	awk -F'\t' '$1 == "sym" { s[$2] = 1 } $1 == "stack" { for (i = 3; i <= NF; i++) if ($i != "..." && !($i in s)) exit 1 }' "$2.all"
}

@test "-b: a .mtr stream, the input's frames passed on whole, the sym records before them" {
	mt-record -o in.mtr -- "$FIX/inline" 2>/dev/null
	mt-decode in.mtr >in.txt
	mt-symbolize in.mtr >want.txt
	mt-symbolize -b in.mtr >out.mtr
	[ "$(head -c 4 out.mtr | od -An -tx1 | tr -d ' ')" = 894d5452 ]
	binary_parts out.mtr b
	diff b.rest in.txt
	diff b.sym <(grep '^sym' want.txt | sort)
	# the input's frames are there byte for byte, in their order
	python3 -c '
import sys
a, b = open("in.mtr", "rb").read()[16:], open("out.mtr", "rb").read()
frames = [f for f in a.split(bytes([0x28, 0xb5, 0x2f, 0xfd])) if f]
at = 0
for f in frames:
	at = b.find(f, at)
	if at < 0:
		sys.exit(1)
sys.exit(0 if len(frames) >= 1 else 1)'
	# text and an old version are written anew, in the text's order
	mt-symbolize -b in.txt | mt-decode >t.txt
	diff t.txt want.txt
	run -0 mt-symbolize -b "$TESTS/fixtures/mt-decode/v1-pairs.mtr"
	mt-symbolize -b "$TESTS/fixtures/mt-decode/v1-pairs.mtr" | mt-decode >v1.txt
	diff v1.txt <(mt-symbolize "$TESTS/fixtures/mt-decode/v1-pairs.mtr")
	# standard input, and through the next filter as through text
	mt-symbolize -b <in.mtr | mt-lifetime -q | sort >l1.txt
	mt-symbolize <in.mtr | mt-lifetime -q | sort >l2.txt
	diff l1.txt l2.txt
	# never to a terminal
	run -2 --separate-stderr script -qec "mt-symbolize -b in.mtr" /dev/null
	[[ "$output" == *"mt-symbolize: binary output to a terminal"* ]]
}

@test "-b: a cut trace and a damaged frame pass up to the damage, said as in text" {
	awk 'BEGIN { printf "#mt-events\t1\tstart=0\thost=x\nproc\t5\t1\t0\t/bin/x\tx\n"
		for (i = 1; i <= 3000; i++) printf "alloc\t%d\t5\t5\tmalloc\t0x%x\t%d\t-\n", i, 4096 + 64 * i, i % 100 + 1 }' >f.txt
	"$PROGS/mtr-encode" -n 1000 f.txt >f.mtr
	# cut inside its last frame: the whole frames before it
	head -c "$(($(stat -c %s f.mtr) - 20))" f.mtr >cut.mtr
	run -1 --separate-stderr mt-symbolize cut.mtr
	want=$output wanterr=$stderr
	run -1 --separate-stderr bash -o pipefail -c 'mt-symbolize -b cut.mtr | mt-decode'
	[ "$output" = "$want" ]
	[ "$stderr" = "$wanterr" ]
	[ "$(grep -c '^alloc' <<<"$output")" -ge 2000 ]
	# frame 1 whole by its checksum but a byte left over in a stream:
	# its records decoded again and written anew
	command -v zstd >/dev/null || skip "no zstd (Debian's zstd) to make the damaged frame"
	python3 - <<'PY'
import subprocess
d = open("f.mtr", "rb").read()
magic = bytes([0x28, 0xb5, 0x2f, 0xfd])
a = d.index(magic)
b = d.index(magic, a + 4)
raw = subprocess.run(["zstd", "-dcq"], input=d[a:b], capture_output=True, check=True).stdout
def varint(buf, i):
	v = s = 0
	while True:
		c = buf[i]; i += 1; v |= (c & 0x7f) << s; s += 7
		if c < 0x80: return v, i
def put(v):
	o = bytearray()
	while v >= 0x80: o.append(v & 0x7f | 0x80); v >>= 7
	o.append(v); return bytes(o)
n, i = varint(raw, 0)
lens = []
for _ in range(n):
	l, i = varint(raw, i); lens.append(l)
lens[-1] += 1
raw2 = put(n) + b"".join(put(l) for l in lens) + raw[i:] + b"\0"
z = subprocess.run(["zstd", "-cq", "--check"], input=raw2, capture_output=True, check=True).stdout
open("bad.mtr", "wb").write(d[:a] + z + d[b:])
PY
	run -1 --separate-stderr mt-symbolize bad.mtr
	want=$output wanterr=$stderr
	[[ "$wanterr" == *"bad.mtr: corrupt frame 1 (byte 16): 1 bytes left over"* ]]
	run -1 --separate-stderr bash -o pipefail -c 'mt-symbolize -b bad.mtr | mt-decode'
	[ "$output" = "$want" ]
	[ "$stderr" = "$wanterr" ]
	[ "$(grep -c '^alloc' <<<"$output")" = 3000 ]
}

@test "a distribution's stripped program: its unnamed addresses counted, its -dbgsym package said" {
	command -v dpkg-query >/dev/null && dpkg-query -S /usr/bin/id >/dev/null 2>&1 ||
		skip "dpkg does not know /usr/bin/id here (not Debian?)"
	dpkg-query -W -f '${Status}' coreutils-dbgsym 2>/dev/null | grep -q installed &&
		skip "coreutils-dbgsym is installed: id's frames have names"
	run -0 --separate-stderr mt-record -o i.mtr -- id -u
	run -0 --separate-stderr mt-symbolize i.mtr
	has_line "$stderr" '^mt-symbolize: \d+ address(es)? without a name, as module\+offset: .*/usr/bin/id \d+.*; their debug information: apt-get install [^;]*\bcoreutils-dbgsym\b.*, or DEBUGINFOD_URLS \(a debuginfod server\)$'
	has_line "$output" '^sym\t0x[0-9a-f]+\tid\+0x[0-9a-f]+\t-\t/usr/bin/id$'
}

@test "the -dbgsym hint from dpkg's file lists: a name with a dot, an architecture, whole lines only" {
	mkdir -p app admin/info
	cp "$FIX/stripped" app/inline
	moved_trace "$PWD/app/inline" >t.txt
	printf '%s-old\n/x%s\n' "$PWD/app/inline" "$PWD/app/inline" >admin/info/decoy.list
	printf '/.\n/usr\n%s\n' "$PWD/app/inline" >'admin/info/libglib2.0-0:amd64.list'
	run -0 --separate-stderr env DPKG_ADMINDIR="$PWD/admin" mt-symbolize t.txt
	has_line "$stderr" '; their debug information: apt-get install libglib2\.0-0-dbgsym \(Debian'
	# No package holds it: no apt-get.
	rm 'admin/info/libglib2.0-0:amd64.list'
	run -0 --separate-stderr env DPKG_ADMINDIR="$PWD/admin" mt-symbolize t.txt
	has_line "$stderr" '; their debug information: DEBUGINFOD_URLS \(a debuginfod server\)$'
}

# A free port on the loopback.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

@test "debuginfod: a stripped program's debug information from Debian's server; one bounded wait when none answers" {
	command -v debuginfod >/dev/null || skip "debuginfod (Debian's server) not installed"
	# A program stripped, its debug information alone in what the server serves.
	cp "$PROGS/xwrap" xwrap
	id=$(readelf -n xwrap | awk '/Build ID/ { print $3 }')
	[ -n "$id" ]
	mkdir srv
	objcopy --only-keep-debug xwrap srv/xwrap.debug
	strip --strip-all xwrap
	port=$(free_port)
	debuginfod -F srv -p "$port" -d "$BATS_TEST_TMPDIR/db.sqlite" >srv.log 2>&1 &
	srv=$!
	# Until it has scanned the directory and serves the file.
	python3 -c 'import sys, time, urllib.request
for _ in range(200):
    try:
        urllib.request.urlopen(sys.argv[1], timeout=2).read(); break
    except Exception:
        time.sleep(0.1)' "http://127.0.0.1:$port/buildid/$id/debuginfo"
	run -0 --separate-stderr mt-record -o x.mtr -- ./xwrap
	export DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/cache
	DEBUGINFOD_URLS=http://127.0.0.1:$port run -0 --separate-stderr mt-symbolize x.mtr
	kill $srv; wait $srv || true
	# Every frame of the program named, with its file and line.
	has_line "$output" "^sym\t0x[0-9a-f]+\tbuild_list\t.*xwrap\.c:\d+\t$PWD/xwrap$"
	has_line "$output" "^sym\t0x[0-9a-f]+\txmalloc\t.*xwrap\.c:\d+\t$PWD/xwrap$"
	run -1 has_line "$output" "^sym\t0x[0-9a-f]+\txwrap\+0x"
	# --offline: nothing asked, the frames module+offset.
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/c2 \
		run -0 --separate-stderr mt-symbolize --offline x.mtr
	has_line "$output" "^sym\t0x[0-9a-f]+\txwrap\+0x[0-9a-f]+\t-\t$PWD/xwrap$"
	# A server that takes connections and never answers: one wait (5 s,
	# DEBUGINFOD_TIMEOUT's default here), said once, and module+offset.
	port=$(free_port)
	python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); time.sleep(120)' "$port" &
	mute=$!
	sleep 0.3
	SECONDS=0
	DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$BATS_TEST_TMPDIR/c3 \
		run -0 --separate-stderr mt-symbolize x.mtr
	took=$SECONDS
	kill $mute
	[ "$took" -le 12 ] || { echo "took $took s"; false; }
	has_line "$stderr" "^mt-symbolize: debuginfod: no answer from http://127\.0\.0\.1:$port within 5 s: not asked again; "
	[ "$(grep -c 'debuginfod: no answer' <<<"$stderr")" = 1 ]
	has_line "$output" "^sym\t0x[0-9a-f]+\txwrap\+0x[0-9a-f]+\t-\t$PWD/xwrap$"
}

@test "libc6-dbg: the C library's own frames named by function and line" {
	[ -n "$(find /usr/lib/debug/.build-id -name '*.debug' 2>/dev/null | head -n 1)" ] &&
		dpkg-query -W -f '${Status}' libc6-dbg 2>/dev/null | grep -q installed ||
		skip "libc6-dbg (Debian's glibc debug files) not installed"
	run -0 --separate-stderr mt-record -o g.mtr -- "$PROGS/gconv"
	run -0 --separate-stderr mt-symbolize g.mtr
	# iconv_open's steps in glibc, by their sources' names.
	has_line "$output" '^sym\t0x[0-9a-f]+\t(__GI_)?iconv_open\t\./iconv/iconv_open\.c:\d+\t.*/libc\.so\.6$'
	has_line "$output" '^sym\t0x[0-9a-f]+\t(__GI_)?__gconv_open\t\./iconv/gconv_open\.c:\d+\t.*/libc\.so\.6$'
	has_line "$output" '^sym\t0x[0-9a-f]+\tgconv_init\t.*iso-2022-jp\.c:\d+\t.*ISO-2022-JP\.so$'
}

@test "MiniDebugInfo: a stripped program's functions named from its .gnu_debugdata (xz), as Fedora ships them" {
	python3 -c 'import lzma' 2>/dev/null || skip "python3 without lzma"
	cp "$PROGS/xwrap" p
	# Fedora's recipe: the functions the dynamic symbol table lacks, in a
	# symbol table alone, xz-compressed into .gnu_debugdata of the stripped file.
	nm -D p --format=posix --defined-only | awk '{ print $1 }' | sort >dyn
	nm p --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ { print $1 }' | sort >funcs
	comm -13 dyn funcs >keep
	grep -qx build_list keep
	objcopy --only-keep-debug p mini.debug
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep mini.debug mini
	python3 -c 'import lzma, sys
open(sys.argv[2], "wb").write(lzma.compress(open(sys.argv[1], "rb").read(), format=lzma.FORMAT_XZ))' mini mini.xz
	strip --strip-all p
	objcopy --add-section .gnu_debugdata=mini.xz p
	run -1 bash -c "nm p 2>&1 | grep -w build_list"
	run -0 --separate-stderr mt-record -o p.mtr -- ./p
	run -0 --separate-stderr mt-symbolize --offline p.mtr
	has_line "$output" "^sym\t0x[0-9a-f]+\tbuild_list\t-\t$PWD/p$"
	has_line "$output" "^sym\t0x[0-9a-f]+\tread_config\t-\t$PWD/p$"
	run -1 has_line "$output" "^sym\t0x[0-9a-f]+\tp\+0x"
}
