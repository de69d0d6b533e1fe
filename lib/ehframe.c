/*
 * The interpreter of .eh_frame's call frame information (x86-64): finds
 * a code address's FDE through the module's .eh_frame_hdr, runs its
 * CIE's and its own instructions up to the address, and packs what a
 * walk needs in a word (ehframe.h).  Its bytes may be another process's
 * files: no read leaves the image, whatever its offsets say.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ehframe.h"

/* p + n, when those n bytes are all in the image; else NULL. */
static const uint8_t *
within(const struct eh_image *im, const uint8_t *p, uint64_t n)
{
	if ((uintptr_t)p < (uintptr_t)im->lo || (uintptr_t)p > (uintptr_t)im->hi ||
	    n > (uintptr_t)im->hi - (uintptr_t)p)
		return NULL;
	return p + n;
}

/* The byte at a signed offset from p, when in the image; else NULL. */
static const uint8_t *
at_offset(const struct eh_image *im, const uint8_t *p, int64_t off)
{
	uintptr_t a = (uintptr_t)p + (uintptr_t)off;

	if (a < (uintptr_t)im->lo || a >= (uintptr_t)im->hi)
		return NULL;
	return (const uint8_t *)a;
}

static const uint8_t *
uleb(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (p < end && shift < 64) {
		*v |= (uint64_t)(*p & 0x7f) << shift;
		shift += 7;
		if (!(*p++ & 0x80))
			return p;
	}
	return NULL;
}

static const uint8_t *
sleb(const uint8_t *p, const uint8_t *end, int64_t *v)
{
	unsigned shift = 0;
	uint64_t u = 0;
	uint8_t b;

	do {
		if (p >= end || shift >= 64)
			return NULL;
		b = *p++;
		u |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		u |= ~(uint64_t)0 << shift;
	*v = (int64_t)u;
	return p;
}

/* A pointer in one of the encodings .eh_frame uses (DW_EH_PE_*). */
static const uint8_t *
encoded(const struct eh_image *im, const uint8_t *p, const uint8_t *end, int enc,
    uintptr_t datarel, uintptr_t *v)
{
	const uint8_t *at = p;
	uint64_t u = 0;
	int64_t s = 0;

	if (enc == 0xff)
		return NULL;
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c:
		if (end - p < 8)
			return NULL;
		memcpy(&u, p, 8);
		p += 8;
		break;
	case 0x01:
		p = uleb(p, end, &u);
		break;
	case 0x09:
		p = sleb(p, end, &s);
		u = (uint64_t)s;
		break;
	case 0x02: case 0x0a: {
		uint16_t w;
		if (end - p < 2)
			return NULL;
		memcpy(&w, p, 2);
		u = (enc & 0x08) ? (uint64_t)(int64_t)(int16_t)w : w;
		p += 2;
		break;
	}
	case 0x03: case 0x0b: {
		uint32_t w;
		if (end - p < 4)
			return NULL;
		memcpy(&w, p, 4);
		u = (enc & 0x08) ? (uint64_t)(int64_t)(int32_t)w : w;
		p += 4;
		break;
	}
	default:
		return NULL;
	}
	if (!p)
		return NULL;
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10:
		u += (uintptr_t)at + im->bias;
		break;
	case 0x30:
		u += datarel;
		break;
	default:
		return NULL;
	}
	if (enc & 0x80)		/* indirect: only the personality, skipped */
		u = 0;
	*v = (uintptr_t)u;
	return p;
}

/* The registers the walk needs: the CFA's, rbp (6), the return address (16). */
struct cfi_state {
	int cfa_reg;		/* 6 or 7; anything else unsupported */
	int64_t cfa_off;
	int bp_how;		/* 0 same, 1 saved at CFA + bp_off, 2 lost */
	int64_t bp_off;
	int ra_how;		/* 0 at CFA - 8, 1 undefined (outermost), 2 other */
};

#define STATE_STACK 8

/* A rule for reg the walk cannot follow (a register, an expression). */
static void
lose(struct cfi_state *st, uint64_t reg)
{
	if (reg == 6)
		st->bp_how = 2;
	else if (reg == 16)
		st->ra_how = 2;
}

