/* exported mtFlame */
const mtFlame = function (dom, units, data, pageState, seriesOf) {
	'use strict';
	const { byId, onTyped } = dom;
	const { human, cmpStr, secsUnit } = units;
	const {
		strings, keyCount, keyCol, keyFrames, frameFn, frameLine, frameMod, stacks, entries, entryKey,
		entryType
	} = data;
	const { state, writeFragment } = pageState;

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
	var ROW_HEIGHT = 18;
	var icicle = { focus: null, trie: null, weight: null, net: 0, freed: 0, found: null, peak: null };
	var FREED = -1;

	function flameNode(parent, name, frame, level) {
		return { name: name, frame: frame, value: 0, keys: [], parent: parent,
			depth: parent ? parent.depth + 1 : 0, level: level, lines: 1, kids: null };
	}

	/*
	 * An entry's weight: Size, Impacting Size, Count, the bytes it leaked
	 * (type leaked), its temporary lifetimes; Peak is a key's, live at the
	 * selection's peak (seriesOf.peakAt).
	 */
	var WEIGHT_NAMES = { size: 'Size', impact: 'Impacting Size', count: 'Count', leaked: 'Leaked',
		temporary: 'Temporary', peak: 'Peak' };
	function entryWeight(i) {
		switch (state.flame) {
		case 'impact': return entries.impact[i];
		case 'count': return entries.count[i];
		case 'temporary': return entries.temp[i];
		case 'leaked': return entryType(entries.keyType[i]) === 3 ? entries.size[i] : 0;
		default: return entries.size[i];
		}
	}
	function showWeight(v) {
		return state.flame === 'count' || state.flame === 'temporary' ? String(v) + ' lifetimes' :
		    human(v);
	}

	function buildTrie() {
		var weight = new Float64Array(keyCount), i;
		icicle.peak = null;
		if (state.flame === 'peak') {
			var w = state.sel || [0, data.wholeEnd];
			icicle.peak = seriesOf.peakAt(w[0], w[1]);
			weight = icicle.peak.weight;
		} else {
			for (i = 0; i < entries.n; i++)
				weight[entryKey(entries.keyType[i])] += entryWeight(i);
		}
		icicle.weight = weight;
		var top = flameNode(null, 'all', -1, 'root');
		/* The widths are sizes; the sum said is the table's: what was freed subtracts. */
		icicle.net = 0;
		icicle.freed = 0;
		for (var k = 0; k < keyCount; k++) {
			if (weight[k]) {
				top.keys.push(k);
				top.value += Math.abs(weight[k]);
				icicle.net += weight[k];
				if (weight[k] < 0)
					icicle.freed -= weight[k];
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
		var m = new Map(), keys = node.keys, w = icicle.weight;
		for (var i = 0; i < keys.length; i++) {
			var k = keys[i], v = Math.abs(w[k]), g, key, fr = -1, name, level;
			if (node.level === 'root' && w[k] < 0) {
				key = FREED;
				name = '[freed]';
				level = 'freed';
			} else if (node.level === 'root' || node.level === 'freed') {
				key = keyCol.process[k];
				name = strings[key];
				level = 'process';
			} else {
				var fd = node.level === 'process' ? 0 : node.level + 1, st = keyFrames[k];
				if (st < 0 || st >= stacks.length) {
					if (fd)
						continue;
					key = -2;
					name = '[no stack]';
					level = 'nostack';
				} else {
					if (fd >= stacks[st].length)
						continue;
					/* Inverted: the allocating frame first, its callers under it. */
					fr = stacks[st][state.inverted ? stacks[st].length - 1 - fd : fd];
					key = frameFn[fr];
					name = strings[key];
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
		icicle.trie = buildTrie();
		icicle.focus = icicle.trie;
		renderFlame();
		var ms = performance.now() - t;
		byId('flame-note').textContent = WEIGHT_NAMES[state.flame] +
		    ' of the selection: ' + showWeight(icicle.net) +
		    (icicle.peak ? ' live at ' + secsUnit(icicle.peak.t) + ', its most outstanding' : '') +
		    ', drawn in ' + ms.toFixed(1) + ' ms' +
		    (state.flame === 'impact' && icicle.freed ? '; the ' + human(icicle.freed) +
		    ' the window freed stands under [freed], and is taken off.' : '.') +
		    (icicle.found !== null ? ' ' + icicle.found : '');
		byId('flame-note').setAttribute('data-total', String(icicle.net));
		Object.keys(WEIGHT_NAMES).forEach(function (w) {
			d3.select('#flame-' + w).classed('on', state.flame === w);
		});
		d3.select('#flame-inverted').classed('on', state.inverted);
		byId('flame-find').value = state.find;
		document.body.setAttribute('data-flame-ms', ms.toFixed(1));
		if (afterDraw)
			afterDraw();
	}
	var afterDraw = null;
	/* What follows the flame graph's weights (the callers and callees). */
	function onDrawn(fn) { afterDraw = fn; }
	function weights() { return icicle.weight || new Float64Array(keyCount); }
	function weightName() { return WEIGHT_NAMES[state.flame]; }

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
		var host = byId('flame'), W = Math.max(480, host.clientWidth || 1200);
		var focus = icicle.focus, total = icicle.trie.value;
		host.textContent = '';
		icicle.found = null;
		if (!total) {
			host.textContent = 'Nothing to draw: the selection\'s ' + WEIGHT_NAMES[state.flame] +
			    ' is 0.';
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
		var svg = d3.select(host).append('svg').attr('width', W)
		    .attr('height', (maxRow + 1) * ROW_HEIGHT);
		var g = svg.selectAll('g').data(nodes).enter().append('g')
		    .attr('transform', function (d) {
			return 'translate(' + x(d.x0) + ',' + d.row * ROW_HEIGHT + ')';
		});
		/* Found: frames whose name holds the text, marked; their share said. */
		var find = state.find.toLowerCase(), found = 0, seen = new Set();
		function hit(d) { return find && d.row > 0 && d.data.name.toLowerCase().indexOf(find) >= 0; }
		if (find) {
			nodes.forEach(function (d) {
				/* A frame under a found one is counted in it already. */
				for (var p = d.data.parent; p; p = p.parent)
					if (seen.has(p))
						return;
				if (hit(d)) {
					seen.add(d.data);
					found += d.value;
				}
			});
			icicle.found = 'Found \'' + state.find + '\': ' + showWeight(found) + ', ' +
			    (100 * found / total).toFixed(1) + '% of the graph.';
		}
		g.append('rect')
		    .attr('width', function (d) { return Math.max(0.5, x(d.x1) - x(d.x0)); })
		    .attr('height', ROW_HEIGHT - 1)
		    .attr('class', function (d) { return hit(d) ? 'found' : null; })
		    .attr('fill', function (d) { return hit(d) ? '#c026d3' : flameColor(d.data); })
		    .attr('fill-opacity', function (d) { return d.row < focus.depth ? 0.6 : 1; })
		    .on('click', function (d) {
			icicle.focus = d.data === focus && focus.parent ? focus.parent : d.data;
			renderFlame();
		})
		    .on('mousemove', function (d) {
			var tip = byId('tip'), n = d.data, fr = n.frame;
			tip.hidden = false;
			tip.textContent = n.name + (fr >= 0 ? '\n' + (n.lines > 1 ? 'several lines, as ' : '') +
			    strings[frameLine[fr]] + '  ' + strings[frameMod[fr]] : '') + '\n' +
			    (state.flame === 'count' || state.flame === 'temporary' ? showWeight(n.value) :
			    human(n.value) + ' (' + n.value +
			    ' B)') + ', ' + (100 * n.value / total).toFixed(1) +
			    '% of the selection';
			tip.style.left = Math.max(0, Math.min(d3.event.clientX + 12,
			    window.innerWidth - tip.offsetWidth - 8)) + 'px';
			tip.style.top = (d3.event.clientY + 14) + 'px';
		})
		    .on('mouseleave', function () { byId('tip').hidden = true; });
		g.filter(function (d) { return x(d.x1) - x(d.x0) > 24; })
		    .append('text').attr('x', 3).attr('y', ROW_HEIGHT - 6)
		    .text(function (d) {
			var chars = Math.floor((x(d.x1) - x(d.x0) - 6) / 6.2);
			var name = d.row === 0 ? 'all: ' + showWeight(icicle.net) : d.data.name;
			return name.length > chars ? name.slice(0, Math.max(1, chars - 1)) + '…' : name;
		});
	}

	Object.keys(WEIGHT_NAMES).forEach(function (w) {
		byId('flame-' + w).addEventListener('click', function () {
			state.flame = w;
			drawFlame();
			writeFragment();
		});
	});
	byId('flame-inverted').addEventListener('click', function () {
		state.inverted = !state.inverted;
		drawFlame();
		writeFragment();
	});
	onTyped('flame-find', function (text) {
		state.find = text;
		drawFlame();
		writeFragment();
	});

	function drawn() { return icicle.trie !== null; }

	return { drawFlame, renderFlame, drawn, onDrawn, weights, weightName, showWeight };
};
