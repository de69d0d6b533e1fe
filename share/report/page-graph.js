/*
 * The graph of outstanding memory: a band a group of the table's first
 * key, as WPA's graph follows its table (page-series.js), or a band a
 * process and heap; on a linear or a logarithmic scale; and the time
 * range the user drags on it.  hooks.drawRange(range, live) says a range
 * being dragged, hooks.windowChanged() the range chosen,
 * hooks.graphChanged() a choice of series or scale.
 */
/* exported mtGraph */
const mtGraph = function (dom, units, data, pageState, seriesOf, hooks, earlier) {
	'use strict';
	const { byId } = dom;
	const { BYTE_UNITS, human, secsUnit, dur, cmpStr } = units;
	const { series, cellUnit, wholeEnd } = data;
	const { state, windowNow } = pageState;
	const { drawRange, windowChanged, graphChanged } = hooks;

	/* ---- The graph ---- */

	var MARGIN = { l: 64, r: 16, t: 8, b: 24 }, HEIGHT = 260;
	var bucketWidth = series.w, bucketCount = series.n;
	function peakOf(max) {
		var peak = 0;
		for (var b = 0; b < max.length; b++)
			if (max[b] > peak)
				peak = max[b];
		return peak;
	}
	/* A run's bands a process and heap; a line keeps its series' bucket width. */
	function heapLinesOf(d) {
		var ls = d.series.lines.map(function (l, i) {
			return {
				i: i, max: l.max, min: l.min, peak: peakOf(l.max), on: true, val: null,
				w: d.series.w, n: d.series.n,
				label: d.strings[d.canonOf[l.process]] + ' ' + l.pid + ' ' +
				    d.strings[d.canonOf[l.heap]]
			};
		});
		ls.sort(function (a, b) { return b.peak - a.peak || cmpStr(a.label, b.label); });
		return ls;
	}
	var heapLines = heapLinesOf(data);
	var palette = d3.schemeTableau10;
	/* Colours by rank; the table's "other" grey. */
	function colour(ls, other) {
		ls.forEach(function (l, i) {
			l.color = other && l.val === null ? '#888' :
			    i < palette.length ? palette[i] : d3.interpolateRainbow((i * 0.618) % 1);
		});
		return ls;
	}
	colour(heapLines, false);
	var lines = heapLines, linesFor = null, highlight = null;

	/* The lines the state asks for: made again when its key or window changed. */
	function currentLines() {
		var key = state.by[0], win = windowNow();
		var sig = state.graph === 'heap' ? 'heap' : state.graph + ' ' +
		    key + (key === 'type' || key === 'class' ? ' ' + win : '') +
		    (state.suppressed ? ' +suppressed' : '');
		if (sig === linesFor)
			return false;
		var hidden = new Set(lines.filter(function (l) { return !l.on; })
		    .map(function (l) { return l.label; }));
		if (state.graph === 'heap') {
			lines = heapLines;
		} else if (state.graph === 'allocs' || state.graph === 'temps') {
			lines = colour(seriesOf.allocsByTable(key, win[0], win[1],
			    state.graph === 'temps').map(function (l, i) {
				l.i = i;
				l.w = bucketWidth;
				l.n = bucketCount;
				return l;
			}), true);
		} else {
			lines = colour(seriesOf.byTable(key, win[0], win[1]).map(function (l, i) {
				l.i = i;
				l.w = bucketWidth;
				l.n = bucketCount;
				return l;
			}), true);
		}
		/* The earlier run's, from its own start, faint, in the colour of the same group now. */
		if (earlier) {
			var colours = new Map(lines.map(function (l) { return [l.label, l.color]; }));
			var then = state.graph === 'heap' ? heapLinesOf(earlier.data) :
			    (state.graph === 'allocs' || state.graph === 'temps' ?
			    earlier.seriesOf.allocsByTable(key, win[0], win[1], state.graph === 'temps') :
			    earlier.seriesOf.byTable(key, win[0], win[1])).map(function (l) {
				l.w = earlier.data.series.w;
				l.n = earlier.data.series.n;
				return l;
			});
			lines = lines.concat(then.map(function (l, i) {
				l.earlier = true;
				l.color = colours.get(l.label) || d3.interpolateRainbow((i * 0.618 + 0.3) % 1);
				l.label = 'earlier: ' + l.label;
				return l;
			}));
		}
		lines.forEach(function (l) {
			l.on = !hidden.has(l.label) && state.hide.indexOf(l.label) < 0;
		});
		linesFor = sig;
		return true;
	}
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
			return u ? +(v / unit).toFixed(2) + ' ' + BYTE_UNITS[u] : v + ' B';
		} };
	}

	/*
	 * The bands are pixels of a canvas under the SVG of the axes and the
	 * brush, set by the script: a hundred processes' lines of a thousand
	 * buckets made SVG paths of megabytes, and canvas paths took as long
	 * to fill without a GPU (0.4 s to 1 s).
	 */
	function drawGraphFrame() {
		var host = byId('graph'), W = Math.max(480, host.clientWidth || 1200);
		var ratio = window.devicePixelRatio || 1;
		gwidth = W - MARGIN.l - MARGIN.r;
		gheight = HEIGHT - MARGIN.t - MARGIN.b;
		gcanvas = d3.select(host).append('canvas')
		    .attr('width', Math.round(gwidth * ratio)).attr('height', Math.round(gheight * ratio))
		    .style('position', 'absolute').style('left', MARGIN.l + 'px').style('top', MARGIN.t + 'px')
		    .style('width', gwidth + 'px').style('height', gheight + 'px').node();
		gsvg = d3.select(host).append('svg').attr('width', W).attr('height', HEIGHT)
		    .style('position', 'relative');
		gplot = gsvg.append('g').attr('transform', 'translate(' + MARGIN.l + ',' + MARGIN.t + ')');
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
			byId('cursor').textContent = secsUnit(Math.max(0, Math.round(t)));
		});
		currentLines();
		drawLegend();
	}

	function drawLegend() {
		var lg = d3.select('#legend');
		lg.selectAll('*').remove();
		var items = lg.selectAll('.item').data(lines).enter().append('span')
		    .attr('class', 'item').classed('off', function (l) { return !l.on; })
		    .attr('data-label', function (l) { return l.label; })
		    .attr('data-peak', function (l) { return String(l.peak); })
		    .attr('data-total', function (l) { return l.count ? String(l.total) : null; })
		    .attr('title', function (l) {
			return l.label + ': peak ' + human(l.peak) + ' (click: hide or show)';
		}).on('click', function (l) {
			l.on = !l.on;
			d3.select(this).classed('off', !l.on);
			state.hide = lines.filter(function (x) { return !x.on; })
			    .map(function (x) { return x.label; });
			drawGraph();
			graphChanged();
		});
		items.append('span').attr('class', 'swatch').style('background', function (l) { return l.color; });
		items.append('span').text(function (l) {
			return l.label + ' (' + (l.count ? l.peak + ' at most a bucket' : human(l.peak)) + ')';
		});
		byId('graph-title').textContent = state.graph === 'heap' ?
		    'Outstanding memory by process and heap' : state.graph === 'allocs' ?
		    'Allocations a bucket (' + dur(bucketWidth) + ') by ' + state.by[0] :
		    state.graph === 'temps' ? 'Temporary allocations (heaptrack\'s rule) a bucket (' +
		    dur(bucketWidth) + ') by ' + state.by[0] :
		    'Outstanding memory by ' + state.by[0] + ', as the table groups it';
		byId('graph-by-table').classList.toggle('on', state.graph === 'table');
		byId('graph-allocs').classList.toggle('on', state.graph === 'allocs');
		byId('graph-temps').classList.toggle('on', state.graph === 'temps');
		byId('graph-by-heap').classList.toggle('on', state.graph === 'heap');
		byId('graph-log').classList.toggle('on', state.scale === 'log');
	}

	/* The rows the user selected, by their first key's value: the others faint. */
	function setHighlight(val) {
		highlight = val;
		drawGraph();
	}

	/*
	 * Bucket b holds from b*w to (b+1)*w, its band from its least to its
	 * most, so that a spike shorter than a bucket shows.  A column of
	 * pixels shows the extremes of the buckets it covers: its span, faint
	 * inside, its ends strong, so that a flat stretch is a line.
	 */
	function drawBands(grid) {
		var ctx = gcanvas.getContext('2d'), W = gcanvas.width, H = gcanvas.height;
		var ratio = W / gwidth, img = ctx.createImageData(W, H), px = img.data;
		var cb0, cb1, c, y;
		/* The grid first, under the bands: a steady level often sits on a tick. */
		grid.forEach(function (v) {
			var row = Math.max(0, Math.min(H - 1, Math.floor(gy(v) * ratio)));
			for (var x = 0, o = row * W * 4; x < W; x++, o += 4) {
				px[o] = px[o + 1] = px[o + 2] = 0xe8;
				px[o + 3] = 255;
			}
		});
		/* The buckets each column covers, for each bucket width (two runs: two). */
		var spans = new Map();
		function spanOf(w, n) {
			var sp = spans.get(w);
			if (sp)
				return sp;
			var lo = new Int32Array(W), hi = new Int32Array(W);
			var bb0 = Math.max(0, Math.floor(state.view[0] / w));
			var bb1 = Math.min(n, Math.ceil(state.view[1] / w));
			for (var x = 0; x < W; x++) {
				var t0 = gx.invert(x / ratio), t1 = gx.invert((x + 1) / ratio);
				lo[x] = Math.max(bb0, Math.floor(t0 / w));
				hi[x] = Math.min(bb1, Math.max(lo[x] + 1, Math.ceil(t1 / w)));
			}
			spans.set(w, sp = [lo, hi]);
			return sp;
		}
		var thick = Math.max(2, Math.round(1.5 * ratio));
		function ypix(v) { return Math.floor(gy(v) * ratio); }
		for (var li = 0; li < lines.length; li++) {
			var l = lines[li];
			if (!l.on)
				continue;
			var faint = l.earlier ||
			    (highlight !== null && state.graph !== 'heap' && l.val !== highlight);
			var rgb = d3.rgb(l.color), r = rgb.r, g = rgb.g, bl = rgb.b, mn = l.min, mx = l.max;
			var peakY = H, sp = spanOf(l.w || bucketWidth, l.n || bucketCount);
			cb0 = sp[0];
			cb1 = sp[1];
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
				var ytop = Math.max(0, Math.min(H - 1, ypix(z)));
				var ybot = Math.max(0, Math.min(H - 1, ypix(a)));
				if (ybot - ytop < thick)
					ytop = Math.max(0, ybot - thick + 1);
				if (ytop < peakY)
					peakY = ytop;
				for (y = ytop; y <= ybot; y++) {
					var edge = y - ytop < thick || ybot - y < thick;
					var al = (edge ? 0.9 : 0.25) * (faint ? 0.25 : 1);
					/* Source over, not premultiplied. */
					var o = (y * W + c) * 4, under = px[o + 3] / 255 * (1 - al), out = al + under;
					px[o] = (r * al + px[o] * under) / out;
					px[o + 1] = (g * al + px[o + 1] * under) / out;
					px[o + 2] = (bl * al + px[o + 2] * under) / out;
					px[o + 3] = 255 * out;
				}
			}
			/* How high the band's top is drawn, in CSS pixels above the axis (tests read it). */
			l.height = peakY < H ? Math.round((H - peakY) / ratio) : 0;
		}
		ctx.putImageData(img, 0, 0);
		d3.select('#legend').selectAll('.item').attr('data-height', function (x) {
			return x.on ? String(x.height || 0) : '';
		});
	}

	/* Counts' ticks: round numbers. */
	function countTicks(max) {
		var sc = d3.scaleLinear().domain([0, max]).nice(5);
		return { top: sc.domain()[1], values: sc.ticks(5).filter(Number.isInteger),
			fmt: function (v) { return String(v); } };
	}

	/* A logarithmic scale's ticks: 1 B, 32 B, 1 KiB, 32 KiB, ... to the top. */
	function logTicks(max) {
		var values = [0], top = 1;
		for (var v = 1; v <= max * 32; v *= 32) {
			values.push(v);
			top = v;
		}
		values = values.filter(function (x) { return x <= top; });
		return { top: top, values: values, fmt: function (x) { return x ? human(x) : '0'; } };
	}

	function drawGraph() {
		var v0 = state.view[0], v1 = state.view[1];
		if (currentLines())
			drawLegend();
		gx.domain([v0, v1]);
		var ymax = 0;
		lines.forEach(function (l) {
			if (!l.on)
				return;
			var w = l.w || bucketWidth, n = l.n || bucketCount;
			var b1 = Math.min(n, Math.ceil(v1 / w));
			for (var b = Math.max(0, Math.floor(v0 / w)); b < b1; b++)
				if (l.max[b] > ymax)
					ymax = l.max[b];
		});
		var ticks = state.scale === 'log' ? logTicks(ymax || 1) :
		    state.graph === 'allocs' || state.graph === 'temps' ?
		    countTicks(ymax * 1.05 || 1) : bytesTicks(ymax * 1.05 || 1);
		gy = (state.scale === 'log' ? d3.scaleSymlog().constant(1) : d3.scaleLinear())
		    .range([gheight, 0]).domain([0, ticks.top || 1]);
		drawBands(ticks.values);
		gaxisX.call(d3.axisBottom(gx).ticks(Math.max(2, Math.floor(gwidth / 110)))
		    .tickFormat(timeTick(v1 - v0)));
		gaxisY.call(d3.axisLeft(gy).tickValues(ticks.values).tickFormat(ticks.fmt));
		drawBrush();
		byId('zoom-sel').disabled = !state.sel;
		byId('zoom-reset').disabled = v0 === 0 && v1 === wholeEnd;
		byId('sel-clear').disabled = !state.sel;
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
		return Math.max(cellUnit, Math.ceil(nice / cellUnit) * cellUnit);
	}

	function brushRange(px) {
		var step = snapStep();
		var A = Math.round(gx.invert(px[0]) / step) * step, B = Math.round(gx.invert(px[1]) / step) * step;
		A = Math.max(0, Math.min(A, wholeEnd));
		B = Math.max(0, Math.min(B, wholeEnd));
		if (B <= A)
			B = Math.min(wholeEnd, A + step);
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
		if (state.sel && state.sel[0] === 0 && state.sel[1] === wholeEnd)
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
		var minw = Math.max(10 * cellUnit, 1000, 4 * bucketWidth / 100);
		if (n1 - n0 < minw) {
			n0 = tc - minw / 2;
			n1 = tc + minw / 2;
		}
		setView(n0, n1);
	}

	function setView(n0, n1) {
		var w = n1 - n0;
		if (w >= wholeEnd) {
			n0 = 0;
			n1 = wholeEnd;
		} else if (n0 < 0) {
			n0 = 0;
			n1 = w;
		} else if (n1 > wholeEnd) {
			n1 = wholeEnd;
			n0 = wholeEnd - w;
		}
		state.view = [n0, n1];
		drawGraph();
		graphChanged();
	}

	byId('zoom-sel').addEventListener('click', function () {
		if (state.sel) {
			var pad = (state.sel[1] - state.sel[0]) * 0.05;
			setView(state.sel[0] - pad, state.sel[1] + pad);
		}
	});
	byId('zoom-reset').addEventListener('click', function () { setView(0, wholeEnd); });
	function choose(what, value) {
		state[what] = value;
		if (what === 'graph')
			state.hide = [];
		drawGraph();
		drawLegend();
		graphChanged();
	}
	byId('graph-by-table').addEventListener('click', function () { choose('graph', 'table'); });
	byId('graph-by-heap').addEventListener('click', function () { choose('graph', 'heap'); });
	byId('graph-allocs').addEventListener('click', function () { choose('graph', 'allocs'); });
	byId('graph-temps').addEventListener('click', function () { choose('graph', 'temps'); });
	byId('graph-log').addEventListener('click', function () {
		choose('scale', state.scale === 'log' ? 'linear' : 'log');
	});
	byId('sel-clear').addEventListener('click', function () {
		state.sel = null;
		windowChanged();
		drawGraph();
	});

	/* The graph again, at the page's new width. */
	function resize() {
		byId('graph').textContent = '';
		d3.select('#legend').selectAll('*').remove();
		drawGraphFrame();
		drawGraph();
	}

	/* The series again: the keys or the window (for a key of type) changed. */
	function refresh() {
		drawGraph();
	}

	return { drawGraphFrame, drawGraph, drawBrush, resize, refresh, setHighlight };
};
