#!/usr/bin/env bats
# mt-report's page in a real browser (headless Chromium): the table it
# computes for a window is what mt-window | mt-group make of the same
# recording, on WPA's walkthrough (tests/progs/memtestapp) with commit()
# counted as the allocation API (-A '^commit$', as mt-group takes it), so
# that a row names the function that asked for the mapping.  Screenshots
# of the walkthrough's two windows are left in $MT_SCREENSHOTS (default
# the test's temporary directory) and their paths printed.

load helpers

setup_file() {
	record_walkthrough
	cd "$BATS_FILE_TMPDIR"
	mt-report -q -A '^commit$' -o app.html wpa.mtr
	# The last instant of the trace, and past it.
	awk -F'\t' '$1 == "life" { for (k = 2; k <= 3; k++) if ($k != "-" && $k + 0 > e) e = $k + 0 }
		END { printf "%.0f\n", e + 1 }' wpa.life >end
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# mt_group FROM TO KEYS: mt-group's TSV of the window ('-': no bound)
mt_group() {
	local args=()
	[ "$1" = - ] || args+=(--from "$1")
	[ "$2" = - ] || args+=(--to "$2")
	mt-window "${args[@]}" wpa.life 2>/dev/null | mt-group -A '^commit$' --by "$3" -F tsv 2>/dev/null
}

# same FROM TO KEYS: the page's rows for the window are mt-group's, as sets
same() {
	local frag="by=$3"
	[ "$1" = - ] || frag="$frag&from=$1"
	[ "$2" = - ] || frag="$frag&to=$2"
	report_rows app.html "$frag" >page.tsv
	mt_group "$1" "$2" "$3" >group.tsv
	[ "$(head -1 page.tsv)" = "$(head -1 group.tsv)" ]
	diff <(tail -n +2 group.tsv | sort) <(tail -n +2 page.tsv | sort)
}

# shot NAME FRAGMENT: the page as a person sees it, kept and said.
shot() {
	local dir=${MT_SCREENSHOTS:-$BATS_FILE_TMPDIR} prof
	command -v "${CHROMIUM:-chromium}" >/dev/null || return 0
	mkdir -p "$dir"
	prof=$(mktemp -d)
	timeout 120 "${CHROMIUM:-chromium}" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$prof" --virtual-time-budget=10000 --window-size=1400,1100 \
		--screenshot="$dir/$1.png" "file://$BATS_FILE_TMPDIR/app.html#$2" >/dev/null 2>&1
	rm -rf "$prof"
	[ -s "$dir/$1.png" ]
	echo "# screenshot: $dir/$1.png" >&3
}

@test "the whole trace, by type and function, as mt-group" {
	same - - type,function
	grep -qx 'leaked	InnerLoopOperation	250	10000	10000	40' page.tsv
}

@test "WPA's walkthrough: the last four spikes are transient, 4, 40 MiB, impact 0" {
	from=$(spike 7)ns to=$(cat end)ns
	same "$from" "$to" type,function
	grep -qx 'transient	ManipulateTemporaryBuffer	4	41943040	0	10485760' page.tsv
	shot walkthrough-spikes "from=$from&to=$to&by=type,function"
}

@test "WPA's walkthrough: round the step-up, main is impacting by 10 MiB" {
	up=$(step_up)
	from=$((up - 1000000))ns to=$((up + 1000000))ns
	same "$from" "$to" type,function
	grep -qx 'impacting	main	1	10485760	10485760	10485760' page.tsv
	shot walkthrough-step "from=$from&to=$to&by=type,function"
}

@test "windows on a lifetime's very bounds, and other keys, as mt-group" {
	s1=$(spike 1) s3=$(spike 3)
	same "${s1}ns" "${s3}ns" process,pid,heap,type,task
	same "$((s1 + 1))ns" "$((s3 + 1))ns" stack,line,type
	same "${s3}ns" "$(cat end)ns" size-class,file,module,function
}

@test "the first key's groups in mt-group's order, and the table's sizes as people read them" {
	s1=$(spike 1) s5=$(spike 5)
	report_rows -o dom.html app.html "by=function&from=${s1}ns&to=${s5}ns" >page.tsv
	mt_group "${s1}ns" "${s5}ns" function >group.tsv
	diff group.tsv page.tsv
	grep -q '<td class="num" data-col="size" data-value="41943040" title="41943040 bytes">40.0 MiB</td>' dom.html
}

@test "the page says its marks: first paint and table ready" {
	run -0 report_rows -b data-ready-ms app.html 'by=type'
	[[ $output =~ ^[0-9]+\.[0-9]$ ]]
	run -0 report_rows -b data-paint-ms app.html 'by=type'
	[[ $output =~ ^[0-9]+\.[0-9]$ ]]
}

@test "a name with '</script>', '<!--', ';' and '\\' stays in the data, and in the table" {
	cd "$BATS_TEST_TMPDIR"
	printf '%s\n' '#mt-events	1	start=1	host=h	resolution=1' 'proc	10	1	0	/bin/app	app' \
		'sym	0x10	x</script><!--<script>y	a.c:1	/bin/app' 'sym	0x20	a;b\c	a.c:2	/bin/app' \
		'stack	1	0x10	0x20' \
		'life	5	-	10	10	malloc	0x100	40	1	aifo	40' 'exit	9	10	0' >odd.life
	mt-report -q -o odd.html odd.life
	! grep -q 'x</script>' odd.html || false
	report_rows odd.html 'by=function' >page.tsv
	grep -q '^x</script><!--<script>y	1	40	40	40$' page.tsv
	# The stack as mt-group folds it, its ';' and '\' escaped.
	report_rows odd.html 'by=stack' >page.tsv
	mt-group --by stack -F tsv odd.life >group.tsv
	diff group.tsv page.tsv
	grep -qF 'a\;b\\c;x</script>' page.tsv
}

@test "a cut trace: the page says what mt-report said of its input, in its header" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o whole.mtr -- "$PROGS/pairs" 300000 >/dev/null 2>&1
	head -c $(( $(stat -c %s whole.mtr) / 2 )) whole.mtr >cut.mtr
	run -1 --separate-stderr mt-report -o cut.html cut.mtr
	said=$(grep -o 'cut.mtr: truncated after frame [0-9]* (byte [0-9]*)' <<<"$stderr")
	[ -n "$said" ]
	report_rows -o dom.html cut.html >/dev/null
	python3 - "$said" <<'PY'
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.text = ''; self.hidden = None
    def handle_starttag(self, tag, a):
        a = dict(a)
        if a.get('id') == 'input-problem':
            self.hidden = 'hidden' in a; self.stack.append(tag)
        elif self.stack:
            self.stack.append(tag)
    def handle_endtag(self, tag):
        if self.stack: self.stack.pop()
    def handle_data(self, d):
        if self.stack: self.text += d
p = P(); p.feed(open('dom.html').read())
assert p.hidden is False, 'the problem is hidden'
assert 'not read cleanly' in p.text and sys.argv[1] in p.text, p.text
PY
	# A whole trace: nothing said.
	mt-report -q -o whole.html whole.mtr
	report_rows -o dom.html whole.html >/dev/null
	grep -q '<div id="input-problem" class="warn" hidden=""></div>' dom.html
}

