/*
 * mt-report's page: WPA's view of one trace, from the data mt-report
 * embedded in the page (report-schema.md, schema 1).  The graph of
 * outstanding memory with a time selection, the table of that window
 * grouped by keys the user orders (mt-window | mt-group, computed here
 * from the cells), the row's biggest lifetimes and a flame graph.
 * Hand-written on d3 v5 (scales, axes, brush, partition); no network.
 *
 * Each of its scripts but this one is a module: one const, a function
 * of the modules it uses that returns what it gives.  This one, the
 * last, calls them, each after those it uses, once the data is read: a
 * page whose data cannot be read says so and does nothing more.
 */
(function () {
	'use strict';
	var started = performance.now();
	var body = document.body;
	const dom = mtDom();
	const units = mtUnits();
	const data = mtData(dom);
	if (!data)
		return;
	const pageState = mtState(dom, units, data);
	/* A page of two runs holds the earlier one's data too. */
	const oldData = document.getElementById('mt-data-old') ? mtData(dom, 'mt-data-old') : null;
	const diff = oldData ? mtDiff(dom, units, data, oldData, pageState) : null;
	function drawDiff() {
		if (diff)
			diff.draw();
	}
	/*
	 * The table and the lifetimes need each other: the lifetimes show
	 * the row the user selects, named by the table's path.
	 */
	const table = mtTable(dom, units, data, pageState, function (row) {
		lifetimes.drawLifetimes(row);
		/* The graph's series of the row's first key, drawn over the others. */
		var top = row;
		while (top && top.depth > 0)
			top = top.parent;
		graph.setHighlight(top && !top.frame ? top.val : null);
	}, drawDiff);
	const lifetimes = mtLifetimes(dom, units, data, pageState, table);
	const seriesOf = mtSeries(data);
	const graph = mtGraph(dom, units, data, pageState, seriesOf,
	    { drawRange, windowChanged, graphChanged: function () { pageState.writeFragment(); } },
	    oldData ? { data: oldData, seriesOf: mtSeries(oldData) } : null);
	const flame = mtFlame(dom, units, data, pageState, seriesOf);
	const calls = mtCalls(dom, units, data, pageState, flame);
	flame.onDrawn(calls.drawCalls);
	const sizes = mtSizes(dom, units, data);
	const { byId, el } = dom;
	const { secsUnit, dur, human } = units;
	const { info, series, parsedMs, keyCol, cellUnit, exact, traceEnd, wholeEnd } = data;
	const { state, readFragment, writeFragment, onFragmentChange } = pageState;

	/* ---- The header ---- */

	function fact(dl, name, value, title) {
		var div = el('div', '', null, dl);
		el('dt', '', name, div);
		var dd = el('dd', '', value, div);
		if (title)
			dd.title = title;
	}

	function drawHeader() {
		var dl = byId('facts');
		byId('title').textContent = info.trace || 'trace';
		document.title = (info.trace || 'trace') + ' — mt-report';
		byId('subtitle').textContent = 'memory allocations as WPA shows them';
		fact(dl, 'Duration', secsUnit(traceEnd), traceEnd + ' ns');
		fact(dl, 'Host', info.host == null ? '-' : info.host);
		if (info.start_unix_ns != null) {
			var d = new Date(info.start_unix_ns / 1e6);
			fact(dl, 'Started', d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
		}
		fact(dl, 'Lifetimes', String(info.lifetimes));
		if (info.events)
			fact(dl, 'Events', String(info.events));
		fact(dl, 'Processes', String(new Set(Array.from(keyCol.pid)).size));
		fact(dl, 'Graph buckets', dur(series.w) + ' × ' + series.n,
		    'each point of the graph is the most and least outstanding in a bucket of this width');
		fact(dl, 'Table times', exact ? 'exact (to the ns)' :
		    'in cells of ' + dur(cellUnit) + ' (u = ' + cellUnit + ' ns): a selection snaps to them',
		    'cells.u = ' + cellUnit + ' ns');
		if (info.capped != null) {
			byId('capped').hidden = false;
			byId('capped').textContent = 'Capped: ' + info.capped;
		}
		/* What mt-report said about its input on standard error. */
		var said = info.warnings || [], more = info.warnings_more || 0;
		if (said.length) {
			var p = byId('input-problem');
			p.hidden = false;
			el('b', '', 'The input was not read cleanly', p);
			p.append(' (mt-report said so and exited 1; the figures are of what it read):');
			var ul = el('ul', '', null, p);
			said.forEach(function (w) { el('li', '', w, ul); });
			if (more)
				el('li', '', 'and ' + more + ' more', ul);
		}
	}

	/* Lifetimes a suppression rule leaves out: said, and shown on demand. */
	function drawSuppressed() {
		var sup = data.suppressed;
		data.showSuppressed(state.suppressed);
		if (oldData)
			oldData.showSuppressed(state.suppressed);
		if (!sup.n)
			return;
		byId('suppressed-note').hidden = false;
		byId('suppressed-text').textContent = (state.suppressed ? 'Counted: ' : 'Left out: ') +
		    sup.n + ' lifetime' + (sup.n === 1 ? '' : 's') + ' never freed, ' + human(sup.bytes) +
		    ', that suppression rules (mt-suppress) take for no leak of the program' +
		    (state.suppressed ? '.' : ', as mt-group leaves them out.');
		byId('suppressed-toggle').textContent = state.suppressed ? 'Leave them out' : 'Show them';
		byId('suppressed-note').setAttribute('data-shown', state.suppressed ? '1' : '0');
	}
	byId('suppressed-toggle').addEventListener('click', function () {
		state.suppressed = !state.suppressed;
		drawSuppressed();
		drawDiff();
		table.refreshTable();
		sizes.drawSizes();
		flame.drawFlame();
		graph.refresh();
		writeFragment();
	});

	function drawRange(sel, live) {
		var w = sel || [0, wholeEnd];
		byId('range-text').textContent = (sel ? '' : 'the whole trace, ') + secsUnit(w[0]) + ' – ' +
		    secsUnit(w[1]) + ' (' + dur(w[1] - w[0]) + ')' + (live ? ' …' : '');
	}

	/* ---- Start ---- */

	function windowChanged() {
		drawRange(state.sel);
		table.refreshTable();
		sizes.drawSizes();
		flame.drawFlame();
		graph.drawBrush();
		if (state.by[0] === 'type' || state.by[0] === 'class')
			graph.refresh();
		writeFragment();
	}

	function applyFragment() {
		readFragment();
		byId('filter').value = state.filter;
		byId('callers').classList.toggle('on', state.callers);
		drawSuppressed();
		drawDiff();
		table.reset();
		table.drawKeys();
		drawRange(state.sel);
		table.refreshTable();
		lifetimes.drawLifetimes(null);
		table.selectRow();
		sizes.drawSizes();
		flame.drawFlame();
		graph.drawGraph();
	}

	onFragmentChange(applyFragment);

	var setupMs = performance.now() - started;
	drawHeader();
	readFragment();
	byId('filter').value = state.filter;
	byId('callers').classList.toggle('on', state.callers);
	drawSuppressed();
	drawRange(state.sel);
	var tg = performance.now();
	graph.drawGraphFrame();
	graph.drawGraph();
	body.setAttribute('data-graph-ms', (performance.now() - tg).toFixed(1));
	body.setAttribute('data-setup-ms', setupMs.toFixed(1));
	/*
	 * Marks for tests, in ms since the navigation began (performance's
	 * time origin): the page's header and graph drawn, the table ready,
	 * everything drawn; and the script's own share.
	 */
	body.setAttribute('data-parse-ms', parsedMs.toFixed(1));
	body.setAttribute('data-paint-ms', performance.now().toFixed(1));
	table.drawKeys();
	drawDiff();
	table.refreshTable();
	table.selectRow();
	body.setAttribute('data-ready-ms', performance.now().toFixed(1));
	body.setAttribute('data-rows', String(byId('groups').tBodies[0].rows.length));
	sizes.drawSizes();
	flame.drawFlame();
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
	var resizing;
	window.addEventListener('resize', function () {
		clearTimeout(resizing);
		resizing = setTimeout(function () {
			if (!flame.drawn())
				return;
			graph.resize();
			flame.renderFlame();
		}, 200);
	});
})();
