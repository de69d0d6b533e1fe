/*
 * The graph's series by the table, as WPA draws a series a group of the
 * columns left of its gold bar: the bytes outstanding over time of each
 * group of the table's first key, the biggest on their own and the rest
 * as one "other", computed from the cells.  A cell's lifetimes begin at
 * a and end at f (units of u; -1: before recording, never freed); at one
 * instant the allocations are counted before the frees, so a bucket's
 * top is the most that instant held.
 */
/* exported mtSeries */
const mtSeries = function (data) {
	'use strict';
	const { keyCol, keyCount, typeString, classString, strings, cellUnit, series } = data;
	const { cK, cA, cF, cOn, cFate, cS, cellCount, cellOut } = data.cells;

	var SHOWN = 8;
	var bucketWidth = series.w, bucketCount = series.n;

	/*
	 * The changes, sorted once: by time, an allocation before a free at
	 * the same instant.  A change is its cell's index, + for a start,
	 * ~index for an end.  Counted into the graph's buckets first, then
	 * each bucket's few sorted as numbers (the typed array's own sort:
	 * a comparator's took 0.35 s for a compiler's million changes).
	 */
	var order = null, when = null, base = null;
	function bucketOfUnit(t) {
		return Math.min(bucketCount - 1, Math.floor(t * cellUnit / bucketWidth));
	}
	function changes() {
		if (order)
			return;
		var n = 0, i, b, c;
		var at = new Int32Array(bucketCount + 1);
		base = [];
		for (i = 0; i < cellCount; i++) {
			if (cA[i] === -1)
				base.push(i);
			else {
				at[bucketOfUnit(cA[i]) + 1]++;
				n++;
			}
			if (cF[i] !== -1) {
				at[bucketOfUnit(cF[i]) + 1]++;
				n++;
			}
		}
		for (b = 0; b < bucketCount; b++)
			at[b + 1] += at[b];
		var fill = at.slice(0, bucketCount), t = new Float64Array(n);
		order = new Int32Array(n);
		when = new Float64Array(n);
		function put(unit, who) {
			var k = fill[bucketOfUnit(unit)]++;
			t[k] = unit * 2 + (who < 0 ? 1 : 0);
			order[k] = who;
		}
		for (i = 0; i < cellCount; i++) {
			if (cA[i] !== -1)
				put(cA[i], i);
			if (cF[i] !== -1)
				put(cF[i], ~i);
		}
		var SHIFT = 2097152;	/* 2^21: a bucket's change, below its time */
		for (b = 0; b < bucketCount; b++) {
			var lo = at[b], m = at[b + 1] - lo;
			if (m < 2)
				continue;
			var t0 = Infinity, t1 = -Infinity;
			for (c = lo; c < lo + m; c++) {
				t0 = Math.min(t0, t[c]);
				t1 = Math.max(t1, t[c]);
			}
			var keys, tt = t.slice(lo, lo + m), oo = order.slice(lo, lo + m);
			if (m < SHIFT && (t1 - t0 + 1) * SHIFT < 9007199254740992) {
				keys = new Float64Array(m);
				for (c = 0; c < m; c++)
					keys[c] = (tt[c] - t0) * SHIFT + c;
				keys.sort();
				for (c = 0; c < m; c++) {
					var j = keys[c] % SHIFT;
					t[lo + c] = tt[j];
					order[lo + c] = oo[j];
				}
			} else {
				var ix = Array.from({ length: m }, function (x, k) { return k; });
				ix.sort(function (x, y) { return tt[x] - tt[y]; });
				for (c = 0; c < m; c++) {
					t[lo + c] = tt[ix[c]];
					order[lo + c] = oo[ix[c]];
				}
			}
		}
		for (i = 0; i < n; i++)
			when[i] = Math.floor(t[i] / 2) * cellUnit;
	}

	/*
	 * The group of a cell: its key's value for the first key, or for
	 * "type" its class in the window [A, B), as the table classes it.
	 */
	function groupOf(key, A, B) {
		if (key !== 'type' && key !== 'class') {
			var col = keyCol[key];
			return function (i) { return cellOut(i) ? -1 : col[cK[i]]; };
		}
		var a0 = A / cellUnit, b0 = B / cellUnit;
		return function (i) {
			var a = cA[i], f = cF[i];
			if (cellOut(i))
				return -1;
			if ((a !== -1 && a >= b0) || (f !== -1 && (cOn[i] ? f <= a0 : f < a0)))
				return -1;	/* outside the window: no class */
			var ai = a !== -1 && a >= a0, fi = f !== -1 && f < b0;
			if (key === 'class')
				return classString[ai ? (fi ? 0 : 1) : (fi ? 2 : 3)];
			return typeString[ai && fi ? 0 : cFate[i] === 2 ? 3 : !ai && !fi ? 2 : 1];
		};
	}

	/* One sweep: each change to its series (slot[group]), bucket by bucket. */
	function sweep(group, slot, nseries, keep) {
		var cur = new Float64Array(nseries), peak = new Float64Array(nseries);
		var mx = keep ? [] : null, mn = keep ? [] : null, last = new Int32Array(nseries).fill(-1);
		var s, i, j, b;
		if (keep)
			for (s = 0; s < nseries; s++) {
				mx.push(new Float64Array(bucketCount));
				mn.push(new Float64Array(bucketCount));
			}
		function settleTo(s, b) {
			for (var k = last[s] + 1; k <= b; k++)
				mx[s][k] = mn[s][k] = cur[s];
			last[s] = b;
		}
		for (i = 0; i < base.length; i++) {
			s = slot(group(base[i]));
			if (s >= 0)
				cur[s] += cS[base[i]];
		}
		for (s = 0; s < nseries; s++)
			peak[s] = cur[s];
		for (i = 0; i < order.length; i++) {
			j = order[i];
			var end = j < 0, c = end ? ~j : j;
			s = slot(group(c));
			if (s < 0)
				continue;
			if (keep) {
				b = Math.min(bucketCount - 1, Math.floor(when[i] / bucketWidth));
				if (last[s] < b)
					settleTo(s, b);
			}
			cur[s] += end ? -cS[c] : cS[c];
			if (cur[s] > peak[s])
				peak[s] = cur[s];
			if (keep) {
				if (cur[s] > mx[s][b])
					mx[s][b] = cur[s];
				if (cur[s] < mn[s][b])
					mn[s][b] = cur[s];
			}
		}
		if (keep)
			for (s = 0; s < nseries; s++)
				settleTo(s, bucketCount - 1);
		return { peak: peak, max: mx, min: mn };
	}

	/*
	 * The series of key's groups for the window [A, B): the SHOWN
	 * biggest peaks, then "other"; each { val, label, peak, max, min }.
	 */
	function byTable(key, A, B) {
		changes();
		var group = groupOf(key, A, B), dense = new Map(), vals = [];
		function denseSlot(v) {
			if (v < 0)
				return -1;
			var d = dense.get(v);
			if (d === undefined) {
				d = vals.length;
				dense.set(v, d);
				vals.push(v);
			}
			return d;
		}
		/* Each group's number first (a pass that only numbers them), then its peak. */
		for (var i = 0; i < cellCount; i++)
			denseSlot(group(i));
		var all = sweep(group, function (v) { return v < 0 ? -1 : dense.get(v); }, vals.length, false);
		var rank = vals.map(function (v, d) { return d; }).filter(function (d) {
			return all.peak[d] > 0;
		});
		rank.sort(function (x, y) {
			return all.peak[y] - all.peak[x] || (strings[vals[x]] < strings[vals[y]] ? -1 : 1);
		});
		var shown = rank.slice(0, rank.length > SHOWN + 1 ? SHOWN : SHOWN + 1);
		var other = rank.length > shown.length, seriesOf = new Int32Array(vals.length).fill(-1);
		shown.forEach(function (d, s) { seriesOf[d] = s; });
		if (other)
			rank.slice(shown.length).forEach(function (d) { seriesOf[d] = shown.length; });
		var n = shown.length + (other ? 1 : 0);
		var got = sweep(group, function (v) {
			var d = v < 0 ? undefined : dense.get(v);
			return d === undefined ? -1 : seriesOf[d];
		}, n, true);
		var out = [];
		for (var s = 0; s < n; s++)
			out.push({
				val: s < shown.length ? vals[shown[s]] : null,
				label: s < shown.length ? strings[vals[shown[s]]] :
				    'other (' + (rank.length - shown.length) + ' groups)',
				peak: got.peak[s], max: got.max[s], min: got.min[s]
			});
		return out;
	}

	/*
	 * Allocations over time, as heaptrack_gui charts them: each group's
	 * lifetimes begun in each graph bucket (a bucket's count, not a sum
	 * over time), the SHOWN groups of the most, then "other"; with
	 * temporary, those of them temporary by heaptrack's rule.
	 */
	function allocsByTable(key, A, B, temporary) {
		var group = groupOf(key, A, B), per = new Map(), total = new Map(), i, b, v;
		var weight = temporary ? data.cells.cT : data.cells.cN;
		for (i = 0; i < cellCount; i++) {
			if (cA[i] === -1 || (v = group(i)) < 0)
				continue;
			b = bucketOfUnit(cA[i]);
			var a = per.get(v);
			if (!a) {
				per.set(v, a = new Float64Array(bucketCount));
				total.set(v, 0);
			}
			a[b] += weight[i];
			total.set(v, total.get(v) + weight[i]);
		}
		var rank = Array.from(total.keys()).filter(function (x) { return total.get(x) > 0; });
		rank.sort(function (x, y) {
			return total.get(y) - total.get(x) || (strings[x] < strings[y] ? -1 : 1);
		});
		var shown = rank.slice(0, rank.length > SHOWN + 1 ? SHOWN : SHOWN + 1), out = [];
		function line(val, label, counts) {
			var peak = 0, sum = 0;
			for (var k = 0; k < counts.length; k++) {
				if (counts[k] > peak)
					peak = counts[k];
				sum += counts[k];
			}
			return { val: val, label: label, peak: peak, max: counts, min: counts, count: true,
				total: sum };
		}
		shown.forEach(function (val) { out.push(line(val, strings[val], per.get(val))); });
		if (rank.length > shown.length) {
			var rest = new Float64Array(bucketCount);
			rank.slice(shown.length).forEach(function (val) {
				var a = per.get(val);
				for (var k = 0; k < bucketCount; k++)
					rest[k] += a[k];
			});
			out.push(line(null, 'other (' + (rank.length - shown.length) + ' groups)', rest));
		}
		return out;
	}

	/*
	 * heaptrack's Peak: the first instant of [A, B) when the selection's
	 * bytes outstanding were the most (every change at an instant made,
	 * as mt-window --at peak takes it), and each key's bytes live then.
	 */
	function peakAt(A, B) {
		changes();
		var cur = 0, best = -Infinity, bestT = A, i, j, c, t;
		for (i = 0; i < base.length; i++)
			if (!cellOut(base[i]))
				cur += cS[base[i]];
		for (i = 0; i < order.length && when[i] <= A; i++) {
			j = order[i];
			c = j < 0 ? ~j : j;
			if (!cellOut(c))
				cur += j < 0 ? -cS[c] : cS[c];
		}
		best = cur;
		while (i < order.length && when[i] < B) {
			t = when[i];
			for (; i < order.length && when[i] === t; i++) {
				j = order[i];
				c = j < 0 ? ~j : j;
				if (!cellOut(c))
					cur += j < 0 ? -cS[c] : cS[c];
			}
			if (cur > best) {
				best = cur;
				bestT = t;
			}
		}
		var weight = new Float64Array(keyCount);
		for (c = 0; c < cellCount; c++) {
			if (cellOut(c) || (cA[c] !== -1 && cA[c] * cellUnit > bestT) ||
			    (cF[c] !== -1 && cF[c] * cellUnit <= bestT))
				continue;
			weight[cK[c]] += cS[c];
		}
		return { t: bestT, total: best, weight: weight };
	}

	return { byTable, allocsByTable, peakAt };
};
