/*
 * Numbers and times as people read them, as lib/units.c writes and
 * reads them, and names in the order mt-group sorts them.
 */
/* exported mtUnits */
const mtUnits = function () {
	'use strict';

	/*
	 * mt_human of lib/units.c, digit for digit: 1024-based, one decimal
	 * rounded as printf rounds the exact quotient (a tie to even).
	 */
	var BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
	function human(v) {
		var neg = v < 0, d = Math.abs(v), u = 0;
		while (d >= 1024 && u < 6) {
			d /= 1024;
			u++;
		}
		if (u === 0)
			return (neg ? '-' : '') + Math.abs(v) + ' B';
		if (!Number.isSafeInteger(v))	/* past 2^53: not exact anyway */
			return (neg ? '-' : '') + d.toFixed(1) + ' ' + BYTE_UNITS[u];
		var big = BigInt(Math.abs(v)) * 10n, div = 1n << BigInt(10 * u);
		var q = big / div, r2 = (big % div) * 2n;
		if (r2 > div || (r2 === div && q % 2n === 1n))
			q += 1n;
		var s = (q / 10n).toString() + '.' + (q % 10n).toString();
		return (neg ? '-' : '') + s + ' ' + BYTE_UNITS[u];
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

	/* A size class, "1024-2047" as mt-group writes it: its least size; -1 for "0". */
	function classLow(name) {
		var m = /^(\d+)-\d+$/.exec(name);
		return m ? +m[1] : name === '0' ? -1 : Infinity;
	}

	/* A power of two in its unit: "1 KiB", "8 MiB"; else its bytes. */
	function pow2(v) {
		for (var u = BYTE_UNITS.length - 1; u > 0; u--) {
			var d = Math.pow(1024, u);
			if (v >= d && v % d === 0)
				return v / d + ' ' + BYTE_UNITS[u];
		}
		return v + ' B';
	}

	/* "1024-2047" read as people read sizes: "1 KiB – 2 KiB". */
	function classLabel(name) {
		var m = /^(\d+)-(\d+)$/.exec(name);
		return m ? pow2(+m[1]) + ' – ' + pow2(+m[2] + 1) : name === '0' ? '0 B' : name;
	}

	return { BYTE_UNITS, human, classLow, pow2, classLabel, secsUnit, dur, fragTime, parseDuration, cmpStr };
};
