/*
 * Callers and callees, as heaptrack_gui's Caller/Callee view: each
 * function of the selection's stacks with its inclusive weight (every
 * stack it is in, once however often it recurs there) and its self
 * weight (the stacks that allocate in it), the flame graph's weight;
 * the chosen function's callers and callees below, each with the weight
 * of the stacks where the one calls the other.
 */
/* exported mtCalls */
const mtCalls = function (dom, units, data, pageState, flame) {
	'use strict';
	const { byId, el } = dom;
	const { cmpStr } = units;
	const { strings, keyCount, keyFrames, frameFn, stacks } = data;
	const { state, writeFragment } = pageState;

	var SHOWN = 40, SHOWN_EDGES = 20;
	var sums = null;

	/* One pass over the keys: functions' inclusive and self, and the calls between them. */
	function sum(weight) {
		var incl = new Map(), self = new Map(), calls = new Map(), k, i;
		function add(m, key, w) { m.set(key, (m.get(key) || 0) + w); }
		for (k = 0; k < keyCount; k++) {
			var w = weight[k], st = keyFrames[k];
			if (!w || st < 0 || st >= stacks.length || !stacks[st].length)
				continue;
			var fr = stacks[st], seen = new Set(), pairs = new Set();
			for (i = 0; i < fr.length; i++) {
				var fn = frameFn[fr[i]];
				if (!seen.has(fn)) {
					seen.add(fn);
					add(incl, fn, w);
				}
				if (i > 0) {
					var pair = frameFn[fr[i - 1]] + ',' + fn;
					if (!pairs.has(pair)) {
						pairs.add(pair);
						add(calls, pair, w);
					}
				}
			}
			add(self, frameFn[fr[fr.length - 1]], w);
		}
		return { incl: incl, self: self, calls: calls };
	}

	function byWeight(m) {
		return Array.from(m.entries()).sort(function (a, b) {
			return Math.abs(b[1]) - Math.abs(a[1]) || cmpStr(strings[a[0]], strings[b[0]]);
		});
	}

	function row(tbody, fn, cells, chosen) {
		var tr = el('tr', chosen ? 'chosen' : '', null, tbody);
		tr.setAttribute('data-fn', strings[fn]);
		el('td', 'name', strings[fn], tr).title = strings[fn];
		cells.forEach(function (c) {
			var td = el('td', 'num', flame.showWeight(c), tr);
			td.setAttribute('data-value', String(c));
		});
		tr.addEventListener('click', function () {
			state.fn = strings[fn];
			drawCalls();
			writeFragment();
		});
		return tr;
	}

	function table(host, caption, heads) {
		var t = el('table', 'calls', null, host);
		el('caption', '', caption, t);
		var tr = el('tr', '', null, el('thead', '', null, t));
		heads.forEach(function (h, i) { el('th', i ? 'num' : '', h, tr); });
		return el('tbody', '', null, t);
	}

	/* The chosen function's callers and callees. */
	function drawEdges(host, fn) {
		var callers = new Map(), callees = new Map();
		sums.calls.forEach(function (w, pair) {
			var c = pair.indexOf(','), from = +pair.slice(0, c), to = +pair.slice(c + 1);
			if (to === fn)
				callers.set(from, w);
			if (from === fn)
				callees.set(to, w);
		});
		var name = flame.weightName();
		[[callers, 'Callers of ' + strings[fn], 'calls'], [callees, 'Callees of ' + strings[fn],
		    'called']].forEach(function (x) {
			var tb = table(host, x[1], ['Function', name + ' through it']);
			tb.parentNode.id = x[2] === 'calls' ? 'callers-of' : 'callees-of';
			var list = byWeight(x[0]);
			list.slice(0, SHOWN_EDGES).forEach(function (e) { row(tb, e[0], [e[1]], false); });
			if (!list.length)
				el('td', 'muted', x[2] === 'calls' ? 'none: the outermost frame' :
				    'none: it allocates itself', el('tr', '', null, tb)).colSpan = 2;
		});
	}

	function drawCalls() {
		var host = byId('calls');
		host.textContent = '';
		sums = sum(flame.weights());
		var list = byWeight(sums.incl), name = flame.weightName(), fn = -1;
		list.forEach(function (e) {
			if (strings[e[0]] === state.fn)
				fn = e[0];
		});
		var top = el('div', 'calls-list', null, host);
		var tb = table(top, 'Functions by inclusive ' + name + ' (the flame graph\'s weight)',
		    ['Function', 'Inclusive', 'Self']);
		tb.parentNode.id = 'calls-functions';
		list.slice(0, SHOWN).forEach(function (e) {
			row(tb, e[0], [e[1], sums.self.get(e[0]) || 0], e[0] === fn);
		});
		if (list.length > SHOWN)
			el('p', 'muted', (list.length - SHOWN) + ' more functions', top);
		if (!list.length)
			top.textContent = 'No stack in this selection.';
		if (fn >= 0)
			drawEdges(el('div', 'calls-edges', null, host), fn);
		else if (list.length)
			el('p', 'muted', 'Choose a function: its callers and callees.', host);
	}

	return { drawCalls };
};
