/* exported mtLifetimes */
const mtLifetimes = function (dom, units, data, pageState, table) {
	'use strict';
	const { byId, el } = dom;
	const { human, secsUnit, dur } = units;
	const { TYPE_NAMES, strings, keyCount, keyCol, lifetimes, entries, entryKey, entryType } = data;
	const { windowNow } = pageState;
	const { pathValues } = table;

	/* ---- A row's biggest lifetimes ---- */

	var keyMark = new Uint8Array(keyCount);
	function drawLifetimes(g) {
		var list = byId('lifetimes'), note = byId('lifetimes-note');
		list.tHead.textContent = '';
		list.tBodies[0].textContent = '';
		if (!g) {
			note.textContent = 'Click a row of the table.';
			return;
		}
		var w = windowNow(), A = w[0], B = w[1], marked = [], i;
		for (i = 0; i < g.idx.length; i++) {
			var j = entries.keyType[g.idx[i]], k = entryKey(j);
			if (!keyMark[k])
				marked.push(k);
			keyMark[k] |= 1 << entryType(j);
		}
		var rows = [], n = lifetimes.k.length;
		for (i = 0; i < n; i++) {
			var m = keyMark[lifetimes.k[i]];
			if (!m)
				continue;
			var ta = lifetimes.ta[i], tf = lifetimes.tf[i];
			var never = tf === -1 || lifetimes.fate[i] === 2;
			if (!(ta === -1 || ta < B) || !(never || tf > A))
				continue;
			var ai = ta !== -1 && ta >= A, fi = !never && tf < B;
			var t = ai && fi ? 0 : lifetimes.fate[i] === 2 ? 3 : !ai && !fi ? 2 : 1;
			if (m & (1 << t))
				rows.push({ i: i, t: t });
		}
		marked.forEach(function (k) { keyMark[k] = 0; });
		rows.sort(function (x, y) {
			return lifetimes.size[y.i] - lifetimes.size[x.i] ||
			    lifetimes.ta[x.i] - lifetimes.ta[y.i];
		});
		var shown = rows.slice(0, 100);
		var heads = [['Commit Time', 'num'], ['Decommit Time', 'num'], ['Duration', 'num'],
			['Size', 'num'], ['Type', ''], ['Process', ''], ['Function', '']];
		var htr = el('tr', '', null, list.tHead);
		heads.forEach(function (h) { el('th', h[1], h[0], htr); });
		var frag = document.createDocumentFragment();
		shown.forEach(function (r) {
			var i = r.i, tr = el('tr', '', null, frag), ta = lifetimes.ta[i], tf = lifetimes.tf[i];
			var fate = lifetimes.fate[i], k = lifetimes.k[i];
			var cells = [
				ta === -1 ? 'before recording' : secsUnit(ta),
				fate === 2 ? 'never (leaked at exit)' : tf === -1 ? 'never (live at the end)' :
				    secsUnit(tf),
				ta !== -1 && tf !== -1 && fate !== 2 ? dur(tf - ta) : '-',
				human(lifetimes.size[i]),
				TYPE_NAMES[r.t],
				strings[keyCol.process[k]] + ' ' + strings[keyCol.pid[k]],
				strings[keyCol['function'][k]]
			];
			cells.forEach(function (v, x) {
				var c = el('td', heads[x][1], v, tr);
				if (x === 0 && ta !== -1)
					c.setAttribute('data-value', String(ta));
				if (x === 1 && tf !== -1)
					c.setAttribute('data-value', String(tf));
				if (x === 3) {
					c.setAttribute('data-value', String(lifetimes.size[i]));
					c.title = lifetimes.size[i] + ' bytes';
				}
			});
		});
		list.tBodies[0].appendChild(frag);
		var what = pathValues(g).map(function (v) { return strings[v]; }).join(' › ') +
		    (g.frame ? ' › ' + g.name : '');
		note.textContent = rows.length ?
		    what + ': ' + (rows.length > shown.length ? 'the ' + shown.length + ' biggest of ' : '') +
		    rows.length + ' lifetime' + (rows.length === 1 ? '' : 's') + ' in the window' +
		    (rows.length < g.count ? ', of ' + g.count + ' in the row' : '') +
		    (lifetimes.cut ? ' (the report keeps the ' + (lifetimes.per_key || 0) +
		    ' biggest of each thread, stack and size class, and the trace\'s biggest).' : '.') :
		    what + ': none of its lifetimes is among the ' + n + ' the report keeps.';
	}

	return { drawLifetimes };
};