# legend FRAGMENT: the graph's legend as Chromium draws it, a line a
# series: label, peak in bytes, the band's height above the axis in
# pixels ('' when hidden), and "off" for a hidden one.
legend() {
	report_rows -o legend.html app.html "$1" >/dev/null
	python3 - <<'PY'
import html.parser
class P(html.parser.HTMLParser):
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == 'span' and 'item' in (a.get('class') or '').split():
            off = 'off' if 'off' in a['class'].split() else 'on'
            print('\t'.join([a['data-label'], a['data-peak'], a.get('data-height', ''), off]))
P().feed(open('legend.html').read())
PY
}

@test "the graph follows the table: a series a function, as the program makes them and mt-window counts them" {
	run -0 legend 'by=function'
	# Each function's peak as memtestapp.c makes it: main's steady and
	# step-up mappings, one 10 MiB temporary buffer at a time, 250 leaks of 40.
	has_line "$output" "^main	$((20 * 1048576))	[0-9]+	on$"
	has_line "$output" "^ManipulateTemporaryBuffer	$((10 * 1048576))	[0-9]+	on$"
	has_line "$output" '^InnerLoopOperation	10000	[0-9]+	on$'
	# The spikes' peak as mt-window samples the lifetimes under that function.
	peak=$(mt-window --series 1ms -m '^ManipulateTemporaryBuffer$' wpa.life |
		awk -F'\t' '$1 == "sample" && $7 > m { m = $7 } END { print m }')
	has_line "$output" "^ManipulateTemporaryBuffer	$peak	"
	# By the first key whatever it is: heap's series are the heaps', less
	# stdio's buffer never freed (4096 bytes), suppressed as the table has it.
	run -0 legend 'by=heap,function'
	[ "$(cut -f1,2 <<<"$output" | sort)" = "$(printf 'malloc\t10000\nmmap\t%d' $((30 * 1048576)))" ]
}

