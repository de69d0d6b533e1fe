/*
 * The state is the address's fragment, read on load and on a change of
 * it, written when the user changes the view:
 *   from=T, to=T     the window [from, to): a time as mt-window's --from
 *                    takes it (2.5s, 250ms, 85060300ns, 0), snapped out
 *                    to the cells' unit u; none: the whole trace
 *   by=K1,K2,...     the keys, in their order (process, pid, heap, type, class,
 *                    function, line, file, module, stack, size-class, task)
 *   sort=COL[:asc|:desc]   count, size, impact, per-alloc or a key
 *   flame=size|impact|count|leaked|temporary|peak   the flame graph's weight
 *   inverted=1       the flame graph bottom-up: allocating frames on top
 *   find=TEXT        the flame graph's frames whose names hold TEXT, marked
 *   fn=NAME          the function whose callers and callees are shown
 *   graph=table|heap|allocs|temps the graph's series: a group of the first key
 *                    each (the default, as WPA's graph follows its table),
 *                    a process and heap each, or the allocations (temporary
 *                    ones) a bucket
 *   scale=log        the graph's y axis logarithmic (default linear)
 *   hide=L1,L2,...   series hidden, by their legend's labels
 *   suppressed=shown lifetimes never freed that a suppression rule takes
 *                    for no leak counted too (default: left out, said)
 *   open=P1;P2;...   rows opened by hand, each its keys' values V1,V2,...
 *                    (a comma or semicolon in one as %2C or %3B)
 *   zoom=T1,T2       the graph's time axis, when not the whole trace
 *   filter=TEXT      the table's rows whose names or stacks hold TEXT
 *   callers=1        a row's frames bottom-up: the allocating function's callers
 *   row=V1,V2,...    the row chosen: its keys' values, first key first
 *                    (a comma in one as %2C); its lifetimes are listed
 *   top=N            rows drawn a level before "N more rows" (200)
 *   expand=N|all     open the first N key levels (for tests: all)
 * Marks for tests on <body>, in ms since the navigation began:
 * data-paint-ms (header and graph drawn), data-ready-ms (the table),
 * data-done-ms (the flame graph too), data-fcp-ms (the browser's first
 * contentful paint, when it says it); data-compute-ms, the last table.
 */