/* The rule of reg, as the CIE's instructions left it. */
static void
restore_rule(struct cfi_state *st, uint64_t reg, const struct cfi_state *initial)
{
	if (reg == 6) {
		st->bp_how = initial->bp_how;
		st->bp_off = initial->bp_off;
	} else if (reg == 16) {
		st->ra_how = initial->ra_how;
	}
}

/* reg saved at CFA + off. */
static void
offset_rule(struct cfi_state *st, uint64_t reg, int64_t off)
{
	if (reg == 6) {
		st->bp_how = 1;
		st->bp_off = off;
	} else if (reg == 16) {
		st->ra_how = off == -8 ? 0 : 2;
	}
}

/* The states remember_state kept. */
struct cfi_saved {
	struct cfi_state st[STATE_STACK];
	int n;
};

/* An advance_loc1, 2 or 4: its delta in *delta.  NULL when cut short. */
static const uint8_t *
advance(uint8_t op, const uint8_t *p, const uint8_t *end, uint64_t code_align,
    uint64_t *delta)
{
	uint16_t w2;
	uint32_t w4;

	switch (op) {
	case 0x02:
		if (end - p < 1)
			return NULL;
		*delta = *p++ * code_align;
		return p;
	case 0x03:
		if (end - p < 2)
			return NULL;
		memcpy(&w2, p, 2);
		*delta = w2 * code_align;
		return p + 2;
	default:
		if (end - p < 4)
			return NULL;
		memcpy(&w4, p, 4);
		*delta = w4 * code_align;
		return p + 4;
	}
}

/* The rules that set a register's rule. */
static const uint8_t *
reg_op(uint8_t op, const uint8_t *p, const uint8_t *end, int64_t data_align,
    struct cfi_state *st, const struct cfi_state *initial)
{
	uint64_t a, b;
	int64_t sa;

	switch (op) {
	case 0x05:	/* offset_extended */
		if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
			return NULL;
		offset_rule(st, a, (int64_t)b * data_align);
		return p;
	case 0x11:	/* offset_extended_sf */
		if (!(p = uleb(p, end, &a)) || !(p = sleb(p, end, &sa)))
			return NULL;
		offset_rule(st, a, sa * data_align);
		return p;
	case 0x2f:	/* GNU_negative_offset_extended */
		if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
			return NULL;
		offset_rule(st, a, -(int64_t)b * data_align);
		return p;
	case 0x06:	/* restore_extended */
		if (!(p = uleb(p, end, &a)))
			return NULL;
		restore_rule(st, a, initial);
		return p;
	case 0x07:	/* undefined */
	case 0x08:	/* same_value */
		if (!(p = uleb(p, end, &a)))
			return NULL;
		if (a == 6)
			st->bp_how = op == 0x07 ? 2 : 0;
		else if (a == 16)
			st->ra_how = op == 0x07 ? 1 : 2;
		return p;
	case 0x09:	/* register */
		if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
			return NULL;
		lose(st, a);
		return p;
	case 0x10:	/* expression */
	case 0x16:	/* val_expression */
		if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)) ||
		    b > (uint64_t)(end - p))
			return NULL;
		lose(st, a);
		return p + b;
	case 0x14:	/* val_offset */
	case 0x15:	/* val_offset_sf */
		if (!(p = uleb(p, end, &a)) ||
		    !(p = op == 0x14 ? uleb(p, end, &b) : sleb(p, end, &sa)))
			return NULL;
		lose(st, a);
		return p;
	default:	/* set_loc and anything newer */
		return NULL;
	}
}

/* The rules of the CFA, the state stack, and those that change nothing. */
static const uint8_t *
cfa_op(uint8_t op, const uint8_t *p, const uint8_t *end, int64_t data_align,
    struct cfi_state *st, const struct cfi_state *initial, struct cfi_saved *saved)
{
	uint64_t a, b;
	int64_t sa;

