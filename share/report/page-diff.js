/*
 * A page of two runs (mt-report -o diff.html OLD NEW): the groups of the
 * table's keys whose sums over each whole run differ, as mt-group
 * --diff lists them from the two runs' --format tsv: Count, Size and
 * Impacting Size now, the change of each, and "new" or "gone" for a
 * group in one run alone; the biggest growth of Impacting Size first.
 */
/* exported mtDiff */
const mtDiff = function (dom, units, data, old, pageState) {
	'use strict';
	const { byId, el } = dom;
	const { human, cmpStr } = units;
	const { state, windowNow } = pageState;

	/* Each group's sums over a run's whole trace, by its keys' values as text. */
	function sums(d) {
		var m = new Map(), e = d.entries;
		d.computeWindow(0, d.wholeEnd);
		for (var i = 0; i < e.n; i++) {
			var j = e.keyType[i];
			var name = state.by.map(function (key) {
				return d.strings[d.entryValue(j, key)];
			}).join('\t');
			var x = m.get(name);
			if (!x)
				m.set(name, x = [0, 0, 0]);
			x[0] += e.count[i];
			x[1] += e.size[i];
			x[2] += e.impact[i];
		}
		return m;
	}

	function signed(v) {
		return (v > 0 ? '+' : '') + human(v);
	}

	function draw() {
		var now = sums(data), then = sums(old), rows = [];
		var w = windowNow();
		/* The table's window again: sums() took the run's whole trace. */
		data.computeWindow(w[0], w[1]);
		var names = new Set(Array.from(now.keys()).concat(Array.from(then.keys())));
		var same = 0;
		names.forEach(function (name) {
			var a = now.get(name), b = then.get(name);
			var st = !b ? 'new' : !a ? 'gone' : 'changed';
			a = a || [0, 0, 0];
			b = b || [0, 0, 0];
			if (st === 'changed' && a[0] === b[0] && a[1] === b[1] && a[2] === b[2]) {
				same++;
				return;
			}
			rows.push({ name: name, now: a, then: b, state: st });
		});
		rows.sort(function (x, y) {
			return (y.now[2] - y.then[2]) - (x.now[2] - x.then[2]) || cmpStr(x.name, y.name);
		});
		var table = byId('diff'), htr = el('tr');
		state.by.forEach(function (k) { el('th', 'key', k.charAt(0).toUpperCase() + k.slice(1), htr); });
		['Count', 'change', 'Size', 'change', 'Impacting Size', 'change', 'State'].forEach(function (h, i) {
			el('th', i < 6 ? 'num' : '', h, htr);
		});
		table.tHead.textContent = '';
		table.tHead.appendChild(htr);
		var frag = document.createDocumentFragment();
		rows.forEach(function (r) {
			var tr = el('tr', '', null, frag);
			r.name.split('\t').forEach(function (v, i) {
				var c = el('td', 'key', v, tr);
				c.setAttribute('data-col', state.by[i]);
				c.setAttribute('data-key', v);
				c.title = v;
			});
			[['count', 0], ['size', 1], ['impact', 2]].forEach(function (p) {
				var v = r.now[p[1]], dv = v - r.then[p[1]];
				var c = el('td', 'num', p[0] === 'count' ? String(v) : human(v), tr);
				c.setAttribute('data-col', p[0]);
				c.setAttribute('data-value', String(v));
				var d = el('td', 'num ' + (dv > 0 ? 'pos' : dv < 0 ? 'neg' : ''),
				    p[0] === 'count' ? (dv > 0 ? '+' : '') + dv : signed(dv), tr);
				d.setAttribute('data-col', 'old-' + p[0]);
				d.setAttribute('data-value', String(r.then[p[1]]));
			});
			var s = el('td', '', r.state, tr);
			s.setAttribute('data-col', 'state');
			s.setAttribute('data-key', r.state);
		});
		table.tBodies[0].textContent = '';
		table.tBodies[0].appendChild(frag);
		var nnew = rows.filter(function (r) { return r.state === 'new'; }).length;
		var ngone = rows.filter(function (r) { return r.state === 'gone'; }).length;
		byId('diff-note').textContent = rows.length + ' groups changed (' + nnew + ' new, ' +
		    ngone + ' gone), ' + same + ' the same, over each run\'s whole trace; ' +
		    'as mt-group --diff OLD.tsv --by ' + state.by.join(',') + ' lists them.';
	}

	byId('diff-pane').hidden = false;
	byId('diff-old').textContent = old.info.trace;
	return { draw };
};