@test "a small heap beside a big one: on the log scale drawn above zero; hidden series kept in the address" {
	run -0 legend 'graph=heap'
	has_line "$output" '^memtestapp [0-9]+ malloc	14096	[0-2]	on$'
	run -0 legend 'graph=heap&scale=log'
	small=$(awk -F'\t' '$1 ~ / malloc$/ { print $3 }' <<<"$output")
	big=$(awk -F'\t' '$1 ~ / mmap$/ { print $3 }' <<<"$output")
	[ "$small" -ge 50 ] && [ "$big" -gt "$small" ]
	run -0 legend 'by=function&hide=main,InnerLoopOperation'
	has_line "$output" '^main	[0-9]+		off$'
	has_line "$output" '^InnerLoopOperation	[0-9]+		off$'
	has_line "$output" '^ManipulateTemporaryBuffer	[0-9]+	[0-9]+	on$'
	# A bad value is said, not taken.
	report_rows -o bad.html app.html 'graph=pie&scale=cubic' >/dev/null
	grep -q "graph: 'pie' is not table, heap, allocs or temps" bad.html
}

@test "the flame graph's sum is the table's: by Impacting Size, what the window freed is taken off" {
	for w in 'from=0.1s&to=0.4s' 'from=0.3s&to=0.5s' ''; do
		for weight in impact size; do
			report_rows -o flame.html app.html "$w&flame=$weight" >rows.tsv
			col=$(head -1 rows.tsv | tr '\t' '\n' | grep -nx "$weight" | cut -d: -f1)
			want=$(awk -F'\t' -v c="$col" 'NR > 1 { s += $c } END { printf "%d", s }' rows.tsv)
			got=$(grep -o 'id="flame-note" data-total="[-0-9]*"' flame.html | grep -o '[-0-9]*"$' | tr -d '"')
			[ "$got" = "$want" ] || { echo "$w $weight: flame $got, table $want"; false; }
		done
	done
	# A window that frees a spike allocated before it: what it freed is
	# said, and drawn apart.
	read -r ta tf < <(awk -F'\t' '$1 == "life" && $6 == "mmap" && $2 != "-" && $3 != "-" { print $2, $3; exit }' wpa.life)
	report_rows -o flame.html app.html "from=$((ta + 1))ns&to=$((tf + 1))ns&flame=impact" >/dev/null
	grep -q 'the 10.0 MiB the window freed stands under \[freed\], and is taken off' flame.html
}

@test "a bad time in the address refuses the range, said; a good one is taken" {
	for frag in 'from=abc' 'from=abc&to=0.2s' 'from=0.1s&to=soon'; do
		report_rows -o bad.html app.html "$frag" >/dev/null
		grep -q 'is not a time (as 2.5s, 250ms, 0). No range is taken: the whole trace is shown.' bad.html
		grep -q 'id="range-text">the whole trace, ' bad.html
		! grep -q 'class="selection"[^>]* width=' bad.html || false
	done
	report_rows -o good.html app.html 'from=0.1s&to=0.2s' >/dev/null
	grep -q 'id="range-text">0.100 s – 0.200 s (100 ms)<' good.html
	grep -q 'id="problem" class="warn" hidden' good.html
}