	switch (op) {
	case 0x00:	/* nop */
		return p;
	case 0x0a:	/* remember_state */
		if (saved->n == STATE_STACK)
			return NULL;
		saved->st[saved->n++] = *st;
		return p;
	case 0x0b:	/* restore_state */
		if (saved->n == 0)
			return NULL;
		*st = saved->st[--saved->n];
		return p;
	case 0x0c:	/* def_cfa */
		if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
			return NULL;
		st->cfa_reg = (int)(a > 63 ? 63 : a);
		st->cfa_off = (int64_t)b;
		return p;
	case 0x12:	/* def_cfa_sf */
		if (!(p = uleb(p, end, &a)) || !(p = sleb(p, end, &sa)))
			return NULL;
		st->cfa_reg = (int)(a > 63 ? 63 : a);
		st->cfa_off = sa * data_align;
		return p;
	case 0x0d:	/* def_cfa_register */
		if (!(p = uleb(p, end, &a)))
			return NULL;
		st->cfa_reg = (int)(a > 63 ? 63 : a);
		return p;
	case 0x0e:	/* def_cfa_offset */
		if (!(p = uleb(p, end, &a)))
			return NULL;
		st->cfa_off = (int64_t)a;
		return p;
	case 0x13:	/* def_cfa_offset_sf */
		if (!(p = sleb(p, end, &sa)))
			return NULL;
		st->cfa_off = sa * data_align;
		return p;
	case 0x0f:	/* def_cfa_expression */
		if (!(p = uleb(p, end, &a)) || a > (uint64_t)(end - p))
			return NULL;
		st->cfa_reg = 63;	/* unsupported from here */
		return p + a;
	case 0x2e:	/* GNU_args_size */
		return uleb(p, end, &a);
	default:
		return reg_op(op, p, end, data_align, st, initial);
	}
}

/* Runs CFA instructions until the location passes pc. */
static int
run_cfi(const uint8_t *p, const uint8_t *end, uintptr_t loc, uintptr_t pc,
    uint64_t code_align, int64_t data_align, struct cfi_state *st,
    const struct cfi_state *initial)
{
	struct cfi_saved saved;
	uint64_t a, delta;

	saved.n = 0;
	while (p < end) {
		uint8_t op = *p++, low = op & 0x3f;

		switch (op >> 6) {
		case 1:		/* advance_loc */
			delta = low * code_align;
			break;
		case 2:		/* offset */
			if (!(p = uleb(p, end, &a)))
				return -1;
			offset_rule(st, low, (int64_t)a * data_align);
			continue;
		case 3:		/* restore */
			restore_rule(st, low, initial);
			continue;
		default:
			if (op >= 0x02 && op <= 0x04)
				p = advance(op, p, end, code_align, &delta);
			else if ((p = cfa_op(op, p, end, data_align, st, initial, &saved)))
				continue;
			if (!p)
				return -1;
			break;
		}
		if (loc + delta > pc)
			return 0;
		loc += delta;
	}
	return 0;
}

/* The table of .eh_frame_hdr: its entries (pairs of 4-byte offsets from
   the header, sorted by address), how many; 0 when it has none usable. */
static uintptr_t
hdr_table(const struct eh_image *im, const uint8_t **tab)
{
	const uint8_t *hdr = im->hdr, *p, *end;
	uintptr_t eh_frame, count;

	if (!within(im, hdr, 4) || hdr[0] != 1 || hdr[3] != 0x3b)
		return 0;
	end = within(im, hdr, 32) ? hdr + 32 : im->hi;
	p = encoded(im, hdr + 4, end, hdr[1], (uintptr_t)hdr + im->bias, &eh_frame);
	if (!p || !(p = encoded(im, p, end, hdr[2], (uintptr_t)hdr + im->bias, &count)) ||
	    count == 0 || count > ((uintptr_t)im->hi - (uintptr_t)p) / 8)
		return 0;
	*tab = p;
	return count;
}

/* Entry i's address: the function's start, the module's own. */
static uintptr_t
entry_pc(const struct eh_image *im, const uint8_t *tab, uintptr_t i)
{
	int32_t at;

	memcpy(&at, tab + i * 8, 4);
	return (uintptr_t)im->hdr + im->bias + (uintptr_t)(intptr_t)at;
}

