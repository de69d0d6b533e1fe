/*
 * The report's data (report-schema.md, schema 1), typed once so that
 * a window's sums are one pass over flat arrays: equal strings one
 * index, the key columns, frames and stacks, the cells.  null when the
 * page holds no data it reads, which it says.
 */
/* exported mtData */
const mtData = function (dom, id) {
	'use strict';
	const { byId, problem } = dom;
	var started = performance.now();

	var KEYNAMES = ['process', 'pid', 'heap', 'type', 'class', 'function', 'line', 'file',
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

	var data;
	try {
		data = JSON.parse(byId(id || 'mt-data').textContent);
	} catch (e) {
		problem('The report\'s data does not parse: ' + e.message);
		return null;
	}
	if (data.schema !== 1) {
		problem('The report\'s data is schema ' + data.schema + '; this page reads schema 1.');
		return null;
	}
	var parsedMs = performance.now() - started;

	/*
	 * Strings: equal strings get one index, so that a group is an index
	 * and grouping never compares text.
	 */
	var strings = data.strings.slice();
	var canonIndex = new Map();
	var canonOf = new Int32Array(strings.length);
	(function () {
		for (var i = 0; i < strings.length; i++) {
			var c = canonIndex.get(strings[i]);
			if (c === undefined) {
				canonIndex.set(strings[i], i);
				c = i;
			}
			canonOf[i] = c;
		}
	})();
	function intern(s) {
		var c = canonIndex.get(s);
		if (c === undefined) {
			c = strings.length;
			strings.push(s);
			canonIndex.set(s, c);
		}
		return c;
	}
	var typeString = TYPE_NAMES.map(intern);
	/*
	 * WPA's classes: allocated inside or outside the window, freed inside
	 * or outside.  An entry's slot is key * 8 + type * 2 + x, x telling
	 * apart the two classes an impacting (aifo, aofi) or a leaked (aifo,
	 * aofo) lifetime may have.
	 */
	var CLASS_NAMES = ['aifi', 'aifo', 'aofi', 'aofo'];
	var classString = CLASS_NAMES.map(intern);
	var CLASS_OF = [0, 0, 1, 2, 3, 3, 1, 3];	/* (type * 2 + x) -> class */
	function entryKey(j) { return j >> 3; }
	function entryType(j) { return (j >> 1) & 3; }
	/* A key's value for an entry slot: its string's index. */
	function entryValue(j, key) {
		return key === 'type' ? typeString[(j >> 1) & 3] :
		    key === 'class' ? classString[CLASS_OF[j & 7]] : keyCol[key][j >> 3];
	}
	/* A string's index, or -1 when the data has none like it. */
	function canon(str) {
		var c = canonIndex.get(str);
		return c === undefined ? -1 : c;
	}
	var DASH = intern('-');

	/* Key columns, typed, once. */
	var keyCount = data.keys.process.length;
	var keyCol = {};
	KEYNAMES.forEach(function (name) {
		if (name === 'type' || name === 'class')
			return;
		var src = data.keys[name], a = new Int32Array(keyCount);
		for (var i = 0; i < keyCount; i++)
			a[i] = src && src[i] != null && src[i] >= 0 ? canonOf[src[i]] : DASH;
		keyCol[name] = a;
	});
	var keyFrames = new Int32Array(keyCount);
	(function () {
		var src = data.keys.frames || [];
		for (var i = 0; i < keyCount; i++)
			keyFrames[i] = src[i] == null ? -1 : src[i];
	})();
	/*
	 * A stack key the data leaves to us (-1): its frames' functions
	 * folded as mt-group folds them, outermost first, a ';' or '\' in a
	 * name escaped with a '\', "[...]" first for a stack cut short.
	 */
	(function () {
		var src = data.keys.stack || [], cut = new Set(data.stackcut || []);
		var fr = data.frames || [], folded = new Map();
		for (var i = 0; i < keyCount; i++) {
			var st = keyFrames[i];
			if (src[i] !== -1 || st < 0 || !data.stacks || !data.stacks[st])
				continue;
			var c = folded.get(st);
			if (c === undefined) {
				var parts = cut.has(st) ? ['[...]'] : [];
				data.stacks[st].forEach(function (f) {
					parts.push(strings[fr[f][0]].replace(/[;\\]/g, '\\$&'));
				});
				c = intern(parts.join(';'));
				folded.set(st, c);
			}
			keyCol.stack[i] = c;
		}
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
	var stacks = (data.stacks || []).map(function (s) {
		var a = new Int32Array(s.length);
		for (var i = 0; i < s.length; i++)
			a[i] = frameCanon[s[i]];
		return a;
	});

	/* The cells, typed.  a and f are Float64: with u = 1 they pass 2^31. */
	var cellUnit = data.cells.u || 1;
	var exact = !!data.cells.exact;
	var cellCount = data.cells.k.length;
	var cK = new Int32Array(data.cells.k);
	var cA = new Float64Array(data.cells.a);
	var cF = new Float64Array(data.cells.f);
	var cOn = new Uint8Array(data.cells.on);
	var cFate = new Uint8Array(data.cells.fate);
	/* Never freed and no leak of the program (a suppression rule's): left out until shown. */
	var cSup = new Uint8Array(data.cells.sup || cellCount);
	var suppressed = data.cells.suppressed || { n: 0, bytes: 0 };
	var showSup = false;
	function showSuppressed(on) { showSup = !!on; }
	function cellOut(i) { return cSup[i] && !showSup; }
	var cN = new Float64Array(data.cells.n);
	var cS = new Float64Array(data.cells.s);
	/* Of a cell's lifetimes, the temporary ones by heaptrack's rule. */
	var cT = new Float64Array(data.cells.tmp || cellCount);
	data.cells = null;

	var lifetimes = data.lifetimes || { k: [], ta: [], tf: [], size: [], fate: [], cut: false };
	var traceEnd = data.info.end;
	/* The whole trace: [0, the first multiple of u past the end). */
	var wholeEnd = (Math.floor(traceEnd / cellUnit) + 1) * cellUnit;

	/* ---- The window's sums: one pass over the cells ---- */

	var accCount = new Float64Array(keyCount * 8), accSize = new Float64Array(keyCount * 8),
	    accImpact = new Float64Array(keyCount * 8), accTemp = new Float64Array(keyCount * 8);
	/* The window's entries: (key, type) with lifetimes in the window. */
	var entries = { n: 0, keyType: null, count: null, size: null, impact: null, temp: null };

	function computeWindow(A, B) {
		var a0 = A / cellUnit, b0 = B / cellUnit, i;
		accCount.fill(0);
		accSize.fill(0);
		accImpact.fill(0);
		accTemp.fill(0);
		for (i = 0; i < cellCount; i++) {
			var a = cA[i], f = cF[i];
			if (a !== -1 && a >= b0)
				continue;
			if (cSup[i] && !showSup)
				continue;
			if (f !== -1 && (cOn[i] ? f <= a0 : f < a0))
				continue;
			var ai = a !== -1 && a >= a0, fi = f !== -1 && f < b0;
			var t = ai && fi ? 0 : cFate[i] === 2 ? 3 : !ai && !fi ? 2 : 1;
			/* x: aofi of the impacting, aofo of the leaked. */
			var x = t === 1 ? (ai ? 0 : 1) : t === 3 ? (ai ? 0 : 1) : 0;
			var j = cK[i] * 8 + t * 2 + x, s = cS[i];
			accCount[j] += cN[i];
			accTemp[j] += cT[i];
			if (ai) {
				accSize[j] += s;
				if (!fi)
					accImpact[j] += s;
			} else if (fi) {
				accImpact[j] -= s;
			}
		}
		var n = 0, m = keyCount * 8;
		for (i = 0; i < m; i++)
			if (accCount[i] > 0)
				n++;
		entries.n = n;
		entries.keyType = new Int32Array(n);
		entries.count = new Float64Array(n);
		entries.size = new Float64Array(n);
		entries.impact = new Float64Array(n);
		entries.temp = new Float64Array(n);
		for (i = 0, n = 0; i < m; i++) {
			if (accCount[i] > 0) {
				entries.keyType[n] = i;
				entries.count[n] = accCount[i];
				entries.size[n] = accSize[i];
				entries.impact[n] = accImpact[i];
				entries.temp[n] = accTemp[i];
				n++;
			}
		}
	}

	return {
		KEYNAMES, DEFAULT_BY, TYPE_NAMES, NUMCOLS, ROWS_PER_LEVEL, NO_STACK, SELF, DASH,
		info: data.info, series: data.series, parsedMs,
		strings, canonOf, canon, typeString, keyCount, keyCol, keyFrames,
		entryKey, entryType, entryValue, classString,
		frameFn, frameLine, frameMod, stacks,
		cellUnit, exact, cellCount, lifetimes, traceEnd, wholeEnd,
		cells: { cK, cA, cF, cOn, cFate, cN, cS, cT, cellCount, cellOut }, suppressed, showSuppressed,
		entries, computeWindow
	};
};
