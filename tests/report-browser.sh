#!/bin/sh
# The table of an mt-report page as a browser draws it, for tests:
#
#   tests/report-browser.sh [-d depth] [-b attr] [-o dom.html] [-w width] page.html [fragment]
#
# opens page.html#fragment in headless Chromium, takes the DOM once its
# script has run (--dump-dom), and writes the rows of <table id="groups">
# as TSV: a header of the columns' data-col (the keys, count, size,
# impact, per-alloc, as mt-group --format tsv), then a row per <tr> of the
# deepest key level (or of depth, -d; 0 is the first key's groups), each
# cell its data-value (numbers) or data-key (keys, the path's values).
# So it compares with `mt-window ... | mt-group --by KEYS -F tsv` after a
# sort: a tree lists a level's rows under their parents.
#
# Unless the fragment says otherwise, expand=all and top=1000000 are added
# to it, so that every level is drawn and no row is held back.
# -b attr writes the <body>'s attribute instead (data-ready-ms: the table
# ready, in ms since the navigation began; data-paint-ms: the header and
# graph drawn).  -o keeps the DOM.  -w: the window's width (1400).  $CHROMIUM names the browser (default
# chromium); it runs with --no-sandbox, which it needs as root.
# Exit: 0, 1 when the browser fails or the page has no #groups, 2 on usage.
set -u

depth= attr= keep= width=1400
while getopts d:b:o:w: opt; do
	case $opt in
	d) depth=$OPTARG ;;
	b) attr=$OPTARG ;;
	o) keep=$OPTARG ;;
	w) width=$OPTARG ;;
	*) echo "usage: report-browser.sh [-d depth] [-b attr] [-o dom.html] [-w width] page.html [fragment]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: report-browser.sh [-d depth] [-b attr] [-o dom.html] [-w width] page.html [fragment]" >&2
	exit 2
fi
page=$1
frag=${2:-}
frag=${frag#\#}
case "&$frag" in *'&expand='*) ;; *) frag="${frag:+$frag&}expand=all" ;; esac
case "&$frag" in *'&top='*) ;; *) frag="$frag&top=1000000" ;; esac
case $page in /*) ;; *) page=$(pwd)/$page ;; esac
if [ ! -r "$page" ]; then
	echo "report-browser.sh: $page: cannot read" >&2
	exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/report-browser.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
# A profile of its own, so that runs do not meet; the budget lets the
# script finish before the DOM is taken.
timeout 120 "${CHROMIUM:-chromium}" --headless --no-sandbox --disable-gpu \
	--no-first-run --user-data-dir="$dir/profile" --virtual-time-budget=10000 \
	--window-size="$width",1000 --dump-dom "file://$page#$frag" >"$dir/dom.html" 2>"$dir/err"
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$dir/dom.html" ]; then
	echo "report-browser.sh: the browser failed (status $rc):" >&2
	tail -5 "$dir/err" >&2
	exit 1
fi
[ -n "$keep" ] && cp "$dir/dom.html" "$keep"

python3 - "$dir/dom.html" "$depth" "$attr" <<'EOF'
import html.parser, sys

path, want, attr = sys.argv[1], sys.argv[2], sys.argv[3]


class Rows(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.body = {}
        self.table = False
        self.part = None
        self.head = []
        self.rows = []
        self.row = None
        self.found = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'body':
            self.body = a
        elif tag == 'table' and a.get('id') == 'groups':
            self.table = self.found = True
        elif not self.table:
            return
        elif tag in ('thead', 'tbody'):
            self.part = tag
        elif tag == 'th' and self.part == 'thead' and 'data-col' in a:
            self.head.append(a['data-col'])
        elif tag == 'tr' and self.part == 'tbody' and 'data-depth' in a:
            self.row = (int(a['data-depth']), [])
            self.rows.append(self.row)
        elif tag == 'tr':
            self.row = None
        elif tag == 'td' and self.row is not None and 'data-col' in a:
            self.row[1].append(a.get('data-value', a.get('data-key', '')))

    def handle_endtag(self, tag):
        if tag == 'table' and self.table:
            self.table = False


p = Rows()
p.feed(open(path, encoding='utf-8').read())
if attr:
    if attr not in p.body:
        sys.exit('report-browser.sh: <body> has no ' + attr)
    print(p.body[attr])
    sys.exit(0)
if not p.found:
    sys.exit('report-browser.sh: the page has no table #groups')
nkeys = len(p.head) - 4
depth = int(want) if want else nkeys - 1
print('\t'.join(p.head))
for d, cells in p.rows:
    if d == depth:
        print('\t'.join(cells))
EOF