uintptr_t
eh_functions(const struct eh_image *im)
{
	const uint8_t *tab;

	if (im->tab)
		return im->ntab;
	return im->hdr ? hdr_table(im, &tab) : 0;
}

uintptr_t
eh_function(const struct eh_image *im, uintptr_t i)
{
	const uint8_t *tab;
	uintptr_t count;

	if (im->tab)
		return i < im->ntab ? im->tab[i].pc : 0;
	count = im->hdr ? hdr_table(im, &tab) : 0;
	return i < count ? entry_pc(im, tab, i) : 0;
}

/* The FDE that covers pc, by the header's table or the index; NULL if none. */
static const uint8_t *
fde_of(const struct eh_image *im, uintptr_t pc)
{
	const uint8_t *tab = NULL;
	uintptr_t count, lo = 0, hi, mid;
	int32_t off;

	count = im->tab ? im->ntab : im->hdr ? hdr_table(im, &tab) : 0;
	if (count == 0 || eh_function(im, 0) > pc)
		return NULL;
	hi = count - 1;
	while (lo < hi) {	/* the last entry that starts at or before pc */
		mid = lo + (hi - lo + 1) / 2;
		if ((im->tab ? im->tab[mid].pc : entry_pc(im, tab, mid)) <= pc)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (im->tab)
		return im->tab[lo].fde;
	memcpy(&off, tab + lo * 8 + 4, 4);
	return at_offset(im, im->hdr, off);
}

/* What a CIE says that the rules of its FDEs need. */
struct cie {
	const uint8_t *insns, *end;	/* its instructions */
	uint64_t code_align;
	int64_t data_align;
	int fde_enc;		/* how its FDEs' addresses are encoded */
	int signal;		/* a signal handler's frame ('S') */
	int z;			/* its FDEs have augmentation data ('z') */
};

/* The augmentation string's letters, after 'z': what they say. */
static int
cie_augmentation(const struct eh_image *im, const char *aug, const uint8_t *p, struct cie *c)
{
	uintptr_t skip;

	for (aug++; *aug; aug++) {
		/* 'S' has no data: it may come when all is read. */
		if (p >= c->insns && *aug != 'S')
			return -1;
		switch (*aug) {
		case 'R':
			c->fde_enc = *p++;
			break;
		case 'L':
			p++;
			break;
		case 'P':
			if (!(p = encoded(im, p + 1, c->insns, p[0] & 0x7f, 0, &skip)))
				return -1;
			break;
		case 'S':
			c->signal = 1;
			break;
		default:
			return -1;
		}
		if (p > c->insns)
			return -1;
	}
	return 0;
}

static int
cie_parse(const struct eh_image *im, const uint8_t *cie, struct cie *c)
{
	const uint8_t *cend, *p, *aug;
	uint64_t ra_reg, alen;
	uint32_t len, id;
	int version;

	if (!cie || !within(im, cie, 4))
		return -1;
	memcpy(&len, cie, 4);
	if (len < 6 || len == 0xffffffffu || !(cend = within(im, cie, 4 + (uint64_t)len)))
		return -1;
	c->end = cend;
	memcpy(&id, cie + 4, 4);
	if (id != 0)
		return -1;
	version = cie[8];
	if (version != 1 && version != 3)
		return -1;
	aug = cie + 9;
	p = memchr(aug, 0, (size_t)(cend - aug));
	if (!p++ || (*aug && *aug != 'z'))
		return -1;
	if (!(p = uleb(p, cend, &c->code_align)) || !(p = sleb(p, cend, &c->data_align)))
		return -1;
	if (version == 1) {
		if (p >= cend)
			return -1;
		ra_reg = *p++;
	} else if (!(p = uleb(p, cend, &ra_reg))) {
		return -1;
	}
	if (ra_reg != 16)
		return -1;
	c->insns = p;
	c->fde_enc = c->signal = 0;
	c->z = *aug == 'z';
	if (!c->z)
		return 0;
	if (!(p = uleb(p, cend, &alen)) || alen > (uint64_t)(cend - p))
		return -1;
	c->insns = p + alen;
	return cie_augmentation(im, (const char *)aug, p, c);
}

uint64_t
eh_rule(const struct eh_image *im, uintptr_t pc)
{
	const uint8_t *fde, *fend, *p;
	struct cfi_state st = { 7, 8, 0, 0, 0 }, initial;
	uintptr_t begin, range;
	uint64_t alen;
	uint32_t len, id;
	struct cie c;

	if (!(fde = fde_of(im, pc)) || !within(im, fde, 8))
		return K_UNSUP;
	memcpy(&len, fde, 4);
	if (len < 4 || len == 0xffffffffu || !(fend = within(im, fde, 4 + (uint64_t)len)))
		return K_UNSUP;
	memcpy(&id, fde + 4, 4);
	if (cie_parse(im, at_offset(im, fde + 4, -(int64_t)id), &c) < 0)
		return K_UNSUP;
	p = encoded(im, fde + 8, fend, c.fde_enc, 0, &begin);
	if (!p || !(p = encoded(im, p, fend, c.fde_enc & 0x0f, 0, &range)))
		return K_UNSUP;
	if (pc < begin || pc - begin >= range)
		return K_UNSUP;
	if (c.z) {
		if (!(p = uleb(p, fend, &alen)) || alen > (uint64_t)(fend - p))
			return K_UNSUP;
		p += alen;
	}
	if (c.signal)
		return K_SIGNAL;
	if (run_cfi(c.insns, c.end, 0, 0, c.code_align, c.data_align, &st, &st) < 0)
		return K_UNSUP;
	initial = st;
	if (run_cfi(p, fend, begin, pc, c.code_align, c.data_align, &st, &initial) < 0)
		return K_UNSUP;
	if (st.ra_how == 1)
		return K_END;
	if (st.ra_how != 0 || (st.cfa_reg != 6 && st.cfa_reg != 7) ||
	    st.cfa_off < 8 || st.cfa_off > INT32_MAX ||
	    (st.bp_how == 1 && (st.bp_off < INT16_MIN || st.bp_off > -16)))
		return K_UNSUP;
	return K_NORMAL | (st.cfa_reg == 6 ? V_CFA_BP : 0) |
	    (st.bp_how == 1 ? V_BP_SAVED : 0) | (st.bp_how == 2 ? V_BP_LOST : 0) |
	    (uint64_t)(uint16_t)(int16_t)st.bp_off << 16 | (uint64_t)(uint32_t)st.cfa_off << 32;
}

static int
by_pc(const void *a, const void *b)
{
	uintptr_t x = ((const struct eh_entry *)a)->pc, y = ((const struct eh_entry *)b)->pc;

	return x < y ? -1 : x > y;
}

uintptr_t
eh_index(struct eh_image *im, const uint8_t *p, uintptr_t len)
{
	const uint8_t *end = within(im, p, len), *cie, *next;
	uintptr_t n = 0, cap = 0, begin;
	struct eh_entry *t = NULL, *g;
	uint32_t clen, id;
	struct cie c;

	im->tab = NULL;
	im->ntab = 0;
	if (!end)
		return 0;
	for (; end - p >= 8; p = next) {
		memcpy(&clen, p, 4);
		/* The end; or a 64-bit length, which no x86-64 tool writes. */
		if (clen == 0 || clen == 0xffffffffu || clen > (uintptr_t)(end - p) - 4)
			break;
		next = p + 4 + clen;
		memcpy(&id, p + 4, 4);
		if (id == 0 || clen < 8)
			continue;	/* a CIE */
		cie = at_offset(im, p + 4, -(int64_t)id);
		if (cie_parse(im, cie, &c) < 0 || !encoded(im, p + 8, next, c.fde_enc, 0, &begin))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			if (!(g = realloc(t, cap * sizeof(*t))))
				break;
			t = g;
		}
		t[n].pc = begin;
		t[n++].fde = p;
	}
	if (!n) {
		free(t);
		return 0;
	}
	qsort(t, n, sizeof(*t), by_pc);
	im->tab = t;
	im->ntab = n;
	return n;
}
