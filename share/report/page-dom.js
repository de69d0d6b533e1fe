/*
 * The page's elements: found by id, made, and the line that says what
 * is wrong with the data or the address.
 */
/* exported mtDom */
const mtDom = function () {
	'use strict';

	function byId(id) { return document.getElementById(id); }

	function el(tag, cls, text, parent) {
		var e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text != null)
			e.textContent = text;
		if (parent)
			parent.appendChild(e);
		return e;
	}

	function button(text, title, parent, onclick) {
		var b = el('button', '', text, parent);
		b.type = 'button';
		b.title = title;
		b.addEventListener('click', onclick);
		return b;
	}

	function problem(text) {
		var p = byId('problem');
		p.hidden = false;
		p.textContent = (p.textContent ? p.textContent + ' ' : '') + text;
	}

	/* fn(the text) once the user stops typing in an input for 150 ms. */
	function onTyped(id, fn) {
		var timer, input = byId(id);
		input.addEventListener('input', function () {
			clearTimeout(timer);
			timer = setTimeout(function () { fn(input.value); }, 150);
		});
	}

	return { byId, el, button, problem, onTyped };
};