@test "size classes sorted by size and read in units" {
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN { OFS = "\t"; print "#mt-events", 1, "start=1", "host=h", "resolution=1"
		print "proc", 10, 1, 0, "/bin/app", "app"
		n = split("1 200 1500 1572864 10 0", sz, " ")
		for (i = 1; i <= n; i++)
			print "life", i * 10, i * 10 + 5, 10, 10, "malloc", sprintf("0x%x", i * 64), sz[i], "-", "aifi", 0 }' >s.life
	mt-report -q -o s.html s.life
	run -0 report_rows -o s-dom.html s.html 'by=size-class&sort=size-class:asc'
	[ "$(tail -n +2 <<<"$output" | cut -f1 | tr '\n' ' ')" = "0 1-1 8-15 128-255 1024-2047 1048576-2097151 " ]
	grep -q '<span class="name">1 KiB – 2 KiB</span>' s-dom.html
	grep -q '<span class="name">1 MiB – 2 MiB</span>' s-dom.html
	grep -q '<span class="name">128 B – 256 B</span>' s-dom.html
	run -0 report_rows s.html 'by=size-class&sort=size-class:desc'
	[ "$(tail -n +2 <<<"$output" | cut -f1 | head -2 | tr '\n' ' ')" = "1048576-2097151 1024-2047 " ]
}

@test "two stacks that end alike: their short labels differ" {
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN { OFS = "\t"; print "#mt-events", 1, "start=1", "host=h", "resolution=1"
		print "proc", 10, 1, 0, "/bin/app", "app"
		split("main_loop_of_the_first_kind main_loop_of_the_second_kind insertion_resize dictresize new_keys_object main", f, " ")
		for (i = 1; i <= 6; i++)
			printf "sym\t0x%x\t%s\tapp.c:%d\t/bin/app\n", 4096 + i, f[i], i
		print "stack", 1, "0x1005", "0x1004", "0x1003", "0x1001", "0x1006"
		print "stack", 2, "0x1005", "0x1004", "0x1003", "0x1002", "0x1006"
		print "life", 10, 20, 10, 10, "malloc", "0x40", 100, 1, "aifi", 0
		print "life", 30, 40, 10, 10, "malloc", "0x80", 200, 2, "aifi", 0 }' >t.life
	mt-report -q -o t.html t.life
	report_rows -o t-dom.html t.html 'by=stack' >/dev/null
	grep -o '<span class="name">[^<]*</span>' t-dom.html | sort >labels
	[ "$(wc -l <labels)" = 2 ]
	[ "$(sort -u labels | wc -l)" = 2 ]
	grep -q '…;main_loop_of_the_first_kind;insertion_resize;dictresize;new_keys_object' labels
}

@test "at 900 pixels, long C++ names leave every number column in view" {
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN { OFS = "\t"; print "#mt-events", 1, "start=1", "host=h", "resolution=1"
		print "proc", 10, 1, 0, "/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "cc1plus"
		long = "void va_gc::reserve<cp_token, va_gc>(vec<cp_token, va_gc, vl_embed>*&, unsigned int, bool)"
		for (i = 1; i <= 20; i++) {
			printf "sym\t0x%x\t%s %d\tgcc/vec.h:%d\t/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus\n", 4096 + i, long, i, i
			print "stack", i, sprintf("0x%x", 4096 + i)
			print "life", i * 10, "-", 10, 10, "malloc", sprintf("0x%x", i * 64), i * 1000, i, "aifo", i * 1000 }
		}' >cxx.life
	mt-report -q -o cxx.html cxx.life
	run -0 "$TESTS/report-browser.sh" -w 900 -b data-table-fits cxx.html 'expand=all'
	[ "$output" = 1 ]
	run -0 "$TESTS/report-browser.sh" -w 900 -b data-table-fits cxx.html 'by=process,pid,heap,type,function,line&expand=all'
	[ "$output" = 1 ]
}

