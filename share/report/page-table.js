/*
 * The table: the window's entries grouped key by key in the user's
 * order, then by the frames of their stacks, as mt-group groups them;
 * and the bar of keys the user orders.  showSelected(row) shows a row
 * the user selected (null: none) elsewhere; keysChangedHook() is called
 * when the keys change.
 */
/* exported mtTable */
const mtTable = function (dom, units, data, pageState, showSelected, keysChangedHook) {
	'use strict';
	const { byId, el, button, problem, onTyped } = dom;
	const { human, cmpStr, classLow, classLabel } = units;
	const {
		KEYNAMES, NUMCOLS, NO_STACK, SELF, DASH, strings, canon, keyCount, keyCol, keyFrames, entryKey,
		entryValue,
		frameFn, frameLine, frameMod, stacks, cellCount, entries, computeWindow
	} = data;
	const { state, writeFragment, windowNow } = pageState;

	/* ---- The tree: groups of entries, key by key, then frames ---- */

	function valueAt(e, key) {
		return entryValue(entries.keyType[e], key);
	}

	/*
	 * The frame at depth fd of the entry's stack: outermost first, or with
	 * callers=1 (heaptrack's bottom-up) the allocating frame's callers,
	 * nearest first (the function itself is the row's when it is a key).
	 */
	function frameAt(e, fd) {
		var fr = keyFrames[entryKey(entries.keyType[e])];
		if (fr < 0 || fr >= stacks.length)
			return fd === 0 ? NO_STACK : SELF;
		var st = stacks[fr];
		if (state.callers) {
			var i = st.length - 1 - fd - (state.by[state.by.length - 1] === 'function' ? 1 : 0);
			return i >= 0 ? st[i] : SELF;
		}
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
			g.count += entries.count[e];
			g.size += entries.size[e];
			g.impact += entries.impact[e];
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
			return strings[g.val];
		if (g.val === NO_STACK)
			return '[no stack]';
		if (g.val === SELF)
			return '[self]';
		return strings[frameFn[g.val]];
	}

	function sortKids(kids) {
		var col = state.sort.col, dir = state.sort.dir;
		var num = col === 'count' ? function (g) { return g.count; } :
		    col === 'size' ? function (g) { return g.size; } :
		    col === 'impact' ? function (g) { return g.impact; } :
		    col === 'per-alloc' ? function (g) { return Math.floor(g.size / g.count); } : null;
		kids.forEach(function (g) { g.name = nodeName(g); });
		/* Size classes by their sizes, not as text (128-255 after 1024-2047). */
		var bySize = kids.length && !kids[0].frame && state.by[kids[0].depth] === 'size-class';
		if (kids.length && !kids[0].frame && state.by[kids[0].depth] === 'stack')
			stackLabels(kids);
		var cmpName = bySize ? function (x, y) {
			return classLow(x.name) - classLow(y.name) || cmpStr(x.name, y.name);
		} : function (x, y) { return cmpStr(x.name, y.name); };
		kids.sort(function (x, y) {
			if (num) {
				var a = num(x), b = num(y);
				if (a !== b)
					return dir < 0 ? b - a : a - b;
				/* mt-group: Impacting Size, then Size, then the name. */
				if (col === 'impact' && x.size !== y.size)
					return dir < 0 ? y.size - x.size : x.size - y.size;
				return cmpName(x, y);
			}
			return dir * cmpName(x, y);
		});
		return kids;
	}

	var root = null;
	var expanded = new Set();	/* paths of open rows */
	var selectedPath = null;

	/*
	 * The filter box: an entry stays when one of its names holds the text
	 * (any case): its keys' values, its type and class, its stack's frames.
	 */
	var keyHit = null, hitFor = null;
	function keyMatches(k, text) {
		for (var c in keyCol)
			if (strings[keyCol[c][k]].toLowerCase().indexOf(text) >= 0)
				return true;
		var fr = keyFrames[k];
		if (fr >= 0 && fr < stacks.length)
			for (var i = 0; i < stacks[fr].length; i++)
				if (strings[frameFn[stacks[fr][i]]].toLowerCase().indexOf(text) >= 0)
					return true;
		return false;
	}
	function passes(e) {
		var text = state.filter.toLowerCase(), j = entries.keyType[e], k = entryKey(j);
		if (!text)
			return true;
		if (hitFor !== text) {
			keyHit = new Int8Array(keyCount).fill(-1);
			hitFor = text;
		}
		if (keyHit[k] < 0)
			keyHit[k] = keyMatches(k, text) ? 1 : 0;
		return keyHit[k] === 1 || strings[entryValue(j, 'type')].indexOf(text) >= 0 ||
		    strings[entryValue(j, 'class')].indexOf(text) >= 0;
	}

	function buildRoot() {
		var all = [];
		for (var i = 0; i < entries.n; i++)
			if (passes(i))
				all.push(i);
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

	/* A stack's last n frames (mt-group's folded stack: ';' between, '\\' escapes). */
	function lastFrames(s, n) {
		var parts = s.split(/(?<!\\);/);
		return parts.length > n ? '…;' + parts.slice(-n).join(';') : s;
	}

	/*
	 * Short labels for a level's stacks: the last three frames of a long
	 * one, more where two stacks would read the same, so that no two
	 * rows look alike.
	 */
	function stackLabels(kids) {
		var n = 3, left = kids.filter(function (g) { return g.name.length > 60; });
		kids.forEach(function (g) { g.label = g.name.length > 60 ? lastFrames(g.name, n) : g.name; });
		while (left.length) {
			var seen = new Map();
			kids.forEach(function (g) { seen.set(g.label, (seen.get(g.label) || 0) + 1); });
			left = left.filter(function (g) { return seen.get(g.label) > 1 && g.label !== g.name; });
			n++;
			left.forEach(function (g) { g.label = lastFrames(g.name, n); });
		}
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
		tr.setAttribute('data-key', g.frame ? g.name : strings[g.val]);
		tr.className = 'lvl' + Math.min(depth, 9) + (g.frame ? ' frame' : '') +
		    (g.expandable ? '' : ' leaf') + (g.path === selectedPath ? ' selected' : '');
		tr._node = g;
		for (var k = 0; k < nk; k++) {
			var c = td(tr, 'key' + (k === nk - 1 ? ' gold' : ''), state.by[k]);
			if (vals[k] !== undefined)
				c.setAttribute('data-key', strings[vals[k]]);
			var here = g.frame ? k === nk - 1 : k === depth;
			if (!here)
				continue;
			if (g.frame)
				c.style.paddingLeft = (8 + 14 * (depth - nk + 1)) + 'px';
			el('span', 'tog', g.expandable ? (isOpen(g) ? '▾' : '▸') : '', c);
			el('span', 'name', g.frame ? g.name : state.by[k] === 'stack' ? g.label || g.name :
			    state.by[k] === 'size-class' ? classLabel(g.name) : g.name, c);
			if (g.frame && g.val >= 0) {
				if (frameLine[g.val] !== DASH)
					el('span', 'fileline', strings[frameLine[g.val]], c);
				c.title = g.name + '\n' + strings[frameLine[g.val]] + '\n' +
				    strings[frameMod[g.val]];
			} else {
				c.title = g.name + (state.by[k] === 'size-class' ? ' bytes' : '');
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
		var thead = byId('groups').tHead, tr = el('tr');
		var cols = state.by.map(function (k, i) {
			return { col: k, head: k, key: true, last: i === state.by.length - 1 };
		}).concat(NUMCOLS);
		cols.forEach(function (c) {
			var th = el('th', (c.key ? 'key' : 'num') + (c.last ? ' gold' : ''),
			    c.key ? c.head.charAt(0).toUpperCase() + c.head.slice(1) : c.head, tr);
			th.setAttribute('data-col', c.col);
			/* Keys before the last share what the numbers leave (page.css). */
			if (c.key && !c.last)
				th.style.width = 'min(9em, calc((100% - 31em) / ' + state.by.length + '))';
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
		var t = performance.now(), nk = state.by.length, tbody = byId('groups').tBodies[0];
		drawHead();
		rowsDrawn = 0;
		var frag = document.createDocumentFragment();
		if (!root.kids.length)
			el('td', '', state.filter && entries.n ?
			    'No row in this window holds \'' + state.filter + '\'.' :
			    'No lifetime is active in this window.', el('tr', 'empty', null, frag))
			    .colSpan = nk + NUMCOLS.length;
		emit(frag, root, nk);
		tbody.textContent = '';
		tbody.appendChild(frag);
		return performance.now() - t;
	}

	byId('groups').tBodies[0].addEventListener('click', function (ev) {
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
		state.row = g.frame ? null : pathValues(g).map(function (v) { return strings[v]; });
		writeFragment();
		showSelected(g);
	});
	byId('groups').tBodies[0].addEventListener('dblclick', function (ev) {
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
		state.open = openPaths();
		drawTable();
		writeFragment();
	}

	/* The rows opened by hand, by their keys' values (rows of frames left out). */
	function openPaths() {
		var out = [];
		expanded.forEach(function (path) {
			var ids = path.split('\u001f').slice(1);
			if (ids.length <= state.by.length)
				out.push(ids.map(function (c) { return strings[+c]; }));
		});
		return out;
	}

	/* The rows the address opens (open=), with their parents. */
	function openFromState() {
		state.open.forEach(function (vals) {
			var path = '';
			for (var i = 0; i < vals.length && i < state.by.length; i++) {
				var c = canon(vals[i]);
				if (c < 0)
					return;
				path += '\u001f' + c;
				expanded.add(path);
			}
		});
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
		var bar = byId('keys');
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

	/* No row open, none selected. */
	function reset() {
		expanded.clear();
		selectedPath = null;
	}

	function keysChanged() {
		reset();
		state.row = null;
		state.open = [];
		if (KEYNAMES.indexOf(state.sort.col) >= 0 && state.by.indexOf(state.sort.col) < 0)
			state.sort = { col: 'impact', dir: -1 };
		drawKeys();
		refreshTable();
		showSelected(null);
		keysChangedHook();
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
		byId('computed').textContent = 'Computed in ' + total.toFixed(1) + ' ms (' +
		    tc.toFixed(1) + ' ms the sums of ' + cellCount + ' cells, ' + td_.toFixed(1) +
		    ' ms the ' + rowsDrawn + ' rows drawn); ' + root.kids.length + ' groups at the first level, ' +
		    keyCount + ' keys.';
		document.body.setAttribute('data-compute-ms', total.toFixed(1));
		/* For tests: the table's columns all in its box, none scrolled off. */
		document.body.setAttribute('data-table-fits',
		    byId('groups').scrollWidth <= byId('table-wrap').clientWidth ? '1' : '0');
		if (selectedPath) {
			var g = findPath(root, selectedPath);
			showSelected(g);
		}
	}

	/*
	 * The row the address names (row=): its parents opened, it chosen
	 * and shown.  Said when the window has no such row.
	 */
	function selectRow() {
		if (state.open.length && root) {
			openFromState();
			drawTable();
		}
		if (!state.row || !root)
			return;
		var path = '', i;
		for (i = 0; i < state.row.length && i < state.by.length; i++) {
			var c = canon(state.row[i]);
			if (c < 0)
				break;
			if (path)
				expanded.add(path);
			path += '\u001f' + c;
		}
		drawTable();
		var g = i === state.row.length ? findPath(root, path) : null;
		if (!g) {
			problem('row: no row ' + state.row.join(' › ') + ' in this window.');
			return;
		}
		selectedPath = path;
		drawTable();
		showSelected(g);
	}

	byId('callers').addEventListener('click', function () {
		state.callers = !state.callers;
		byId('callers').classList.toggle('on', state.callers);
		reset();
		refreshTable();
		writeFragment();
	});

	onTyped('filter', function (text) {
		state.filter = text;
		refreshTable();
		writeFragment();
	});

	return { drawKeys, refreshTable, reset, pathValues, selectRow };
};
