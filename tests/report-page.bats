#!/usr/bin/env bats
# mt-report's page (share/report/) in a browser: the table it computes
# for a window is what mt-window | mt-group make of the same lifetimes,
# and report_page_write() keeps the data inside its script element.
# The fixture: a recording of tests/progs/memtestapp through mt-symbolize
# | mt-lifetime (memtestapp.life), and the report's data of it
# (memtestapp.json, schema 1 of mt-report --html, made from those life
# lines by a converter outside the tree, commit() counted as the
# allocation API as mt-group --skip '^commit$' does).

load helpers

FIX=$TESTS/fixtures/report-page

setup_file() {
	"$PROGS/report-page" "$FIX/memtestapp.json" >"$BATS_FILE_TMPDIR/app.html"
}

setup() {
	cd "$BATS_FILE_TMPDIR"
}

# mt_group FROM TO KEYS: mt-group's TSV of the fixture's window ('-': no bound)
mt_group() {
	local args=()
	[ "$1" = - ] || args+=(--from "$1")
	[ "$2" = - ] || args+=(--to "$2")
	mt-window "${args[@]}" "$FIX/memtestapp.life" |
		mt-group --skip '^commit$' --by "$3" -F tsv 2>/dev/null
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

@test "the whole trace, by type and function, as mt-group" {
	same - - type,function
	grep -qx 'leaked	InnerLoopOperation	250	10000	10000	40' page.tsv
}

@test "WPA's walkthrough: the last four spikes are transient, 4, 40 MiB, impact 0" {
	same 0.68s 1.02s type,function
	grep -qx 'transient	ManipulateTemporaryBuffer	4	41943040	0	10485760' page.tsv
}

@test "WPA's walkthrough: round the step-up, main is impacting by 10 MiB" {
	same 0.5s 0.58s type,function
	grep -qx 'impacting	main	1	10485760	10485760	10485760' page.tsv
}

@test "windows on a lifetime's very bounds, and other keys, as mt-group" {
	same 85060300ns 141921200ns process,pid,heap,type,task
	same 85060301ns 141921201ns stack,line,type
	same 141921200ns 0.2s size-class,file,module,function
}

@test "the first key's groups in mt-group's order, and the table's sizes as people read them" {
	report_rows -o dom.html app.html 'by=function&from=0.3s&to=0.7s' >page.tsv
	mt_group 0.3s 0.7s function >group.tsv
	diff group.tsv page.tsv
	grep -q '<td class="num" data-col="size" data-value="41943040" title="41943040 bytes">40.0 MiB</td>' dom.html
	grep -q '<td class="num pos" data-col="impact" data-value="4000" title="4000 bytes">3.9 KiB</td>' dom.html
}

@test "the page says its marks: first paint and table ready" {
	run -0 report_rows -b data-ready-ms app.html 'by=type'
	[[ $output =~ ^[0-9]+\.[0-9]$ ]]
	run -0 report_rows -b data-paint-ms app.html 'by=type'
	[[ $output =~ ^[0-9]+\.[0-9]$ ]]
}

@test "report_page_write: '</script>' and '<!--' in the data stay in it" {
	# The fixture with a function named so that an unescaped page would
	# end the data's script element early.
	sed 's|"InnerLoopOperation"|"x</script><!--<script>y"|' "$FIX/memtestapp.json" >odd.json
	"$PROGS/report-page" odd.json >odd.html
	! grep -q '"x</script>' odd.html
	report_rows odd.html 'by=function' >page.tsv
	grep -q '^x</script><!--<script>y	250	10000	10000	40$' page.tsv
}
