#!/usr/bin/env python3
# The table of a window [A, B) summed from mt-report's data (--json) by
# the rule man/mt-report.1 gives, as mt-group -F tsv --by KEYS prints it
# (rows sorted, no header): an oracle apart from mt-window and mt-group.
import json, sys

d = json.load(open(sys.argv[1]))
A, B, by = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(',')
c, S, K = d['cells'], d['strings'], d['keys']
u = c['u']
if A % u or B % u:
    sys.exit('report-table: %d and %d are not multiples of %d' % (A, B, u))
a0, b0 = A // u, B // u
cut = set(d.get('stackcut', []))


def esc(f):
    return ''.join('\\' + ch if ch in ';\\' else ch for ch in f)


def column(b, k):
    """A key's value; a stack's folded from its frames when not given."""
    v = K[b][k]
    if v != -1:
        return S[v]
    st = K['frames'][k]
    parts = ['[...]'] if st in cut else []
    return ';'.join(parts + [esc(S[d['frames'][j][0]]) for j in d['stacks'][st]])


g = {}
for i in range(len(c['k'])):
    a, f, on, fate = c['a'][i], c['f'][i], c['on'][i], c['fate'][i]
    if not ((a == -1 or a < b0) and (f == -1 or (f > a0 if on else f >= a0))):
        continue
    if c.get('sup') and c['sup'][i]:
        continue  # a suppression rule's, left out as mt-group leaves it
    ai = a != -1 and a >= a0
    fi = f != -1 and f < b0
    t = ('transient' if ai and fi else 'leaked' if fate == 2 else
         'outstanding' if not ai and not fi else 'impacting')
    k, n, s = c['k'][i], c['n'][i], c['s'][i]
    key = tuple(t if b == 'type' else column(b, k) for b in by)
    x = g.setdefault(key, [0, 0, 0])
    x[0] += n
    x[1] += s if ai else 0
    x[2] += s if ai and not fi else -s if not ai and fi else 0
for key in sorted(g):
    print('\t'.join(list(key) + [str(v) for v in g[key]]))