/* exported mtState */
const mtState = function (dom, units, data) {
	'use strict';
	const { byId, problem } = dom;
	const { secsUnit, dur, fragTime, parseDuration } = units;
	const { KEYNAMES, DEFAULT_BY, NUMCOLS, ROWS_PER_LEVEL, cellUnit, wholeEnd } = data;

	/* ---- State, and the URL fragment that holds it ---- */

	var state = {
		sel: null,		/* [A, B) in ns, multiples of u, or null: the whole trace */
		view: [0, wholeEnd],	/* the graph's time axis */
		by: DEFAULT_BY.slice(),
		sort: { col: 'impact', dir: -1 },
		flame: 'size',
		inverted: false,
		find: '',
		fn: '',
		graph: 'table',
		scale: 'linear',
		hide: [],
		row: null,
		filter: '',
		callers: false,
		open: [],
		suppressed: false,
		top: ROWS_PER_LEVEL,
		expand: 0
	};

	function snapDown(ns) { return Math.floor(ns / cellUnit) * cellUnit; }
	function snapUp(ns) { return Math.ceil(ns / cellUnit) * cellUnit; }

	/* A time of the fragment: its nanoseconds, or null when absent or bad (said). */
	function fragmentTime(p, name) {
		if (p[name] === undefined)
			return null;
		var t = parseDuration(p[name]);
		if (t === null)
			problem(name + '=\'' + p[name] + '\' is not a time (as 2.5s, 250ms, 0).');
		return t;
	}

	/* A list of names in the fragment: commas between, a comma in one as %2C. */
	function splitList(v) {
		return v.split(',').map(function (x) { return x.replace(/%2C/gi, ','); });
	}
	function joinList(names) {
		return encodeURIComponent(names.map(function (x) { return x.replace(/,/g, '%2C'); })
		    .join(','));
	}

	function readFragment() {
		var h = location.hash.replace(/^#/, ''), p = {};
		byId('problem').hidden = true;
		byId('problem').textContent = '';
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
		/* A bad bound refuses the range: half of it is not what was asked. */
		var ranged = (from !== null || to !== null) &&
		    (from !== null || p.from === undefined) && (to !== null || p.to === undefined);
		if (!ranged && (p.from !== undefined || p.to !== undefined))
			problem('No range is taken: the whole trace is shown.');
		if (from === null)
			from = 0;
		if (to === null)
			to = wholeEnd;
		state.sel = null;
		if (ranged) {
			var A = Math.min(snapDown(from), wholeEnd), B = Math.min(snapUp(to), wholeEnd);
			if (A !== from || (B !== to && to <= wholeEnd))
				problem('The range is taken to the table\'s cells of ' + dur(cellUnit) + ': ' +
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
		state.flame = ['impact', 'count', 'leaked', 'temporary', 'peak'].indexOf(p.flame) >= 0 ? p.flame :
		    'size';
		state.inverted = p.inverted === '1';
		state.find = p.find || '';
		state.fn = p.fn || '';
		state.graph = ['heap', 'allocs', 'temps'].indexOf(p.graph) >= 0 ? p.graph : 'table';
		if (p.graph !== undefined && ['heap', 'table', 'allocs', 'temps'].indexOf(p.graph) < 0)
			problem('graph: \'' + p.graph + '\' is not table, heap, allocs or temps.');
		state.scale = p.scale === 'log' ? 'log' : 'linear';
		if (p.scale !== undefined && p.scale !== 'log' && p.scale !== 'linear')
			problem('scale: \'' + p.scale + '\' is not linear or log.');
		state.hide = p.hide ? splitList(p.hide) : [];
		state.row = p.row ? splitList(p.row) : null;
		state.filter = p.filter || '';
		state.callers = p.callers === '1';
		state.open = p.open ? p.open.split(';').map(function (x) {
			return splitList(x.replace(/%3B/gi, ';'));
		}) : [];
		state.view = [0, wholeEnd];
		if (p.zoom !== undefined) {
			var z = p.zoom.split(','), z0 = parseDuration(z[0] || ''), z1 = parseDuration(z[1] || '');
			if (z.length !== 2 || z0 === null || z1 === null || z1 <= z0)
				problem('zoom: \'' + p.zoom + '\' is not two times, the first before the second.');
			else
				state.view = [Math.max(0, z0), Math.min(wholeEnd, z1)];
		}
		state.suppressed = p.suppressed === 'shown';
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
		if (state.inverted)
			parts.push('inverted=1');
		if (state.find)
			parts.push('find=' + encodeURIComponent(state.find));
		if (state.fn)
			parts.push('fn=' + encodeURIComponent(state.fn));
		if (state.graph !== 'table')
			parts.push('graph=' + state.graph);
		if (state.scale !== 'linear')
			parts.push('scale=' + state.scale);
		if (state.hide.length)
			parts.push('hide=' + joinList(state.hide));
		if (state.suppressed)
			parts.push('suppressed=shown');
		if (state.filter)
			parts.push('filter=' + encodeURIComponent(state.filter));
		if (state.callers)
			parts.push('callers=1');
		if (state.open.length)
			parts.push('open=' + state.open.map(function (vals) {
				return joinList(vals.map(function (v) { return v.replace(/;/g, '%3B'); }));
			}).join(';'));
		if (state.view[0] !== 0 || state.view[1] !== wholeEnd)
			parts.push('zoom=' + fragTime(Math.round(state.view[0])) + ',' +
			    fragTime(Math.round(state.view[1])));
		if (state.row)
			parts.push('row=' + joinList(state.row));
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

	/* A change of the fragment by the user, not by writeFragment, calls changed. */
	function onFragmentChange(changed) {
		window.addEventListener('hashchange', function () {
			if (!writingFragment)
				changed();
		});
	}

	function windowNow() { return state.sel || [0, wholeEnd]; }

	return { state, readFragment, writeFragment, onFragmentChange, windowNow };
};
