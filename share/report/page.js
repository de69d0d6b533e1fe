/*
 * mt-report's page: WPA's view of one trace, from the data mt-report
 * embedded in the page (report-schema.md, schema 1).  The graph of
 * outstanding memory with a time selection, the table of that window
 * grouped by keys the user orders (mt-window | mt-group, computed here
 * from the cells), the row's biggest lifetimes and a flame graph.
 * Hand-written on d3 v5 (scales, axes, brush, partition); no network.
 *
 * The state is the address's fragment, read on load and on a change of
 * it, written when the user changes the view:
 *   from=T, to=T     the window [from, to): a time as mt-window's --from
 *                    takes it (2.5s, 250ms, 85060300ns, 0), snapped out
 *                    to the cells' unit u; none: the whole trace
 *   by=K1,K2,...     the keys, in their order (process, pid, heap, type,
 *                    function, line, file, module, stack, size-class, task)
 *   sort=COL[:asc|:desc]   count, size, impact, per-alloc or a key
 *   flame=size|impact      the flame graph's weight
 *   top=N            rows drawn a level before "N more rows" (200)
 *   expand=N|all     open the first N key levels (for tests: all)
 * Marks for tests on <body>, in ms since the navigation began:
 * data-paint-ms (header and graph drawn), data-ready-ms (the table),
 * data-done-ms (the flame graph too), data-fcp-ms (the browser's first
 * contentful paint, when it says it); data-compute-ms, the last table.
 */