@test "a row of small blocks lists its own lifetimes beside 3000 big ones; the chosen row kept in the address" {
	cd "$BATS_TEST_TMPDIR"
	awk 'BEGIN { OFS = "\t"; print "#mt-events", 1, "start=1", "host=h", "resolution=1"
		print "proc", 10, 1, 0, "/bin/app", "app"
		printf "sym\t0x1001\tbig_one\tapp.c:1\t/bin/app\nsym\t0x1002\tsmall_one\tapp.c:2\t/bin/app\n"
		print "stack", 1, "0x1001"
		print "stack", 2, "0x1002"
		for (i = 1; i <= 3000; i++)
			print "life", i * 10, i * 10 + 5, 10, 10, "malloc", sprintf("0x%x", i * 4096), 1048576 + i, 1, "aifi", 0
		for (i = 1; i <= 10; i++)
			print "life", i * 7, i * 7 + 3, 10, 10, "malloc", sprintf("0x%x", 64 + i * 16), 100 + i, 2, "aifi", 0 }' >b.life
	mt-report -q -o b.html b.life
	report_rows -o b-dom.html b.html 'by=function&row=small_one' >/dev/null
	grep -q 'id="lifetimes-note">small_one: 4 lifetimes in the window, of 10 in the row (the report keeps the 4 biggest of each thread, stack and size class' b-dom.html
	# Its four biggest (one size class, one key): 107 to 110 bytes.
	[ "$(grep -o '<table id="lifetimes">.*</table>' b-dom.html | grep -o 'data-value="[0-9]*" title="[0-9]* bytes"' |
		grep -o '^data-value="[0-9]*"' | tr -dc '0-9\n' | sort -n | tr '\n' ' ')" = "107 108 109 110 " ]
	grep -q '<tr data-depth="0" data-key="small_one" class="lvl0 selected">' b-dom.html
	# A row that is not there is said.
	report_rows -o n-dom.html b.html 'by=function&row=nobody' >/dev/null
	grep -q 'row: no row nobody in this window.' n-dom.html
}

@test "suppressed lifetimes: said in the header, and shown on demand as mt-group --no-suppress has them" {
	report_rows -o sup.html app.html 'by=heap,type' >rows.tsv
	grep -q 'id="suppressed-note" data-shown="0"><span id="suppressed-text">Left out: 1 lifetime never freed, 4.0 KiB, that suppression rules (mt-suppress) take for no leak of the program, as mt-group leaves them out.' sup.html
	mt-window wpa.life 2>/dev/null | mt-group -A '^commit$' --by heap,type -F tsv 2>/dev/null >group.tsv
	diff <(tail -n +2 group.tsv | sort) <(tail -n +2 rows.tsv | sort)
	report_rows -o sup2.html app.html 'by=heap,type&suppressed=shown' >rows2.tsv
	grep -q 'data-shown="1"><span id="suppressed-text">Counted: 1 lifetime never freed, 4.0 KiB' sup2.html
	mt-window wpa.life 2>/dev/null | mt-group --no-suppress -A '^commit$' --by heap,type -F tsv >group2.tsv
	diff <(tail -n +2 group2.tsv | sort) <(tail -n +2 rows2.tsv | sort)
	! diff -q rows.tsv rows2.tsv >/dev/null || false
	# The graph by the table counts them then too: the malloc heap's 14096.
	run -0 legend 'by=heap&suppressed=shown'
	has_line "$output" '^malloc	14096	'
}

@test "the address keeps the rows opened and the graph's zoom" {
	# Opened by hand: malloc's functions drawn, not mmap's.
	run -0 report_rows -d 1 app.html 'by=heap,function&open=malloc&expand=0'
	[ "$(tail -n +2 <<<"$output" | cut -f1 | sort -u)" = malloc ]
	has_line "$output" '^malloc	InnerLoopOperation	250	10000	10000	40$'
	run -0 report_rows -d 1 app.html 'by=heap,function&expand=0'
	[ "$(wc -l <<<"$output")" = 1 ]
	# Zoomed: the axis from 100 to 200 ms, the reset offered.
	report_rows -o z.html app.html 'zoom=0.1s,0.2s' >/dev/null
	ticks=$(grep -o '<text[^>]*>[0-9.]* ms</text>' z.html | sed 's/<[^>]*>//g')
	[ "$(head -1 <<<"$ticks")" = "100 ms" ] && [ "$(tail -1 <<<"$ticks")" = "200 ms" ]
	grep -q 'id="zoom-reset" title="Show the whole trace">' z.html
	report_rows -o z2.html app.html 'zoom=0.2s,0.1s' >/dev/null
	grep -q "zoom: '0.2s,0.1s' is not two times, the first before the second." z2.html
}

