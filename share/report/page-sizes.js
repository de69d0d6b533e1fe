/*
 * The window's lifetimes by size class, as heaptrack_gui's histogram of
 * allocation sizes: a bar a power of two, its count, in size order.
 */
/* exported mtSizes */
const mtSizes = function (dom, units, data) {
	'use strict';
	const { byId, el } = dom;
	const { pow2, classLow } = units;
	const { strings, keyCol, entries, entryKey } = data;

	function drawSizes() {
		var by = new Map(), i;
		for (i = 0; i < entries.n; i++) {
			var name = strings[keyCol['size-class'][entryKey(entries.keyType[i])]];
			by.set(name, (by.get(name) || 0) + entries.count[i]);
		}
		var bars = Array.from(by.entries()).map(function (x) {
			return { name: x[0], lo: classLow(x[0]), n: x[1] };
		}).sort(function (a, b) { return a.lo - b.lo; });
		var host = byId('sizes'), max = 0;
		host.textContent = '';
		bars.forEach(function (b) { max = Math.max(max, b.n); });
		bars.forEach(function (b) {
			var row = el('div', 'size-bar', null, host);
			row.setAttribute('data-class', b.name);
			row.setAttribute('data-count', String(b.n));
			el('span', 'size-label', isFinite(b.lo) && b.lo > 0 ? pow2(b.lo) + ' –' :
			    b.name === '0' ? '0 B' : b.name, row).title = b.name + ' bytes';
			var bar = el('span', 'size-fill', null, row);
			bar.style.width = (max ? 60 * b.n / max : 0) + '%';
			el('span', 'size-count', String(b.n), row);
		});
		if (!bars.length)
			host.textContent = 'No lifetime in this window.';
	}

	return { drawSizes };
};
