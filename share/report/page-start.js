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

	/* ---- Start ---- */

	function windowChanged() {
		drawRange(state.sel);
		refreshTable();
		drawFlame();
		drawBrush();
		writeFragment();
	}

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