@test "two runs, one leaking twice as much: the page's changes are mt-group --diff's" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o twice.mtr -- "$PROGS/memtestapp" 2 >/dev/null 2>&1
	mt-symbolize twice.mtr 2>/dev/null | mt-lifetime -q >twice.life
	run -0 --separate-stderr mt-report -A '^commit$' -o diff.html "$BATS_FILE_TMPDIR/wpa.mtr" twice.mtr
	has_line "$stderr" '^mt-report: diff.html: the page, \d+ KiB of data$'
	report_rows -o d.html diff.html 'by=type,function' >/dev/null
	# The page's changes, as mt-group --diff -F tsv's columns.
	python3 - <<'PY' >page.tsv
import html.parser
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.on = False; self.row = None; self.rows = []
    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == 'table' and a.get('id') == 'diff': self.on = True
        elif self.on and tag == 'tr': self.row = {}
        elif self.on and tag == 'td' and self.row is not None:
            self.row[a['data-col']] = a.get('data-key', a.get('data-value'))
    def handle_endtag(self, tag):
        if tag == 'table' and self.on: self.on = False
        elif tag == 'tr' and self.row: self.rows.append(self.row); self.row = None
p = P(); p.feed(open('d.html').read())
for r in p.rows:
    print('\t'.join(r[c] for c in ['type', 'function', 'count', 'size', 'impact', 'old-count', 'old-size', 'old-impact', 'state']))
PY
	mt-group -A '^commit$' --by type,function -F tsv "$BATS_FILE_TMPDIR/wpa.life" >old.tsv 2>/dev/null
	run -1 --separate-stderr mt-group -A '^commit$' --by type,function -F tsv --diff old.tsv twice.life
	diff <(tail -n +2 <<<"$output" | sort) <(sort page.tsv)
	# InnerLoopOperation's leak: 500 blocks now, 250 before.
	has_line "$(cat page.tsv)" '^leaked	InnerLoopOperation	500	20000	20000	250	10000	10000	changed$'
	# Both runs on the graph, each from its start: the earlier faint, by name.
	report_rows -o g.html diff.html 'by=function' >/dev/null
	grep -q 'data-label="InnerLoopOperation" data-peak="20000"' g.html
	grep -q 'data-label="earlier: InnerLoopOperation" data-peak="10000"' g.html
	report_rows -o h.html diff.html 'graph=heap' >/dev/null
	grep -q 'data-label="earlier: memtestapp [0-9]* mmap" data-peak="31457280"' h.html
	# The count of changes mt-group says.
	said=$(sed -n 's/^mt-group: \([0-9]* groups changed ([0-9]* new, [0-9]* gone), [0-9]* the same\)$/\1/p' <<<"$stderr")
	[ -n "$said" ]
	grep -qF "$said" d.html
}

@test "WPA's class key (aifi, aifo, aofi, aofo) as mt-group's, on windows that cut lifetimes" {
	s1=$(spike 1) s3=$(spike 3) up=$(step_up)
	same "$((s1 + 1))ns" "$((s3 + 1))ns" class,type,function
	same "$((up - 1000000))ns" "$((up + 1000000))ns" class,heap
	same - - class
	# A window a spike straddles from its start: allocated outside, freed inside.
	same "$((s1 + 1))ns" "$(cat end)ns" class,function
	grep -q '^aofi	ManipulateTemporaryBuffer	1	0	-10485760	' page.tsv
	# The graph by class: its series are the classes.
	run -0 legend "by=class&from=$((s1 + 1))ns&to=$(cat end)ns"
	has_line "$output" '^aofi	'
}

@test "the filter box: the rows whose names or stacks hold the text, kept in the address" {
	run -0 report_rows app.html 'by=type,function&filter=innerloop'
	[ "$(tail -n +2 <<<"$output")" = "$(printf 'leaked\tInnerLoopOperation\t250\t10000\t10000\t40')" ]
	# By a frame of the stack: Operation1 calls both the spikes and the leak.
	run -0 report_rows app.html 'by=function&filter=Operation1'
	[ "$(tail -n +2 <<<"$output" | cut -f1 | sort | tr '\n' ' ')" = "InnerLoopOperation ManipulateTemporaryBuffer " ]
	# By a class, and nothing at all.
	run -0 report_rows app.html 'by=type,function&filter=leaked'
	[ "$(tail -n +2 <<<"$output" | cut -f1 | sort -u)" = leaked ]
	report_rows -o f.html app.html 'by=function&filter=no-such-name' >/dev/null
	grep -q "No row in this window holds 'no-such-name'." f.html
}