(function () {
	'use strict';

	var started = performance.now();
	var body = document.body;

	var KEYNAMES = ['process', 'pid', 'heap', 'type', 'function', 'line', 'file',
		'module', 'stack', 'size-class', 'task'];
	var DEFAULT_BY = ['process', 'heap', 'type', 'function'];
	var TYPE_NAMES = ['transient', 'impacting', 'outstanding', 'leaked'];
	var NUMCOLS = [
		{ col: 'count', head: 'Count' },
		{ col: 'size', head: 'Size' },
		{ col: 'impact', head: 'Impacting Size' },
		{ col: 'per-alloc', head: 'Per Alloc' }
	];
	var ROWS_PER_LEVEL = 200;
	var NO_STACK = -2, SELF = -3;

	function $(id) { return document.getElementById(id); }

	function el(tag, cls, text, parent) {
		var e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text != null)
			e.textContent = text;
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function button(text, title, parent, onclick) {
		var b = el('button', '', text, parent);
		b.type = 'button';
		b.title = title;
		b.addEventListener('click', onclick);
		return b;
	}

	function problem(text) {
		var p = $('problem');
		p.hidden = false;
		p.textContent = (p.textContent ? p.textContent + ' ' : '') + text;
	}

	var data;
	try {
		data = JSON.parse($('mt-data').textContent);
	} catch (e) {
		problem('The report\'s data does not parse: ' + e.message);
		return;
	}
	if (data.schema !== 1) {
		problem('The report\'s data is schema ' + data.schema + '; this page reads schema 1.');
		return;
	}
	var parsedMs = performance.now() - started;

	/*
	 * Strings: equal strings get one index, so that a group is an index
	 * and grouping never compares text.
	 */
	var STR = data.strings.slice();
	var canonIndex = new Map();
	var canonOf = new Int32Array(STR.length);
	(function () {
		for (var i = 0; i < STR.length; i++) {
			var c = canonIndex.get(STR[i]);
			if (c === undefined) {
				canonIndex.set(STR[i], i);
				c = i;
			}
			canonOf[i] = c;
		}
	})();
	function intern(s) {
		var c = canonIndex.get(s);
		if (c === undefined) {
			c = STR.length;
			STR.push(s);
			canonIndex.set(s, c);
		}
		return c;
	}
	var TYPE_STR = TYPE_NAMES.map(intern);
	var DASH = intern('-');

	/* Key columns, typed, once. */
	var K = data.keys.process.length;
	var keyCol = {};
	KEYNAMES.forEach(function (name) {
		if (name === 'type')
			return;
		var src = data.keys[name], a = new Int32Array(K);
		for (var i = 0; i < K; i++)
			a[i] = src && src[i] != null && src[i] >= 0 ? canonOf[src[i]] : DASH;
		keyCol[name] = a;
	});
	var keyFrames = new Int32Array(K);
	(function () {
		var src = data.keys.frames || [];
		for (var i = 0; i < K; i++)
			keyFrames[i] = src[i] == null ? -1 : src[i];
	})();

	/* Frames: equal (function, line, module) are one frame. */
	var frameFn, frameLine, frameMod, frameCanon;
	(function () {
		var fr = data.frames || [], seen = new Map();
		frameFn = new Int32Array(fr.length);
		frameLine = new Int32Array(fr.length);
		frameMod = new Int32Array(fr.length);
		frameCanon = new Int32Array(fr.length);
		for (var i = 0; i < fr.length; i++) {
			frameFn[i] = canonOf[fr[i][0]];
			frameLine[i] = fr[i][1] >= 0 ? canonOf[fr[i][1]] : DASH;
			frameMod[i] = fr[i][2] >= 0 ? canonOf[fr[i][2]] : DASH;
			var key = frameFn[i] + ',' + frameLine[i] + ',' + frameMod[i];
			var c = seen.get(key);
			if (c === undefined) {
				seen.set(key, i);
				c = i;
			}
			frameCanon[i] = c;
		}
	})();
	var STACKS = (data.stacks || []).map(function (s) {
		var a = new Int32Array(s.length);
		for (var i = 0; i < s.length; i++)
			a[i] = frameCanon[s[i]];
		return a;
	});

	/* The cells, typed.  a and f are Float64: with u = 1 they pass 2^31. */
	var U = data.cells.u || 1;
	var EXACT = !!data.cells.exact;
	var NC = data.cells.k.length;
	var cK = new Int32Array(data.cells.k);
	var cA = new Float64Array(data.cells.a);
	var cF = new Float64Array(data.cells.f);
	var cOn = new Uint8Array(data.cells.on);
	var cFate = new Uint8Array(data.cells.fate);
	var cN = new Float64Array(data.cells.n);
	var cS = new Float64Array(data.cells.s);
	data.cells = null;

	var LT = data.lifetimes || { k: [], ta: [], tf: [], size: [], fate: [], cut: false };
	var END = data.info.end;
	/* No selection: [0, the first multiple of u past the end). */
	var TEND = (Math.floor(END / U) + 1) * U;

	/* ---- Numbers and times as people read them ---- */

	/*
	 * mt_human of lib/units.c, digit for digit: 1024-based, one decimal
	 * rounded as printf rounds the exact quotient (a tie to even).
	 */
	var HUNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
	function human(v) {
		var neg = v < 0, d = Math.abs(v), u = 0;
		while (d >= 1024 && u < 6) {
			d /= 1024;
			u++;
		}
		if (u === 0)
			return (neg ? '-' : '') + Math.abs(v) + ' B';
		if (!Number.isSafeInteger(v))	/* past 2^53: not exact anyway */
			return (neg ? '-' : '') + d.toFixed(1) + ' ' + HUNITS[u];
		var big = BigInt(Math.abs(v)) * 10n, div = 1n << BigInt(10 * u);
		var q = big / div, r2 = (big % div) * 2n;
		if (r2 > div || (r2 === div && q % 2n === 1n))
			q += 1n;
		var s = (q / 10n).toString() + '.' + (q % 10n).toString();
		return (neg ? '-' : '') + s + ' ' + HUNITS[u];
	}

	/* Seconds, exact to the nanosecond, at least three decimals: "2.500 s". */
	function secs(ns, min) {
		if (min === undefined)
			min = 3;
		var neg = ns < 0;
		ns = Math.abs(Math.round(ns));
		var whole = Math.floor(ns / 1e9), frac = String(ns - whole * 1e9);
		frac = '000000000'.slice(frac.length) + frac;
		var keep = 9;
		while (keep > min && frac[keep - 1] === '0')
			keep--;
		return (neg ? '-' : '') + whole + (keep ? '.' + frac.slice(0, keep) : '');
	}
	function secsUnit(ns) { return secs(ns) + ' s'; }

	/* A duration for people, in the unit that suits it. */
	function dur(ns) {
		var a = Math.abs(ns);
		if (a >= 1e9)
			return secs(ns) + ' s';
		if (a >= 1e6)
			return +(ns / 1e6).toFixed(3) + ' ms';
		if (a >= 1e3)
			return +(ns / 1e3).toFixed(3) + ' µs';
		return ns + ' ns';
	}

	/* A time for the fragment: "2.5s", "0.0850603s", "0". */
	function fragTime(ns) {
		return ns === 0 ? '0' : secs(ns, 0) + 's';
	}

	/*
	 * parse_duration of lib/units.c: a number (digits, '.', an exponent)
	 * and a unit; a bare number only when it is 0.  null when bad.
	 */
	var TIME_UNITS = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, m: 60e9, min: 60e9, h: 3600e9 };
	function parseDuration(s) {
		var m = /^([0-9.][0-9.]*(?:[eE][-+]?[0-9]+)?)([a-z]*)$/.exec(s);
		if (!m)
			return null;
		var v = Number(m[1]);
		if (!isFinite(v) || v < 0 || isNaN(v))
			return null;
		if (m[2] === '')
			return v === 0 ? 0 : null;
		if (!Object.prototype.hasOwnProperty.call(TIME_UNITS, m[2]))
			return null;
		/* nearbyint: a half to even. */
		var x = v * TIME_UNITS[m[2]], r = Math.round(x);
		return r - x === 0.5 && r % 2 ? r - 1 : r;
	}

	function cmpStr(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

	/* ---- State, and the URL fragment that holds it ---- */

	var state = {
		sel: null,		/* [A, B) in ns, multiples of U, or null: the whole trace */
		view: [0, TEND],	/* the graph's time axis */
		by: DEFAULT_BY.slice(),
		sort: { col: 'impact', dir: -1 },
		flame: 'size',
		top: ROWS_PER_LEVEL,
		expand: 0
	};

	function snapDown(ns) { return Math.floor(ns / U) * U; }
	function snapUp(ns) { return Math.ceil(ns / U) * U; }

	/* A time of the fragment: its nanoseconds, or null when absent or bad (said). */
	function fragmentTime(p, name) {
		if (p[name] === undefined)
			return null;
		var t = parseDuration(p[name]);
		if (t === null)
			problem(name + '=\'' + p[name] + '\' is not a time (as 2.5s, 250ms, 0).');
		return t;
	}

	function readFragment() {
		var h = location.hash.replace(/^#/, ''), p = {};
		$('problem').hidden = true;
		$('problem').textContent = '';
		h.split('&').forEach(function (kv) {
			if (!kv)
				return;
			var i = kv.indexOf('=');
			var k = i < 0 ? kv : kv.slice(0, i), v = i < 0 ? '' : kv.slice(i + 1);
			try {
				p[decodeURIComponent(k)] = decodeURIComponent(v);
			} catch (e) {
				problem('A bad part in the address\'s fragment: \'' + kv + '\'.');
			}
		});
		var from = fragmentTime(p, 'from'), to = fragmentTime(p, 'to');
		var ranged = from !== null || to !== null;
		if (from === null)
			from = 0;
		if (to === null)
			to = TEND;
		state.sel = null;
		if (ranged) {
			var A = Math.min(snapDown(from), TEND), B = Math.min(snapUp(to), TEND);
			if (A !== from || (B !== to && to <= TEND))
				problem('The range is taken to the table\'s cells of ' + dur(U) + ': ' +
				    secsUnit(A) + ' – ' + secsUnit(B) + '.');
			if (B <= A)
				problem('from is not before to: the whole trace is shown.');
			else
				state.sel = [A, B];
		}
		state.by = DEFAULT_BY.slice();
		if (p.by !== undefined) {
			var by = p.by.split(',').filter(function (x) { return x !== ''; });
			var bad = by.filter(function (x) { return KEYNAMES.indexOf(x) < 0; });
			if (bad.length)
				problem('by: unknown key \'' + bad[0] + '\' (' + KEYNAMES.join(', ') + ').');
			by = by.filter(function (x, i) {
				return KEYNAMES.indexOf(x) >= 0 && by.indexOf(x) === i;
			});
			if (by.length)
				state.by = by;
		}
		state.sort = { col: 'impact', dir: -1 };
		if (p.sort) {
			var sp = p.sort.split(':'), col = sp[0];
			if (col === 'name')
				col = state.by[0];
			if (NUMCOLS.some(function (c) { return c.col === col; }) ||
			    KEYNAMES.indexOf(col) >= 0)
				state.sort = {
					col: col,
					dir: sp[1] === 'asc' ? 1 : sp[1] === 'desc' ? -1 :
					    KEYNAMES.indexOf(col) >= 0 ? 1 : -1
				};
			else
				problem('sort: unknown column \'' + p.sort + '\'.');
		}
		state.flame = p.flame === 'impact' ? 'impact' : 'size';
		state.top = ROWS_PER_LEVEL;
		if (p.top && /^[0-9]+$/.test(p.top) && +p.top > 0)
			state.top = +p.top;
		state.expand = p.expand === 'all' ? Infinity : /^[0-9]+$/.test(p.expand || '') ? +p.expand : 0;
	}

	var writingFragment = false;
	function writeFragment() {
		var parts = [];
		if (state.sel)
			parts.push('from=' + fragTime(state.sel[0]), 'to=' + fragTime(state.sel[1]));
		parts.push('by=' + state.by.join(','));
		if (state.sort.col !== 'impact' || state.sort.dir !== -1)
			parts.push('sort=' + state.sort.col + ':' + (state.sort.dir < 0 ? 'desc' : 'asc'));
		if (state.flame !== 'size')
			parts.push('flame=' + state.flame);
		if (state.top !== ROWS_PER_LEVEL)
			parts.push('top=' + state.top);
		var h = '#' + parts.join('&');
		if (location.hash !== h) {
			writingFragment = true;
			try {
				history.replaceState(null, '', h);
			} catch (e) {
				location.hash = h;
			}
			writingFragment = false;
		}
	}

	function windowNow() { return state.sel || [0, TEND]; }

	/* ---- The header ---- */

	function fact(dl, name, value, title) {
		var div = el('div', '', null, dl);
		el('dt', '', name, div);
		var dd = el('dd', '', value, div);
		if (title)
			dd.title = title;
	}

	function drawHeader() {
		var info = data.info, dl = $('facts');
		$('title').textContent = info.trace || 'trace';
		document.title = (info.trace || 'trace') + ' — mt-report';
		$('subtitle').textContent = 'memory allocations as WPA shows them';
		fact(dl, 'Duration', secsUnit(END), END + ' ns');
		fact(dl, 'Host', info.host == null ? '-' : info.host);
		if (info.start_unix_ns != null) {
			var d = new Date(info.start_unix_ns / 1e6);
			fact(dl, 'Started', d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
		}
		fact(dl, 'Lifetimes', String(info.lifetimes));
		if (info.events)
			fact(dl, 'Events', String(info.events));
		fact(dl, 'Processes', String(new Set(Array.from(keyCol.pid)).size));
		fact(dl, 'Graph buckets', dur(data.series.w) + ' × ' + data.series.n,
		    'each point of the graph is the most and least outstanding in a bucket of this width');
		fact(dl, 'Table times', EXACT ? 'exact (to the ns)' :
		    'in cells of ' + dur(U) + ' (u = ' + U + ' ns): a selection snaps to them',
		    'cells.u = ' + U + ' ns');
		if (info.capped != null) {
			$('capped').hidden = false;
			$('capped').textContent = 'Capped: ' + info.capped;
		}
	}

	function drawRange(sel, live) {
		var w = sel || [0, TEND];
		$('range-text').textContent = (sel ? '' : 'the whole trace, ') + secsUnit(w[0]) + ' – ' +
		    secsUnit(w[1]) + ' (' + dur(w[1] - w[0]) + ')' + (live ? ' …' : '');
	}

	/* ---- The window's sums: one pass over the cells ---- */

	var accCount = new Float64Array(K * 4), accSize = new Float64Array(K * 4),
	    accImpact = new Float64Array(K * 4);
	/* The window's entries: (key, type) with lifetimes in the window. */
	var E = { n: 0, j: null, count: null, size: null, impact: null };

	function computeWindow(A, B) {
		var a0 = A / U, b0 = B / U, i;
		accCount.fill(0);
		accSize.fill(0);
		accImpact.fill(0);
		for (i = 0; i < NC; i++) {
			var a = cA[i], f = cF[i];
			if (a !== -1 && a >= b0)
				continue;
			if (f !== -1 && (cOn[i] ? f <= a0 : f < a0))
				continue;
			var ai = a !== -1 && a >= a0, fi = f !== -1 && f < b0;
			var t = ai && fi ? 0 : cFate[i] === 2 ? 3 : !ai && !fi ? 2 : 1;
			var j = cK[i] * 4 + t, s = cS[i];
			accCount[j] += cN[i];
			if (ai) {
				accSize[j] += s;
				if (!fi)
					accImpact[j] += s;
			} else if (fi) {
				accImpact[j] -= s;
			}
		}
		var n = 0, m = K * 4;
		for (i = 0; i < m; i++)
			if (accCount[i] > 0)
				n++;
		E.n = n;
		E.j = new Int32Array(n);
		E.count = new Float64Array(n);
		E.size = new Float64Array(n);
		E.impact = new Float64Array(n);
		for (i = 0, n = 0; i < m; i++) {
			if (accCount[i] > 0) {
				E.j[n] = i;
				E.count[n] = accCount[i];
				E.size[n] = accSize[i];
				E.impact[n] = accImpact[i];
				n++;
			}
		}
	}

	/* ---- The tree: groups of entries, key by key, then frames ---- */

	function valueAt(e, key) {
		var j = E.j[e];
		return key === 'type' ? TYPE_STR[j & 3] : keyCol[key][j >> 2];
	}

	/* The frame at depth fd of the entry's stack, outermost first. */
	function frameAt(e, fd) {
		var fr = keyFrames[E.j[e] >> 2];
		if (fr < 0 || fr >= STACKS.length)
			return fd === 0 ? NO_STACK : SELF;
		var st = STACKS[fr];
		return fd < st.length ? st[fd] : SELF;
	}

	function framesBelow(by) {
		var last = by[by.length - 1];
		return last === 'function' || last === 'stack';
	}

	/* Children of node: its entries grouped by the next level's value. */
	function childrenOf(node) {
		var depth = node.depth + 1, nk = state.by.length, m = new Map();
		var byKey = depth < nk, key = byKey ? state.by[depth] : null, fd = depth - nk;
		var idx = node.idx;
		for (var x = 0; x < idx.length; x++) {
			var e = idx[x], v = byKey ? valueAt(e, key) : frameAt(e, fd);
			var g = m.get(v);
			if (!g) {
				g = { depth: depth, val: v, idx: [], count: 0, size: 0, impact: 0,
					parent: node, kids: null, shown: state.top };
				m.set(v, g);
			}
			g.idx.push(e);
			g.count += E.count[e];
			g.size += E.size[e];
			g.impact += E.impact[e];
		}
		var kids = Array.from(m.values());
		kids.forEach(function (g) {
			g.path = node.path + '\u001f' + g.val;
			g.frame = !byKey;
			if (byKey)
				g.expandable = depth < nk - 1 || framesBelow(state.by);
			else
				g.expandable = g.val >= 0 && g.idx.some(function (e) {
					return frameAt(e, fd + 1) >= 0;
				});
		});
		return kids;
	}

	function nodeName(g) {
		if (!g.frame)
			return STR[g.val];
		if (g.val === NO_STACK)
			return '[no stack]';
		if (g.val === SELF)
			return '[self]';
		return STR[frameFn[g.val]];
	}

	function sortKids(kids) {
		var col = state.sort.col, dir = state.sort.dir;
		var num = col === 'count' ? function (g) { return g.count; } :
		    col === 'size' ? function (g) { return g.size; } :
		    col === 'impact' ? function (g) { return g.impact; } :
		    col === 'per-alloc' ? function (g) { return Math.floor(g.size / g.count); } : null;
		kids.forEach(function (g) { g.name = nodeName(g); });
		kids.sort(function (x, y) {
			if (num) {
				var a = num(x), b = num(y);
				if (a !== b)
					return dir < 0 ? b - a : a - b;
				/* mt-group: Impacting Size, then Size, then the name. */
				if (col === 'impact' && x.size !== y.size)
					return dir < 0 ? y.size - x.size : x.size - y.size;
				return cmpStr(x.name, y.name);
			}
			return dir * cmpStr(x.name, y.name);
		});
		return kids;
	}

	var root = null;
	var expanded = new Set();	/* paths of open rows */
	var selectedPath = null;

	function buildRoot() {
		var all = new Array(E.n);
		for (var i = 0; i < E.n; i++)
			all[i] = i;
		root = { depth: -1, path: '', idx: all, kids: null, shown: state.top, open: true };
		root.kids = sortKids(childrenOf(root));
	}

	function isOpen(g) {
		if (expanded.has(g.path))
			return true;
		return !g.frame && g.depth < state.expand && g.depth < state.by.length - 1;
	}

	/* ---- The table's DOM ---- */

	function td(tr, cls, col) {
		var c = el('td', cls, null, tr);
		if (col)
			c.setAttribute('data-col', col);
		return c;
	}

	function numCell(tr, col, v, signed) {
		var c = td(tr, 'num', col);
		c.setAttribute('data-value', String(v));
		c.textContent = col === 'count' ? String(v) : human(v);
		if (signed && v)
			c.classList.add(v < 0 ? 'neg' : 'pos');
		if (col !== 'count')
			c.title = v + ' bytes';
		return c;
	}

	function shortStack(s) {
		if (s.length <= 60)
			return s;
		var parts = s.split(';');
		return parts.length > 3 ? '…;' + parts.slice(-3).join(';') : s;
	}

	function pathValues(g) {
		var vals = [];
		for (var n = g; n && n.depth >= 0; n = n.parent)
			if (!n.frame)
				vals[n.depth] = n.val;
		return vals;
	}

	function rowFor(g, nk) {
		var tr = el('tr'), depth = g.depth, vals = pathValues(g);
		tr.setAttribute('data-depth', String(depth));
		tr.setAttribute('data-key', g.frame ? g.name : STR[g.val]);
		tr.className = 'lvl' + Math.min(depth, 9) + (g.frame ? ' frame' : '') +
		    (g.expandable ? '' : ' leaf') + (g.path === selectedPath ? ' selected' : '');
		tr._node = g;
		for (var k = 0; k < nk; k++) {
			var c = td(tr, 'key' + (k === nk - 1 ? ' gold' : ''), state.by[k]);
			if (vals[k] !== undefined)
				c.setAttribute('data-key', STR[vals[k]]);
			var here = g.frame ? k === nk - 1 : k === depth;
			if (!here)
				continue;
			if (g.frame)
				c.style.paddingLeft = (8 + 14 * (depth - nk + 1)) + 'px';
			el('span', 'tog', g.expandable ? (isOpen(g) ? '▾' : '▸') : '', c);
			el('span', 'name', !g.frame && state.by[k] === 'stack' ? shortStack(g.name) : g.name, c);
			if (g.frame && g.val >= 0) {
				if (frameLine[g.val] !== DASH)
					el('span', 'fileline', STR[frameLine[g.val]], c);
				c.title = g.name + '\n' + STR[frameLine[g.val]] + '\n' + STR[frameMod[g.val]];
			} else {
				c.title = g.name;
			}
		}
		numCell(tr, 'count', g.count);
		numCell(tr, 'size', g.size);
		numCell(tr, 'impact', g.impact, true);
		numCell(tr, 'per-alloc', Math.floor(g.size / g.count));
		return tr;
	}

	function moreRow(frag, parent, rest, nk) {
		var tr = el('tr', 'more', null, frag), count = 0, size = 0, impact = 0;
		rest.forEach(function (g) {
			count += g.count;
			size += g.size;
			impact += g.impact;
		});
		tr._more = parent;
		var c = el('td', '', rest.length + ' more rows (show ' + Math.min(rest.length, state.top) +
		    ' more)', tr);
		c.colSpan = nk;
		c.style.paddingLeft = (8 + 14 * Math.max(0, parent.depth + 1)) + 'px';
		el('td', 'num', String(count), tr);
		el('td', 'num', human(size), tr);
		el('td', 'num', human(impact), tr);
		el('td', '', null, tr);
	}

	function emit(frag, node, nk) {
		if (!node.kids)
			node.kids = sortKids(childrenOf(node));
		var n = Math.min(node.kids.length, node.shown);
		for (var i = 0; i < n; i++) {
			var g = node.kids[i];
			frag.appendChild(rowFor(g, nk));
			rowsDrawn++;
			if (g.expandable && isOpen(g))
				emit(frag, g, nk);
		}
		if (node.kids.length > n)
			moreRow(frag, node, node.kids.slice(n), nk);
	}

	var rowsDrawn = 0;
	function drawHead() {
		var thead = $('groups').tHead, tr = el('tr');
		var cols = state.by.map(function (k, i) {
			return { col: k, head: k, key: true, last: i === state.by.length - 1 };
		}).concat(NUMCOLS);
		cols.forEach(function (c) {
			var th = el('th', (c.key ? 'key' : 'num') + (c.last ? ' gold' : ''),
			    c.key ? c.head.charAt(0).toUpperCase() + c.head.slice(1) : c.head, tr);
			th.setAttribute('data-col', c.col);
			if (state.sort.col === c.col)
				el('span', 'arrow', state.sort.dir < 0 ? ' ▼' : ' ▲', th);
			th.title = 'Sort by ' + c.head + (c.key ? '' : ' (again: the other way)');
			th.addEventListener('click', function () {
				if (state.sort.col === c.col)
					state.sort.dir = -state.sort.dir;
				else
					state.sort = { col: c.col, dir: c.key ? 1 : -1 };
				resort(root);
				drawTable();
				writeFragment();
			});
		});
		thead.textContent = '';
		thead.appendChild(tr);
	}

	function resort(node) {
		if (!node.kids)
			return;
		sortKids(node.kids);
		node.kids.forEach(resort);
	}

	function drawTable() {
		var t = performance.now(), nk = state.by.length, tbody = $('groups').tBodies[0];
		drawHead();
		rowsDrawn = 0;
		var frag = document.createDocumentFragment();
		if (!root.kids.length)
			el('td', '', 'No lifetime is active in this window.', el('tr', 'empty', null, frag))
			    .colSpan = nk + NUMCOLS.length;
		emit(frag, root, nk);
		tbody.textContent = '';
		tbody.appendChild(frag);
		return performance.now() - t;
	}

	$('groups').tBodies[0].addEventListener('click', function (ev) {
		var tr = ev.target.closest('tr');
		if (!tr)
			return;
		if (tr._more) {
			tr._more.shown += state.top;
			drawTable();
			return;
		}
		var g = tr._node;
		if (!g)
			return;
		if (ev.target.classList.contains('tog') && g.expandable) {
			toggle(g);
			return;
		}
		selectedPath = g.path;
		Array.prototype.forEach.call(this.querySelectorAll('tr.selected'), function (r) {
			r.classList.remove('selected');
		});
		tr.classList.add('selected');
		drawLifetimes(g);
	});
	$('groups').tBodies[0].addEventListener('dblclick', function (ev) {
		var tr = ev.target.closest('tr');
		if (tr && tr._node && tr._node.expandable)
			toggle(tr._node);
	});

	function toggle(g) {
		if (isOpen(g)) {
			expanded.delete(g.path);
			if (g.depth < state.expand)
				state.expand = g.depth;
		} else {
			expanded.add(g.path);
		}
		drawTable();
	}

	function findPath(node, path) {
		if (!node.kids)
			return null;
		for (var i = 0; i < node.kids.length; i++) {
			var g = node.kids[i];
			if (g.path === path)
				return g;
			if (path.lastIndexOf(g.path + '\u001f', 0) === 0)
				return findPath(g, path);
		}
		return null;
	}

	/* ---- The keys the user orders ---- */

	function drawKeys() {
		var bar = $('keys');
		bar.textContent = '';
		el('span', 'label', 'Group by:', bar);
		var order = el('span', 'order', null, bar);
		state.by.forEach(function (k, i) {
			if (i)
				el('span', 'sep', '›', order);
			var chip = el('span', 'chip', null, order);
			chip.setAttribute('data-key', k);
			el('span', '', k, chip);
			button('◂', 'Earlier', chip, function () { moveKey(i, -1); }).disabled = i === 0;
			button('▸', 'Later', chip, function () { moveKey(i, 1); }).disabled =
			    i === state.by.length - 1;
		});
		el('span', 'label', '  keys:', bar);
		KEYNAMES.forEach(function (k) {
			var at = state.by.indexOf(k);
			var b = button(k, at >= 0 ? 'Remove ' + k + ' from the keys' :
			    'Group by ' + k + ' after the others', bar, function () {
				var i = state.by.indexOf(k);
				if (i >= 0) {
					if (state.by.length === 1)
						return;
					state.by.splice(i, 1);
				} else {
					state.by.push(k);
				}
				keysChanged();
			});
			b.className = 'keybtn' + (at >= 0 ? ' on' : '');
			b.setAttribute('data-key', k);
			if (at >= 0)
				el('sup', '', String(at + 1), b);
		});
	}

	function moveKey(i, d) {
		var j = i + d;
		if (j < 0 || j >= state.by.length)
			return;
		var t = state.by[i];
		state.by[i] = state.by[j];
		state.by[j] = t;
		keysChanged();
	}

	function keysChanged() {
		expanded.clear();
		selectedPath = null;
		if (KEYNAMES.indexOf(state.sort.col) >= 0 && state.by.indexOf(state.sort.col) < 0)
			state.sort = { col: 'impact', dir: -1 };
		drawKeys();
		refreshTable();
		drawLifetimes(null);
		writeFragment();
	}

	/* ---- The window changed: the table, the lifetimes, the flame ---- */

	function refreshTable() {
		var w = windowNow(), t = performance.now();
		computeWindow(w[0], w[1]);
		buildRoot();
		var tc = performance.now() - t;
		var td_ = drawTable();
		var total = performance.now() - t;
		$('computed').textContent = 'Computed in ' + total.toFixed(1) + ' ms (' +
		    tc.toFixed(1) + ' ms the sums of ' + NC + ' cells, ' + td_.toFixed(1) +
		    ' ms the ' + rowsDrawn + ' rows drawn); ' + root.kids.length + ' groups at the first level, ' +
		    K + ' keys.';
		body.setAttribute('data-compute-ms', total.toFixed(1));
		if (selectedPath) {
			var g = findPath(root, selectedPath);
			drawLifetimes(g);
		}
	}

	function windowChanged() {
		drawRange(state.sel);
		refreshTable();
		drawFlame();
		drawBrush();
		writeFragment();
	}

	/* ---- A row's biggest lifetimes ---- */

	var keyMark = new Uint8Array(K);
	function drawLifetimes(g) {
		var table = $('lifetimes'), note = $('lifetimes-note');
		table.tHead.textContent = '';
		table.tBodies[0].textContent = '';
		if (!g) {
			note.textContent = 'Click a row of the table.';
			return;
		}
		var w = windowNow(), A = w[0], B = w[1], marked = [], i;
		for (i = 0; i < g.idx.length; i++) {
			var j = E.j[g.idx[i]], k = j >> 2;
			if (!keyMark[k])
				marked.push(k);
			keyMark[k] |= 1 << (j & 3);
		}
		var rows = [], n = LT.k.length;
		for (i = 0; i < n; i++) {
			var m = keyMark[LT.k[i]];
			if (!m)
				continue;
			var ta = LT.ta[i], tf = LT.tf[i], never = tf === -1 || LT.fate[i] === 2;
			if (!(ta === -1 || ta < B) || !(never || tf > A))
				continue;
			var ai = ta !== -1 && ta >= A, fi = !never && tf < B;
			var t = ai && fi ? 0 : LT.fate[i] === 2 ? 3 : !ai && !fi ? 2 : 1;
			if (m & (1 << t))
				rows.push({ i: i, t: t });
		}
		marked.forEach(function (k) { keyMark[k] = 0; });
		rows.sort(function (x, y) {
			return LT.size[y.i] - LT.size[x.i] || LT.ta[x.i] - LT.ta[y.i];
		});
		var shown = rows.slice(0, 100);
		var heads = [['Commit Time', 'num'], ['Decommit Time', 'num'], ['Duration', 'num'],
			['Size', 'num'], ['Type', ''], ['Process', ''], ['Function', '']];
		var htr = el('tr', '', null, table.tHead);
		heads.forEach(function (h) { el('th', h[1], h[0], htr); });
		var frag = document.createDocumentFragment();
		shown.forEach(function (r) {
			var i = r.i, tr = el('tr', '', null, frag), ta = LT.ta[i], tf = LT.tf[i];
			var fate = LT.fate[i], k = LT.k[i];
			var cells = [
				ta === -1 ? 'before recording' : secsUnit(ta),
				fate === 2 ? 'never (leaked at exit)' : tf === -1 ? 'never (live at the end)' :
				    secsUnit(tf),
				ta !== -1 && tf !== -1 && fate !== 2 ? dur(tf - ta) : '-',
				human(LT.size[i]),
				TYPE_NAMES[r.t],
				STR[keyCol.process[k]] + ' ' + STR[keyCol.pid[k]],
				STR[keyCol['function'][k]]
			];
			cells.forEach(function (v, x) {
				var c = el('td', heads[x][1], v, tr);
				if (x === 0 && ta !== -1)
					c.setAttribute('data-value', String(ta));
				if (x === 1 && tf !== -1)
					c.setAttribute('data-value', String(tf));
				if (x === 3) {
					c.setAttribute('data-value', String(LT.size[i]));
					c.title = LT.size[i] + ' bytes';
				}
			});
		});
		table.tBodies[0].appendChild(frag);
		var what = pathValues(g).map(function (v) { return STR[v]; }).join(' › ') +
		    (g.frame ? ' › ' + g.name : '');
		note.textContent = rows.length ?
		    what + ': ' + (rows.length > shown.length ? 'the ' + shown.length + ' biggest of ' : '') +
		    rows.length + ' lifetime' + (rows.length === 1 ? '' : 's') + ' in the window' +
		    (rows.length < g.count ? ', of ' + g.count + ' in the row' : '') +
		    (LT.cut ? ' (the report keeps only the trace\'s biggest lifetimes).' : '.') :
		    what + ': none of its lifetimes is among the ' + n + ' biggest the report keeps.';
	}

	/* ---- The graph ---- */

	var G = { margin: { l: 64, r: 16, t: 8, b: 24 }, height: 260 };
	var series = data.series, SW = series.w, SN = series.n;
	var lines = series.lines.map(function (l, i) {
		var peak = 0;
		for (var b = 0; b < l.max.length; b++)
			if (l.max[b] > peak)
				peak = l.max[b];
		return {
			i: i, max: l.max, min: l.min, peak: peak, on: true,
			label: STR[canonOf[l.process]] + ' ' + l.pid + ' ' + STR[canonOf[l.heap]]
		};
	});
	lines.sort(function (a, b) { return b.peak - a.peak || cmpStr(a.label, b.label); });
	var palette = d3.schemeTableau10;
	lines.forEach(function (l, i) {
		l.color = i < palette.length ? palette[i] : d3.interpolateRainbow((i * 0.618) % 1);
	});

	var gx, gy, gsvg, gplot, gcanvas, gaxisX, gaxisY, gbrushG, gbrush, gwidth, gheight;

	/* The time axis in the unit its span suits: "2.5 s", "628.4 ms", "350 ns". */
	function timeTick(span) {
		var unit = span >= 2e9 ? [1e9, ' s'] : span >= 2e6 ? [1e6, ' ms'] :
		    span >= 2e3 ? [1e3, ' µs'] : [1, ' ns'];
		return function (t) { return +(t / unit[0]).toPrecision(12) + unit[1]; };
	}

	/* Ticks at round numbers of the unit the top is in (KiB, MiB...), and the top. */
	function bytesTicks(max) {
		var u = 0, unit = 1;
		while (max / unit >= 1024 && u < 6) {
			unit *= 1024;
			u++;
		}
		var sc = d3.scaleLinear().domain([0, max / unit]).nice(5), top = sc.domain()[1] * unit;
		var values = sc.ticks(5).map(function (v) { return v * unit; }).filter(Number.isInteger);
		return { top: top, values: values, fmt: function (v) {
			return u ? +(v / unit).toFixed(2) + ' ' + HUNITS[u] : v + ' B';
		} };
	}

	/*
	 * The bands are pixels of a canvas under the SVG of the axes and the
	 * brush, set by the script: a hundred processes' lines of a thousand
	 * buckets made SVG paths of megabytes, and canvas paths took as long
	 * to fill without a GPU (0.4 s to 1 s).
	 */
	function drawGraphFrame() {
		var host = $('graph'), W = Math.max(480, host.clientWidth || 1200);
		var ratio = window.devicePixelRatio || 1;
		gwidth = W - G.margin.l - G.margin.r;
		gheight = G.height - G.margin.t - G.margin.b;
		gcanvas = d3.select(host).append('canvas')
		    .attr('width', Math.round(gwidth * ratio)).attr('height', Math.round(gheight * ratio))
		    .style('position', 'absolute').style('left', G.margin.l + 'px').style('top', G.margin.t + 'px')
		    .style('width', gwidth + 'px').style('height', gheight + 'px').node();
		gsvg = d3.select(host).append('svg').attr('width', W).attr('height', G.height)
		    .style('position', 'relative');
		gplot = gsvg.append('g').attr('transform', 'translate(' + G.margin.l + ',' + G.margin.t + ')');
		gaxisX = gplot.append('g').attr('class', 'axis').attr('transform', 'translate(0,' + gheight + ')');
		gaxisY = gplot.append('g').attr('class', 'axis');
		gx = d3.scaleLinear().range([0, gwidth]);
		gy = d3.scaleLinear().range([gheight, 0]);
		gbrush = d3.brushX().extent([[0, 0], [gwidth, gheight]])
		    .on('brush', brushing).on('end', brushed);
		gbrushG = gplot.append('g').attr('class', 'brush').call(gbrush);
		gsvg.on('wheel', wheel);
		gbrushG.on('mousemove.cursor', function () {
			var t = gx.invert(d3.mouse(this)[0]);
			$('cursor').textContent = secsUnit(Math.max(0, Math.round(t)));
		});
		drawLegend();
	}

	function drawLegend() {
		var lg = d3.select('#legend');
		var items = lg.selectAll('.item').data(lines).enter().append('span')
		    .attr('class', 'item').attr('title', function (l) {
			return l.label + ': peak ' + human(l.peak) + ' (click: hide or show)';
		}).on('click', function (l) {
			l.on = !l.on;
			d3.select(this).classed('off', !l.on);
			drawGraph();
		});
		items.append('span').attr('class', 'swatch').style('background', function (l) { return l.color; });
		items.append('span').text(function (l) { return l.label + ' (' + human(l.peak) + ')'; });
	}

	/*
	 * Bucket b holds from b*w to (b+1)*w, its band from its least to its
	 * most, so that a spike shorter than a bucket shows.  A column of
	 * pixels shows the extremes of the buckets it covers: its span, faint
	 * inside, its ends strong, so that a flat stretch is a line.
	 */
	function drawBands(b0, b1, grid) {
		var ctx = gcanvas.getContext('2d'), W = gcanvas.width, H = gcanvas.height;
		var ratio = W / gwidth, img = ctx.createImageData(W, H), px = img.data;
		var cb0 = new Int32Array(W), cb1 = new Int32Array(W), c, y;
		/* The grid first, under the bands: a steady level often sits on a tick. */
		grid.forEach(function (v) {
			var row = Math.min(H - 1, Math.floor(H - v * H / (gy.domain()[1] || 1)));
			for (var x = 0, o = row * W * 4; x < W; x++, o += 4) {
				px[o] = px[o + 1] = px[o + 2] = 0xe8;
				px[o + 3] = 255;
			}
		});
		for (c = 0; c < W; c++) {
			var t0 = gx.invert(c / ratio), t1 = gx.invert((c + 1) / ratio);
			cb0[c] = Math.max(b0, Math.floor(t0 / SW));
			cb1[c] = Math.min(b1, Math.max(cb0[c] + 1, Math.ceil(t1 / SW)));
		}
		var ys = H / (gy.domain()[1] || 1), thick = Math.max(2, Math.round(1.5 * ratio));
		for (var li = 0; li < lines.length; li++) {
			var l = lines[li];
			if (!l.on)
				continue;
			var rgb = d3.rgb(l.color), r = rgb.r, g = rgb.g, bl = rgb.b, mn = l.min, mx = l.max;
			for (c = 0; c < W; c++) {
				var a = Infinity, z = -Infinity;
				for (var b = cb0[c]; b < cb1[c]; b++) {
					if (mn[b] < a)
						a = mn[b];
					if (mx[b] > z)
						z = mx[b];
				}
				if (a === Infinity)
					continue;
				var ytop = Math.max(0, Math.min(H - 1, Math.floor(H - z * ys)));
				var ybot = Math.max(0, Math.min(H - 1, Math.floor(H - a * ys)));
				if (ybot - ytop < thick)
					ytop = Math.max(0, ybot - thick + 1);
				for (y = ytop; y <= ybot; y++) {
					var edge = y - ytop < thick || ybot - y < thick, al = edge ? 0.9 : 0.25;
					/* Source over, not premultiplied. */
					var o = (y * W + c) * 4, under = px[o + 3] / 255 * (1 - al), out = al + under;
					px[o] = (r * al + px[o] * under) / out;
					px[o + 1] = (g * al + px[o + 1] * under) / out;
					px[o + 2] = (bl * al + px[o + 2] * under) / out;
					px[o + 3] = 255 * out;
				}
			}
		}
		ctx.putImageData(img, 0, 0);
	}

	function drawGraph() {
		var v0 = state.view[0], v1 = state.view[1];
		gx.domain([v0, v1]);
		var b0 = Math.max(0, Math.floor(v0 / SW)), b1 = Math.min(SN, Math.ceil(v1 / SW));
		var ymax = 0;
		lines.forEach(function (l) {
			if (!l.on)
				return;
			for (var b = b0; b < b1; b++)
				if (l.max[b] > ymax)
					ymax = l.max[b];
		});
		var ticks = bytesTicks(ymax * 1.05 || 1);
		gy.domain([0, ticks.top || 1]);
		drawBands(b0, b1, ticks.values);
		gaxisX.call(d3.axisBottom(gx).ticks(Math.max(2, Math.floor(gwidth / 110)))
		    .tickFormat(timeTick(v1 - v0)));
		gaxisY.call(d3.axisLeft(gy).tickValues(ticks.values).tickFormat(ticks.fmt));
		drawBrush();
		$('zoom-sel').disabled = !state.sel;
		$('zoom-reset').disabled = v0 === 0 && v1 === TEND;
		$('sel-clear').disabled = !state.sel;
	}

	/*
	 * The brush drawn where the selection is.  Its events then carry the
	 * event that caused them as their sourceEvent (d3 v5), so a flag, not
	 * the sourceEvent, tells the handlers that this move is ours.
	 */
	var brushMoving = false;
	function drawBrush() {
		if (!gbrushG)
			return;
		var s = state.sel, x0, x1;
		if (s) {
			x0 = Math.max(0, gx(s[0]));
			x1 = Math.min(gwidth, gx(s[1]));
		}
		brushMoving = true;
		try {
			gbrushG.call(gbrush.move, s && x1 > x0 ? [x0, x1] : null);
		} finally {
			brushMoving = false;
		}
	}

	/*
	 * A dragged range snaps to a round step (1, 2 or 5 times a power of
	 * ten nanoseconds) of about three pixels, made a multiple of u.
	 */
	function snapStep() {
		var span = 3 * (state.view[1] - state.view[0]) / gwidth, nice = 1;
		while (nice * 10 <= span)
			nice *= 10;
		if (nice * 5 <= span)
			nice *= 5;
		else if (nice * 2 <= span)
			nice *= 2;
		return Math.max(U, Math.ceil(nice / U) * U);
	}

	function brushRange(px) {
		var step = snapStep();
		var A = Math.round(gx.invert(px[0]) / step) * step, B = Math.round(gx.invert(px[1]) / step) * step;
		A = Math.max(0, Math.min(A, TEND));
		B = Math.max(0, Math.min(B, TEND));
		if (B <= A)
			B = Math.min(TEND, A + step);
		if (B <= A)
			A = B - step;
		return [A, B];
	}

	function brushing() {
		if (brushMoving || !d3.event.selection)
			return;
		drawRange(brushRange(d3.event.selection), true);
	}

	function brushed() {
		if (brushMoving)
			return;
		var s = d3.event.selection;
		state.sel = s ? brushRange(s) : null;
		if (state.sel && state.sel[0] === 0 && state.sel[1] === TEND)
			state.sel = null;
		windowChanged();
		drawGraph();
	}

	function wheel() {
		var ev = d3.event;
		ev.preventDefault();
		var m = d3.mouse(gplot.node())[0], v0 = state.view[0], v1 = state.view[1];
		var tc = gx.invert(Math.max(0, Math.min(gwidth, m)));
		var k = Math.exp((ev.deltaY || 0) * (ev.deltaMode ? 0.05 : 0.002));
		var n0 = tc - (tc - v0) * k, n1 = tc + (v1 - tc) * k;
		var minw = Math.max(10 * U, 1000, 4 * SW / 100);
		if (n1 - n0 < minw) {
			n0 = tc - minw / 2;
			n1 = tc + minw / 2;
		}
		setView(n0, n1);
	}

	function setView(n0, n1) {
		var w = n1 - n0;
		if (w >= TEND) {
			n0 = 0;
			n1 = TEND;
		} else if (n0 < 0) {
			n0 = 0;
			n1 = w;
		} else if (n1 > TEND) {
			n1 = TEND;
			n0 = TEND - w;
		}
		state.view = [n0, n1];
		drawGraph();
	}

	$('zoom-sel').addEventListener('click', function () {
		if (state.sel) {
			var pad = (state.sel[1] - state.sel[0]) * 0.05;
			setView(state.sel[0] - pad, state.sel[1] + pad);
		}
	});
	$('zoom-reset').addEventListener('click', function () { setView(0, TEND); });
	$('sel-clear').addEventListener('click', function () {
		state.sel = null;
		windowChanged();
		drawGraph();
	});

	/* ---- The flame graph (an icicle: callers on top) ---- */

	/*
	 * The selection's stacks under their processes, frames merged by
	 * function name as flame graphs do.  A node keeps the keys under it
	 * and is split into its children only when drawn a pixel or wider
	 * (d3.partition lays out those alone): a trace's 100,000 stacks make
	 * far more nodes than a page can draw, most of them too thin to see.
	 * Memory a window freed (a negative Impacting Size) has a tower of its
	 * own, [freed], as in mt-group's folded stacks.
	 */
	var FL = { row: 18, focus: null, trie: null, weight: null };
	var FREED = -1;

	function flameNode(parent, name, frame, level) {
		return { name: name, frame: frame, value: 0, keys: [], parent: parent,
			depth: parent ? parent.depth + 1 : 0, level: level, lines: 1, kids: null };
	}

	function buildTrie() {
		var weight = new Float64Array(K), i, byImpact = state.flame === 'impact';
		for (i = 0; i < E.n; i++)
			weight[E.j[i] >> 2] += byImpact ? E.impact[i] : E.size[i];
		FL.weight = weight;
		var top = flameNode(null, 'all', -1, 'root');
		for (var k = 0; k < K; k++) {
			if (weight[k]) {
				top.keys.push(k);
				top.value += Math.abs(weight[k]);
			}
		}
		return top;
	}

	/*
	 * The children of node, with value at least minv: the next level's
	 * groups of its keys.  Levels: root, [freed], process, then frame fd
	 * (0 the outermost) of each key's stack.
	 */
	function flameKids(node, minv) {
		if (node.kids)
			return node.kids.filter(function (g) { return g.value >= minv; });
		if (node.level === 'nostack')
			return (node.kids = []);
		var m = new Map(), keys = node.keys, w = FL.weight;
		for (var i = 0; i < keys.length; i++) {
			var k = keys[i], v = Math.abs(w[k]), g, key, fr = -1, name, level;
			if (node.level === 'root' && w[k] < 0) {
				key = FREED;
				name = '[freed]';
				level = 'freed';
			} else if (node.level === 'root' || node.level === 'freed') {
				key = keyCol.process[k];
				name = STR[key];
				level = 'process';
			} else {
				var fd = node.level === 'process' ? 0 : node.level + 1, st = keyFrames[k];
				if (st < 0 || st >= STACKS.length) {
					if (fd)
						continue;
					key = -2;
					name = '[no stack]';
					level = 'nostack';
				} else {
					if (fd >= STACKS[st].length)
						continue;
					fr = STACKS[st][fd];
					key = frameFn[fr];
					name = STR[key];
					level = fd;
				}
			}
			g = m.get(key);
			if (!g) {
				g = flameNode(node, name, fr, level);
				m.set(key, g);
			} else if (fr >= 0 && frameLine[g.frame] !== frameLine[fr] && g.lines === 1) {
				g.lines = 2;
			}
			g.keys.push(k);
			g.value += v;
		}
		node.kids = Array.from(m.values());
		return node.kids.filter(function (g) { return g.value >= minv; });
	}

	function drawFlame() {
		var t = performance.now();
		FL.trie = buildTrie();
		FL.focus = FL.trie;
		renderFlame();
		var ms = performance.now() - t;
		$('flame-note').textContent = (state.flame === 'impact' ? 'Impacting Size' : 'Size') +
		    ' of the selection: ' + human(FL.trie.value) + ', drawn in ' + ms.toFixed(1) + ' ms' +
		    (state.flame === 'impact' ? '; memory the window freed stands under [freed].' : '.');
		d3.select('#flame-size').classed('on', state.flame === 'size');
		d3.select('#flame-impact').classed('on', state.flame === 'impact');
		body.setAttribute('data-flame-ms', ms.toFixed(1));
	}

	function hashHue(s) {
		var h = 0;
		for (var i = 0; i < s.length; i++)
			h = (h * 31 + s.charCodeAt(i)) | 0;
		return Math.abs(h);
	}

	function flameColor(n) {
		if (n.depth === 0)
			return '#d1d5db';
		if (n.name === '[freed]')
			return '#93c5fd';
		if (n.frame < 0)
			return '#e5e7eb';
		var hv = hashHue(n.name);
		return d3.hsl(10 + hv % 45, 0.75, 0.55 + (hv >> 8) % 20 / 100) + '';
	}

	function renderFlame() {
		var host = $('flame'), W = Math.max(480, host.clientWidth || 1200);
		var focus = FL.focus, total = FL.trie.value;
		host.textContent = '';
		if (!total) {
			host.textContent = 'Nothing to draw: the selection\'s ' +
			    (state.flame === 'impact' ? 'Impacting Size' : 'Size') + ' is 0.';
			return;
		}
		var minv = focus.value / W;
		var h = d3.hierarchy(focus, function (d) {
			var kids = flameKids(d, minv);
			return kids.length ? kids : null;
		});
		h.each(function (d) { d.value = d.data.value; });
		h.sort(function (a, b) { return b.value - a.value || cmpStr(a.data.name, b.data.name); });
		d3.partition()(h);
		/* The focus's callers above it, full width: click one to zoom out. */
		var above = [];
		for (var p = focus.parent; p; p = p.parent)
			above.unshift(p);
		var nodes = above.map(function (n) {
			return { data: n, x0: 0, x1: 1, value: n.value, row: n.depth };
		});
		var x = d3.scaleLinear().domain([0, 1]).range([0, W]), maxRow = 0;
		h.each(function (d) {
			nodes.push({ data: d.data, x0: d.x0, x1: d.x1, value: d.value, row: focus.depth + d.depth });
		});
		nodes.forEach(function (d) {
			if (d.row > maxRow)
				maxRow = d.row;
		});
		var svg = d3.select(host).append('svg').attr('width', W).attr('height', (maxRow + 1) * FL.row);
		var g = svg.selectAll('g').data(nodes).enter().append('g')
		    .attr('transform', function (d) { return 'translate(' + x(d.x0) + ',' + d.row * FL.row + ')'; });
		g.append('rect')
		    .attr('width', function (d) { return Math.max(0.5, x(d.x1) - x(d.x0)); })
		    .attr('height', FL.row - 1)
		    .attr('fill', function (d) { return flameColor(d.data); })
		    .attr('fill-opacity', function (d) { return d.row < focus.depth ? 0.6 : 1; })
		    .on('click', function (d) {
			FL.focus = d.data === focus && focus.parent ? focus.parent : d.data;
			renderFlame();
		})
		    .on('mousemove', function (d) {
			var tip = $('tip'), n = d.data, fr = n.frame;
			tip.hidden = false;
			tip.textContent = n.name + (fr >= 0 ? '\n' + (n.lines > 1 ? 'several lines, as ' : '') +
			    STR[frameLine[fr]] + '  ' + STR[frameMod[fr]] : '') + '\n' + human(n.value) + ' (' +
			    n.value + ' B), ' + (100 * n.value / total).toFixed(1) + '% of the selection';
			tip.style.left = Math.max(0, Math.min(d3.event.clientX + 12,
			    window.innerWidth - tip.offsetWidth - 8)) + 'px';
			tip.style.top = (d3.event.clientY + 14) + 'px';
		})
		    .on('mouseleave', function () { $('tip').hidden = true; });
		g.filter(function (d) { return x(d.x1) - x(d.x0) > 24; })
		    .append('text').attr('x', 3).attr('y', FL.row - 6)
		    .text(function (d) {
			var chars = Math.floor((x(d.x1) - x(d.x0) - 6) / 6.2);
			var name = d.row === 0 ? 'all: ' + human(d.value) : d.data.name;
			return name.length > chars ? name.slice(0, Math.max(1, chars - 1)) + '…' : name;
		});
	}

	$('flame-size').addEventListener('click', function () {
		state.flame = 'size';
		drawFlame();
		writeFragment();
	});
	$('flame-impact').addEventListener('click', function () {
		state.flame = 'impact';
		drawFlame();
		writeFragment();
	});

	/* ---- Start ---- */

	function applyFragment() {
		readFragment();
		expanded.clear();
		selectedPath = null;
		drawKeys();
		drawRange(state.sel);
		refreshTable();
		drawLifetimes(null);
		drawFlame();
		drawGraph();
	}

	window.addEventListener('hashchange', function () {
		if (!writingFragment)
			applyFragment();
	});

	var setupMs = performance.now() - started;
	drawHeader();
	readFragment();
	drawRange(state.sel);
	var tg = performance.now();
	drawGraphFrame();
	drawGraph();
	body.setAttribute('data-graph-ms', (performance.now() - tg).toFixed(1));
	body.setAttribute('data-setup-ms', setupMs.toFixed(1));
	/*
	 * Marks for tests, in ms since the navigation began (performance's
	 * time origin): the page's header and graph drawn, the table ready,
	 * everything drawn; and the script's own share.
	 */
	body.setAttribute('data-parse-ms', parsedMs.toFixed(1));
	body.setAttribute('data-paint-ms', performance.now().toFixed(1));
	drawKeys();
	refreshTable();
	body.setAttribute('data-ready-ms', performance.now().toFixed(1));
	body.setAttribute('data-rows', String($('groups').tBodies[0].rows.length));
	drawFlame();
	writeFragment();
	body.setAttribute('data-done-ms', performance.now().toFixed(1));
	body.setAttribute('data-script-ms', (performance.now() - started).toFixed(1));
	/* The browser's own first contentful paint, where it tells it. */
	if (window.PerformanceObserver) {
		try {
			new PerformanceObserver(function (list) {
				list.getEntries().forEach(function (e) {
					if (e.name === 'first-contentful-paint')
						body.setAttribute('data-fcp-ms', e.startTime.toFixed(1));
				});
			}).observe({ type: 'paint', buffered: true });
		} catch (e) {
			/* no paint timing here */
		}
	}
	window.addEventListener('resize', function () {
		clearTimeout(FL.resize);
		FL.resize = setTimeout(function () {
			if (!FL.trie)
				return;
			$('graph').textContent = '';
			d3.select('#legend').selectAll('*').remove();
			drawGraphFrame();
			drawGraph();
			renderFlame();
		}, 200);
	});
})();
