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