@test "the flame graph by Count and by Leaked, inverted, with a search" {
	report_rows -o fl.html app.html 'by=type,function&flame=count' >rows.tsv
	want=$(awk -F'\t' 'NR > 1 { s += $3 } END { print s }' rows.tsv)
	grep -q "id=\"flame-note\" data-total=\"$want\">Count of the selection: $want lifetimes" fl.html
	leaked=$(awk -F'\t' 'NR > 1 && $1 == "leaked" { s += $4 } END { print s }' rows.tsv)
	report_rows -o fl.html app.html 'flame=leaked' >/dev/null
	grep -q "id=\"flame-note\" data-total=\"$leaked\">Leaked of the selection" fl.html
	# Top down, the third row is _start; bottom up, the allocating functions.
	frames() { grep -o '<div id="flame">.*' "$1" | grep -o '<text[^>]*>[^<]*</text>' | sed 's/<[^>]*>//g'; }
	report_rows -o td.html app.html 'flame=count' >/dev/null
	[ "$(frames td.html | sed -n 3p)" = _start ]
	report_rows -o bu.html app.html 'flame=count&inverted=1&find=operation1' >/dev/null
	[ "$(frames bu.html | sed -n 3p)" = InnerLoopOperation ]
	# Found: Operation1 holds the leak's 250 and the spikes' 10.
	grep -q "Found 'operation1': 260 lifetimes, " bu.html
	[ "$(grep -o 'class="found"' bu.html | wc -l)" -ge 2 ]
}

@test "allocations over time by the table's first key: each group's count, as mt-group's" {
	report_rows -o al.html app.html 'graph=allocs&by=function' >/dev/null
	grep -o 'data-label="[^"]*" data-peak="[0-9]*" data-total="[0-9]*"' al.html |
		sed 's/data-label="\([^"]*\)" data-peak="[0-9]*" data-total="\([0-9]*\)"/\1\t\2/' | sort >got
	# Lifetimes allocated in the trace (not before it), by function.
	mt-group -A '^commit$' --by function -F tsv wpa.life 2>/dev/null | awk -F'\t' 'NR > 1 { print $1 "\t" $2 }' | sort >want
	diff want got
	grep -q '>Allocations a bucket (' al.html
}

