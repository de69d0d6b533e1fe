/*
 * uunwind: the stacks mt-record --uprobes takes by copy (--unwind
 * dwarf): a process's registers and the top of its stack, copied by the
 * BPF program at the event, unwound here by each module's call frame
 * information, the words the rules name read from the copy.  It is what
 * perf's --call-graph dwarf does, by the interpreter the preload
 * library's own walk uses (lib/ehframe.c), its rules cached by address.
 * Which mapping holds an address is the caller's to say (lookup); the
 * copy is the traced process's: not trusted.
 */

#include <string.h>
#include <stddef.h>
#include <ucontext.h>

#include "mt.h"
#include "ehframe.h"
#include "uprobes.h"
#include "bpf/ualloc.h"

/* A file offset's address in the module's own terms (its segments'); 0 if in none. */
static uint64_t
vaddr_of(const struct umod *m, uint64_t off)
{
	size_t i;

	for (i = 0; i < m->nsegs; i++)
		if (off >= m->segs[i].off && off - m->segs[i].off < m->segs[i].size)
			return off - m->segs[i].off + m->segs[i].vaddr;
	return 0;
}

/* The packed rule (ehframe.h) of the code at pc in the process; K_UNSUP when unknown. */
static uint64_t
rule_at(struct usource *u, struct uproc *p, umap_lookup *lookup, uint64_t pc, uint64_t ts)
{
	const struct umap *mp = lookup(u, p, pc, ts);
	struct umod *m;
	uint64_t va;
	void **slot;

	if (!mp || mp->mod < 0 || !(m = mod_image(u, p, mp)) || !eh_functions(&m->im) ||
	    !(va = vaddr_of(m, pc - mp->lo + mp->off)) || va >> 48)
		return K_UNSUP;
	slot = u64map_get(&u->rules, va | (uint64_t)mp->mod << 48, 1);
	/* No rule packs to 0 (K_NORMAL's has its CFA offset): 0 is not yet. */
	if (!*slot)
		*slot = (void *)(uintptr_t)eh_rule(&m->im, (uintptr_t)va);
	return (uint64_t)(uintptr_t)*slot;
}

/* The word at addr, when the copy holds it. */
static int
word(const struct ua_regs *g, const uint8_t *copy, uint64_t addr, uint64_t *w)
{
	if (addr < g->sp || addr - g->sp > g->len || g->len - (addr - g->sp) < 8)
		return 0;
	memcpy(w, copy + (addr - g->sp), 8);
	return 1;
}

/* The registers a signal interrupted, from its context at sp (a ucontext_t). */
static int
signal_context(const struct ua_regs *g, const uint8_t *copy, uint64_t sp, uint64_t *ip,
    uint64_t *nsp, uint64_t *bp)
{
	uint64_t gregs = sp + offsetof(ucontext_t, uc_mcontext.gregs);

	return word(g, copy, gregs + REG_RIP * 8, ip) && word(g, copy, gregs + REG_RSP * 8, nsp) &&
	    word(g, copy, gregs + REG_RBP * 8, bp);
}

/*
 * The frames of e's copied stack, innermost first, into ips; how many.  At
 * a return, ip is where the call returns to, the first frame; at an entry
 * or in a system call's wrapper, ip is in the function called, whose
 * frame is not the program's: the first is where that returns to.  The
 * walk goes through a signal handler's frame to the frame the signal
 * interrupted, and ends where a rule is unknown, a word is past the copy,
 * or a frame would not be above the last (a rule gone wrong).
 */
size_t
unwind_copy(struct usource *u, struct uproc *p, umap_lookup *lookup, const struct ua_event *e,
    const struct ua_regs *g, const uint8_t *copy, int at_return, uint64_t *ips, size_t max,
    uint64_t ts)
{
	uint64_t ip = g->ip, sp = g->sp, bp = g->bp, cfa, v;
	int ret = at_return, k;
	size_t n = 0;

	if (at_return && max)
		ips[n++] = ip;
	while (n < max) {
		v = rule_at(u, p, lookup, ret ? ip - 1 : ip, ts);
		/* A function with no rules where the event is (musl's system
		   call wrappers have none): where it returns to is taken to be
		   the first word on the stack that is code, as the frame-pointer
		   path takes it, and the walk goes on from just above it. */
		if (!n && !ret && (v & V_KIND) == K_UNSUP) {
			for (k = 0; k < UA_TOP && !(word(g, copy, sp + 8 * (uint64_t)k, &ip) &&
			    ip && !(ip >> 47) && lookup(u, p, ip, ts)); k++)
				;
			if (k == UA_TOP)
				break;
			sp += 8 * (uint64_t)k + 8;
			ips[n++] = ip;
			ret = 1;
			continue;
		}
		if ((v & V_KIND) == K_SIGNAL) {
			/* The handler returns to the kernel's trampoline: the
			   interrupted context is at sp, its ip no return address. */
			if (!signal_context(g, copy, sp, &ip, &sp, &bp) || !ip || ip >> 47)
				break;
			ips[n++] = ip;
			ret = 0;
			continue;
		}
		if ((v & V_KIND) != K_NORMAL || ((v & V_CFA_BP) && !bp))
			break;
		cfa = ((v & V_CFA_BP) ? bp : sp) + (uint64_t)(int64_t)V_CFA_OFF(v);
		if (cfa <= sp || !word(g, copy, cfa - 8, &ip))
			break;
		/* A call of ours under way: the kernel's trampoline is there. */
		for (k = 0; k < UA_PENDING; k++)
			if (e->pend_at[k] == cfa - 8 && e->pend_ret[k])
				ip = e->pend_ret[k];
		if ((v & V_BP_SAVED) && !word(g, copy, cfa + (uint64_t)(int64_t)V_BP_OFF(v), &bp))
			bp = 0;
		else if (v & V_BP_LOST)
			bp = 0;
		sp = cfa;
		if (!ip || ip >> 47)
			break;
		ips[n++] = ip;
		ret = 1;
	}
	return n;
}