@test "callers: a row's frames bottom-up, from the allocating function's caller" {
	report_rows -o c.html app.html 'by=function&callers=1&open=InnerLoopOperation' >/dev/null
	[ "$(grep -o '<tr data-depth="1" data-key="[^"]*"' c.html | head -1)" = '<tr data-depth="1" data-key="Operation1"' ]
	report_rows -o t.html app.html 'by=function&open=InnerLoopOperation' >/dev/null
	[ "$(grep -o '<tr data-depth="1" data-key="[^"]*"' t.html | head -1)" = '<tr data-depth="1" data-key="_start"' ]
	# The sums do not depend on the direction.
	[ "$(report_rows -d 0 app.html 'by=function&callers=1')" = "$(report_rows -d 0 app.html 'by=function')" ]
}

@test "lifetimes by size: a bar a size class, in size order, counts as mt-group's" {
	report_rows -o s.html app.html '' >/dev/null
	grep -o 'class="size-bar" data-class="[^"]*" data-count="[0-9]*"' s.html |
		sed 's/.*data-class="\([^"]*\)" data-count="\([0-9]*\)"/\1\t\2/' >got
	mt-group -A '^commit$' --by size-class -F tsv wpa.life 2>/dev/null |
		awk -F'\t' 'NR > 1 { split($1, r, "-"); print r[1] "\t" $1 "\t" $2 }' | sort -n | cut -f2,3 >want
	diff want got
	[ "$(wc -l <got)" -ge 2 ]
}

@test "temporary allocations (heaptrack's rule) over time and in the flame graph, as the summary counts them" {
	cd "$BATS_TEST_TMPDIR"
	mt-record -o t.mtr -- "$PROGS/temps" >/dev/null 2>&1
	mt-report -q -o t.html t.mtr
	n=$(mt-report t.mtr 2>/dev/null | sed -n 's/^temporary: \([0-9]*\) freed right after.*/\1/p')
	[ "$n" = 1000 ]
	report_rows -o tf.html t.html 'flame=temporary' >/dev/null
	grep -q "id=\"flame-note\" data-total=\"$n\">Temporary of the selection: $n lifetimes" tf.html
	report_rows -o tg.html t.html 'graph=temps&by=function' >/dev/null
	# churn's 1000; pairs' are temporary by mt's rule alone: no series.
	grep -q 'data-label="churn" data-peak="[0-9]*" data-total="1000"' tg.html
	! grep -q 'data-label="pairs"' tg.html || false
}

# calls_of DOM TABLE-ID: "function value..." a row of that table of the
# callers and callees pane, in the page's order
calls_of() {
	perl -0ne 'if (/<table[^>]*id="\Q'"$2"'\E".*?<\/table>/s) { my $t = $&;
		while ($t =~ /<tr[^>]*data-fn="([^"]*)"(.*?)<\/tr>/sg) { my ($f, $r) = ($1, $2);
			my @v = $r =~ /data-value="([-0-9.e+]*)"/g; print join(" ", $f, @v), "\n" } }' "$1"
}

@test "callers and callees, as heaptrack_gui's: inclusive, self and each call's bytes, as the folded stacks sum" {
	report_rows -o calls.html app.html 'fn=Operation1' >/dev/null
	# the oracle: mt-group's folded stacks, each function once a stack
	mt-group -A '^commit$' --by stack -F tsv wpa.life 2>/dev/null | awk -F'\t' 'NR > 1 {
		n = split($1, f, ";"); delete seen; delete pair
		for (i = 1; i <= n; i++) {
			if (!(f[i] in seen)) { seen[f[i]] = 1; incl[f[i]] += $3 }
			if (i > 1 && !((f[i-1] SUBSEP f[i]) in pair)) { pair[f[i-1], f[i]] = 1; call[f[i-1], f[i]] += $3 }
		}
		self[f[n]] += $3 }
		END {
			for (x in incl) printf "F %s %d %d\n", x, incl[x], self[x]
			for (p in call) { split(p, e, SUBSEP)
				if (e[2] == "Operation1") printf "C %s %d\n", e[1], call[p]
				if (e[1] == "Operation1") printf "E %s %d\n", e[2], call[p] } }' | sort >want
	{ calls_of calls.html calls-functions | sed 's/^/F /'
	  calls_of calls.html callers-of | sed 's/^/C /'
	  calls_of calls.html callees-of | sed 's/^/E /'; } | sort >got
	diff want got
	grep -qx 'E ManipulateTemporaryBuffer 104857600' got
	grep -qx 'E InnerLoopOperation 10000' got
	grep -qx 'C main 104867600' got
	# the chosen row marked, and kept in the address
	grep -q '<tr class="chosen" data-fn="Operation1">' calls.html
}

@test "the flame graph by Peak: the bytes live at the selection's peak instant, as the life lines sum to" {
	report_rows -o peak.html app.html 'flame=peak' >/dev/null
	# the oracle: every change at an instant made, the first instant of the most
	read -r want at < <(awk -F'\t' '$1 == "life" { print ($2 == "-" ? 0 : $2), $8
		if ($3 != "-" && $12 != "exit") print $3, -$8 }' wpa.life | sort -n -k1,1 |
		awk '{ if (NR > 1 && $1 != t && cur > best) { best = cur; bt = t } t = $1; cur += $2 }
			END { if (cur > best) { best = cur; bt = t } print best, bt }')
	got=$(grep -o 'id="flame-note" data-total="[0-9]*"' peak.html | grep -o '[0-9]*"$' | tr -d '"')
	[ "$got" = "$want" ]
	secs=$(awk -v t="$at" 'BEGIN { printf "%.7f", t / 1e9 }' | sed 's/0*$//')
	grep -q "Peak of the selection: [0-9.]* MiB live at $secs s, its most outstanding" peak.html
	# within a window that ends before it: a lower peak, of that window
	report_rows -o early.html app.html "flame=peak&to=$((at / 2))ns" >/dev/null
	early=$(grep -o 'id="flame-note" data-total="[0-9]*"' early.html | grep -o '[0-9]*"$' | tr -d '"')
	[ "$early" -lt "$want" ]
}
