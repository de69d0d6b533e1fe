/*
 * A capture of the shadow stack (--unwind shadow): the walk from the
 * top by the frame rules (cfi.h) until a replaced return address, the
 * rest copied from the shadow, the new frames' return addresses
 * replaced; and, for a thread that only walks, its walks remembered.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "cfi.h"
#include "shadow.h"
#include "shadow_state.h"
#include "stack_table.h"

#if defined(__x86_64__) && !defined(MT_GENERIC)

#define INLINE static inline __attribute__((always_inline))

/*
 * A signal stopped the trampoline at ip with the stack pointer at *sp:
 * the address it is taking the function that returned to, and *sp as
 * that function's caller will have it; 0 when not known.
 */
INLINE uintptr_t
in_trampoline(const struct shadow *s, uintptr_t ip, uintptr_t *sp)
{
	const struct tramp_point *p, *at = NULL;
	uintptr_t entry, v;
	uint32_t i;

	if (ip == (uintptr_t)mt_trampoline_start)
		return 0;
	/* Inside mt_shadow_pop: its caller's stack as at the call. */
	at = &mt_trampoline_points[10];
	for (p = mt_trampoline_points; p->at; p++)
		if ((uintptr_t)p->at <= ip)
			at = p;
	entry = *sp + at->below;
	v = *(const uintptr_t *)(entry - 8);
	if (v != TRAMP) {	/* written there already, or put back */
		*sp = entry;
		return v;
	}
	/* Not popped yet, or just: the entry is still in the array. */
	for (i = s->n < SHADOW_MAX ? s->n + 1 : SHADOW_MAX; i-- > 0;)
		if (s->e[i].slot == entry - 8) {
			*sp = entry;
			return s->e[i].ra;
		}
	return 0;
}

/* The frames of the shadow from e[i - 1] out, as this capture copies them. */
static inline int
copy_shadow(const struct shadow *s, uint32_t i, void **ips, int n, int limit)
{
	uint32_t k = (uint32_t)(limit - n) < i ? (uint32_t)(limit - n) : i;

	memcpy(ips + n, s->rev + SHADOW_MAX - i, k * sizeof(void *));
	return n + (int)k;
}

/*
 * Replacing return addresses pays when a capture copies more than it
 * would walk: a return through the trampoline costs about what walking
 * four frames does (the 3 and 13 in weigh).  A thread whose frames mostly
 * return before its next event (short call chains made again each time)
 * only walks, and tries replacing again every WEIGH_AGAIN windows.
 */
#define WEIGH_WINDOW 4096
#define WEIGH_AGAIN 16

static void
weigh(struct shadow *s, uint32_t copied)
{
	s->win_copied += copied;
	if (++s->win_captures < WEIGH_WINDOW)
		return;
	if (s->walk_only) {
		if (++s->walk_only > WEIGH_AGAIN)
			s->walk_only = 0;
	} else if ((uint64_t)s->win_copied * 3 < (uint64_t)(s->pops - s->win_pops) * 13) {
		s->walk_only = 1;
		if (!s->memo) {
			void *p = (void *)syscall(SYS_mmap, NULL, MEMO_SLOTS * sizeof(struct memo),
			    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			if (p != MAP_FAILED)
				s->memo = p;
		}
	}
	s->win_pops = s->pops;
	s->win_captures = s->win_copied = 0;
}

/* The set of ways where the walk from ra and sp would be kept. */
static inline struct memo *
memo_set(const struct shadow *s, uintptr_t ra, uintptr_t sp)
{
	uint64_t k = ((uint64_t)ra ^ (uint64_t)sp << 7) * 0x9e3779b97f4a7c15ULL;

	return &s->memo[(k >> (64 - MEMO_BITS)) * MEMO_WAYS];
}

/* Whether the walk m remembers, from its ra and sp, would give the same now. */
static inline int
memo_holds(const struct shadow *s, const struct memo *m, uintptr_t bp, uint64_t gen, int limit)
{
	uint32_t i;

	if ((m->need_bp && m->bp != bp) || m->gen != gen || m->limit != limit)
		return 0;
	if (m->tramp_slot && (m->ver != s->ver || s->n < m->j ||
	    s->e[m->j - 1].slot != m->tramp_slot))
		return 0;
	for (i = 0; i < m->nreads; i++)
		if (*(const uintptr_t *)m->rd[i].at != m->rd[i].val)
			return 0;
	return 1;
}

/*
 * A frame of the walk into m's reads from index r: its return address
 * read at slot, and the frame pointer its CFA came from (read at used,
 * holding bp; MEMO_KEY_BP: the key's; 0: none).  The next index.
 */
static inline uint32_t
memo_frame(struct memo *m, uint32_t r, uintptr_t slot, uintptr_t ra, uintptr_t used,
    uintptr_t bp)
{
	m->rd[r].at = slot;
	m->rd[r++].val = ra;
	if (used == MEMO_KEY_BP) {
		m->need_bp = 1;
	} else if (used) {
		m->rd[r].at = used;
		m->rd[r++].val = bp;
	}
	return r;
}

/*
 * Past the shadow's outermost entry when it is not the stack's outermost
 * frame (a stack deeper than --depth when first seen): walked, not kept.
 */
static int
walk_on(const struct shadow *s, void **ips, int n, int limit)
{
	uintptr_t ip = s->e[0].ra, sp = s->e[0].slot + 8, bp = s->e[0].bp, cfa;
	const struct cfi_rules rules = cfi_rules_now();
	uint64_t v;

	while (n < limit) {
		v = cfi_lookup(&rules, ip - 1);
		if ((v & V_KIND) != K_NORMAL || ((v & V_CFA_BP) && !bp))
			break;
		cfa = ((v & V_CFA_BP) ? bp : sp) + (uintptr_t)(intptr_t)V_CFA_OFF(v);
		if (cfa <= sp || (s->hi && cfa > s->hi))
			break;
		ip = *(const uintptr_t *)(cfa - 8);
		if (v & V_BP_SAVED)
			bp = *(const uintptr_t *)(cfa + (intptr_t)V_BP_OFF(v));
		else if (v & V_BP_LOST)
			bp = 0;
		sp = cfa;
		if (ip == 0 || ip == TRAMP)
			break;
		ips[n++] = (void *)ip;
	}
	return n;
}

/* A capture's walk: where it is, and what it met. */
struct walk {
	uintptr_t ip, sp, bp, slot, ra, top;
	uintptr_t bpslot;	/* where bp was read from (MEMO_KEY_BP: the key's) */
	uintptr_t usedbp;	/* where the bp this frame's CFA came from was read */
	uintptr_t kra, ksp, kbp;	/* the memo's key, when the walk may be kept */
	uintptr_t last;		/* walked to the end: the last slot walked */
	uint32_t j;		/* met a replaced address: its entry, e[j - 1] */
	uint32_t nsh;		/* the shadow's entries kept */
	uint32_t nfresh;	/* the frames walked, in the scratch entries */
	int n, k, found, end, tramp, nomemo, exit_read;
};

/*
 * Our own frames (shadow_capture, record() and the interposed function:
 * skip of them) all keep frame pointers: up their rbp chain, no rule
 * looked up, to the program's frame that called us.  Each return
 * address but the last must be in our library, the last not in it;
 * anything else (a replaced return of ours, see join_shadow; a build
 * without frame pointers) and their rules walk them.  1 when w is then
 * at the program's frame.
 */
INLINE int
own_frames(struct walk *w, int skip)
{
	uintptr_t cfa;

	for (w->ra = 0, w->slot = w->sp, cfa = w->bp, w->k = 0; w->k < skip; w->k++) {
		if (cfa < w->slot || cfa >= w->top - 16 || (cfa & 7))
			break;
		w->ra = *(const uintptr_t *)(cfa + 8);
		if (w->ra == 0 || ours(w->ra) != (w->k < skip - 1) || in_trampoline_code(w->ra))
			break;
		w->slot = cfa + 8;
		cfa = *(const uintptr_t *)cfa;
	}
	if (w->k != skip || skip <= 0)
		return 0;
	w->sp = w->slot + 8;
	w->bp = cfa;
	return 1;
}

/*
 * The walk from w's start as remembered, when it still holds:
 * SHADOW_MEMO or SHADOW_REMEMBERED.  Else -1, with *mp the way to keep
 * this walk in and w's key set, or nothing set when it is not to be kept.
 */
INLINE int
memo_probe(struct shadow *s, struct walk *w, int limit, uint64_t gen, uint32_t epoch,
    void **ips, int *nout, int *truncated, uint64_t *hash, uint64_t **idp,
    struct memo **mp)
{
	struct memo *set, *m;
	uint32_t i, nsh;

	/* Not on the window's last capture: weigh() may end walk-only. */
	if (!s->walk_only || !s->memo || s->win_captures + 1 >= WEIGH_WINDOW ||
	    w->top != s->hi)
		return -1;
	set = memo_set(s, w->ra, w->sp);
	for (i = 0; i < MEMO_WAYS; i++)
		if (set[i].ra == w->ra && set[i].sp == w->sp)
			break;
	/* The same start walked elsewhere now: kept over it. */
	*mp = m = &set[i < MEMO_WAYS ? i : s->memo_next++ % MEMO_WAYS];
	if (i < MEMO_WAYS && memo_holds(s, m, w->bp, gen, limit)) {
		nsh = s->n;
		if (m->tramp_slot)
			nsh = m->j;
		else
			while (nsh > 0 && s->e[nsh - 1].slot <= m->last)
				nsh--;
		if (nsh == 0)
			s->outer_end = 0;
		__atomic_store_n(&s->n, nsh, __ATOMIC_RELAXED);
		weigh(s, m->copied);
		*nout = m->n;
		*truncated = m->truncated;
		*hash = m->hash;
		*idp = &m->id;
		if (epoch && m->id >> 32 == epoch && (uint32_t)m->id)
			return SHADOW_MEMO;
		memcpy(ips, m->ips, m->n * sizeof(*ips));
		return SHADOW_REMEMBERED;
	}
	w->kra = w->ra;
	w->ksp = w->sp;
	w->kbp = w->bp;
	return -1;
}

/* A signal handler's frame, returned to at ip: its context is at sp. */
INLINE void
signal_frame(const struct shadow *s, struct walk *w)
{
	const ucontext_t *uc = (const void *)w->sp;

	w->nomemo = 1;
	w->ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	w->sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
	w->bp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
	w->top = on_stack(s, w->sp) ? s->hi : UINTPTR_MAX;
	w->slot = 0;	/* not a return address: never replaced */
	w->ra = w->ip;
}

/*
 * The walk ended: the shadow's entries of frames gone are dropped (w->nsh
 * are left), and when the walk met a replaced address the rest of the
 * stack is copied from the shadow.  *hp: the hash of the frames outside
 * the walked ones, or 0 when not known.  -1 when the shadow is not as
 * the stack says.
 */
INLINE int
join_shadow(const struct shadow *s, struct walk *w, void **ips, int skip, int depth,
    int limit, uint64_t *hp)
{
	const struct entry *scratch = s->e + SHADOW_MAX;
	uint64_t h = STACK_SEED;

	w->nsh = s->n;
	if (w->found) {
		/* Entries below the slot are of frames that are gone. */
		for (w->j = w->nsh; w->j > 0 && s->e[w->j - 1].slot < w->slot; w->j--)
			;
		if (w->j == 0 || s->e[w->j - 1].slot != w->slot)
			return -1;
		if (!w->tramp)
			w->nsh = w->j;
		/*
		 * The rest of the stack, as it was; less what is ours when the
		 * replaced address is that early (a signal handler walked
		 * record() before it took the busy flag, and replaced its
		 * return).
		 */
		if (w->k + 1 < skip) {
			if ((uint32_t)(skip - w->k - 1) >= w->j)
				return -1;
			w->j -= (uint32_t)(skip - w->k - 1);
		}
		w->n = copy_shadow(s, w->j, ips, w->n, limit);
		if (s->outer_end && w->n <= depth)
			h = s->e[w->j - 1].hash;
		else
			h = 0;
		if (w->n < limit && !s->outer_end) {
			w->n = walk_on(s, ips, w->n, limit);
			w->nomemo = 1;	/* its reads are not kept */
		}
	} else {
		/* Every live frame up to here was walked: entries at or below
		   the last slot walked are of frames that are gone. */
		w->last = w->nfresh ? scratch[w->nfresh - 1].slot : w->sp;
		while (w->nsh > 0 && s->e[w->nsh - 1].slot <= w->last)
			w->nsh--;
		if (!w->end)
			h = 0;
	}
	*hp = h;
	return 0;
}

/*
 * Replace the new frames' return addresses, outermost first, and stop
 * at the first that cannot be: a frame kept must never have one not
 * kept outside it, or a later capture would skip that one.  The hash h
 * goes on over the new frames.
 */
INLINE uint64_t
patch_fresh(struct shadow *s, const struct walk *w, uint64_t h)
{
	const struct entry *scratch = s->e + SHADOW_MAX;
	uint32_t i, nsh = w->nsh;

	for (i = w->nfresh; i-- > 0;) {
		const struct entry *f = &scratch[i];
		if (h)
			h = stack_mix(h, f->ra);
		if (s->walk_only || !f->slot || !on_stack(s, f->slot) || nsh == SHADOW_MAX ||
		    (nsh > 0 && f->slot >= s->e[nsh - 1].slot)) {
			if (nsh == 0)
				s->outer_end = 0;
			for (; i-- > 0;)
				if (h)
					h = stack_mix(h, scratch[i].ra);
			break;
		}
		s->e[nsh] = *f;
		s->e[nsh].hash = h;
		s->ver++;
		s->rev[SHADOW_MAX - 1 - nsh] = f->ra;
		nsh++;
		__atomic_store_n(&s->n, nsh, __ATOMIC_RELAXED);
		*(volatile uintptr_t *)f->slot = TRAMP;
	}
	__atomic_store_n(&s->n, nsh, __ATOMIC_RELAXED);
	return h;
}

/*
 * The walk kept in m for the next capture from the same start.  The key
 * frame (scratch[0]) was not read: it is the key.  A frame pointer read
 * counts only where a CFA came from it (code without frame pointers
 * keeps anything in rbp); the bp a frame's CFA came from is the one
 * after the frame below.  The read that ended the walk, if one did, is
 * kept too.  Where the caller keeps the stack's id.
 */
INLINE uint64_t *
memo_keep(const struct shadow *s, struct memo *m, const struct walk *w, void *const *ips,
    uint64_t gen, int limit, uint64_t hash, int n, int truncated)
{
	const struct entry *scratch = s->e + SHADOW_MAX;
	uint32_t i, r = 0;

	m->need_bp = 0;
	for (i = 1; i < w->nfresh; i++)
		r = memo_frame(m, r, scratch[i].slot, scratch[i].ra, scratch[i].hash,
		    scratch[i - 1].bp);
	if (w->exit_read)
		r = memo_frame(m, r, w->slot, w->ra, w->usedbp, scratch[w->nfresh - 1].bp);
	m->nreads = (uint16_t)r;
	m->ra = w->kra;
	m->sp = w->ksp;
	m->bp = w->kbp;
	m->gen = gen;
	m->limit = (uint16_t)limit;
	m->hash = hash;
	m->id = 0;
	m->last = w->last;	/* 0 when found */
	m->tramp_slot = w->found ? w->slot : 0;
	m->j = w->j;		/* 0 unless found */
	m->ver = s->ver;
	m->copied = (uint32_t)n > w->nfresh ? (uint32_t)n - w->nfresh : 0;
	m->n = (uint16_t)n;
	m->truncated = (uint8_t)truncated;
	memcpy(m->ips, ips, (size_t)n * sizeof(*ips));
	return &m->id;
}

/*
 * Walks from the caller of this function.  Frames from the skip'th on go
 * to ips and, while new, to the scratch entries; the walk stops at a
 * replaced address, the outermost frame, or depth + 1 frames.  *hash is
 * the stack's (as hash_frames gives it) when the shadow knew it, else 0.  *idp, when
 * not NULL, is a word the caller keeps the stack's id in (epoch << 32 |
 * id) for the next capture that walks the same: SHADOW_MEMO when it
 * holds one of this epoch (ips then not filled), SHADOW_REMEMBERED when
 * the walk was remembered but not its id.
 */
__attribute__((noinline)) int
shadow_capture(void **ips, int depth, int skip, int *nout, int *truncated, uint64_t *hash,
    uint32_t epoch, uint64_t **idp)
{
	struct shadow *s = &sh;
	struct entry *scratch;
	struct memo *m = NULL;
	struct walk w = { .bpslot = MEMO_KEY_BP };
	struct cfi_rules rules;
	uintptr_t cfa;
	uint64_t v, h;
	int limit = depth + 1, how;

	*idp = NULL;
	if (s->state != 1 || s->suspended)
		return SHADOW_OFF;
	scratch = s->e + SHADOW_MAX;
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
	    : "=r"(w.ip), "=r"(w.sp), "=r"(w.bp));
	w.top = on_stack(s, w.sp) ? s->hi : UINTPTR_MAX;
	s->captures++;
	*hash = 0;
	rules = cfi_rules_now();
	if (own_frames(&w, skip)) {
		how = memo_probe(s, &w, limit, rules.gen, epoch, ips, nout, truncated, hash,
		    idp, &m);
		if (how >= 0)
			return how;
		v = 1;
		w.k--;
		goto have_frame;
	}
	w.k = 0;
	/* Our own frame's address is not a return address: the rule at it. */
	v = cfi_lookup(&rules, w.ip);
	for (;;) {
		if (__builtin_expect((v & (V_KIND | V_BP_LOST)) != 0, 0)) {
			if ((v & V_KIND) == K_END) {
				w.end = 1;
				break;
			}
			if ((v & V_KIND) == K_SIGNAL) {
				signal_frame(s, &w);
				v = 0;
				goto have_frame;
			}
			if ((v & V_KIND) == K_UNSUP)
				goto fail;
		}
		if (v & V_CFA_BP) {
			if (!w.bp)
				goto fail;
			cfa = w.bp + (uintptr_t)(intptr_t)V_CFA_OFF(v);
			w.usedbp = w.bpslot;
		} else {
			cfa = w.sp + (uintptr_t)(intptr_t)V_CFA_OFF(v);
			w.usedbp = 0;
		}
		/* Frames go up the stack; a rule that says otherwise is wrong. */
		if (__builtin_expect(cfa <= w.sp || cfa > w.top, 0))
			goto fail;
		w.slot = cfa - 8;
		w.ra = *(const uintptr_t *)w.slot;
		if (v & V_BP_SAVED) {
			w.bpslot = cfa + (uintptr_t)(intptr_t)V_BP_OFF(v);
			w.bp = *(const uintptr_t *)w.bpslot;
		} else if (v & V_BP_LOST) {
			w.bp = 0;
			w.bpslot = 0;
		}
		w.sp = cfa;
		if (w.ra == TRAMP) {
			w.found = 1;
			w.exit_read = 1;
			break;
		}
		if (w.ra == 0) {
			w.end = 1;
			w.exit_read = 1;
			break;
		}
		v = 1;	/* a return address: the rule at the call */
have_frame:
		if (++w.k >= skip) {
			if (w.n == limit) {
				w.exit_read = 1;
				break;
			}
			ips[w.n++] = (void *)w.ra;
			if (w.nfresh < SCRATCH_MAX) {
				/* hash, unused in scratch: where the bp this
				   frame's CFA came from was read (MEMO_KEY_BP:
				   the key's), 0 when its CFA is not from bp */
				scratch[w.nfresh].slot = w.slot;
				scratch[w.nfresh].ra = w.ra;
				scratch[w.nfresh].bp = w.bp;
				scratch[w.nfresh].hash = w.usedbp;
				w.nfresh++;
			}
		}
		if (__builtin_expect(in_trampoline_code(w.ra), 0)) {
			/* A signal handler interrupted the trampoline: on from
			   where it goes, that frame never replaced. */
			if (!(w.ra = in_trampoline(s, w.ra, &w.sp))) {
				*nout = w.n;
				*truncated = 1;
				return SHADOW_OK;
			}
			w.slot = 0;
			v = 1;
			w.tramp = 1;
			goto have_frame;
		}
		v = cfi_lookup(&rules, v ? w.ra - 1 : w.ra);
	}
	if (join_shadow(s, &w, ips, skip, depth, limit, &h) < 0)
		goto fail;
	*truncated = w.n > depth;
	if (w.n > depth)
		w.n = depth;
	*nout = w.n;
	/* Through a trampoline that a signal interrupted: the shadow is
	   its, as it was (the entry it is popping is still needed). */
	if (w.tramp)
		return SHADOW_OK;
	if (w.nsh == 0)
		s->outer_end = w.end && !w.found;
	weigh(s, (uint32_t)w.n > w.nfresh ? (uint32_t)w.n - w.nfresh : 0);
	h = patch_fresh(s, &w, h);
	if (h && w.nfresh == (uint32_t)(*nout) - (uint32_t)(w.found ? w.j : 0) && !*truncated)
		*hash = stack_final(h, *nout, 0);
	if (w.kra && !w.nomemo && *nout <= MEMO_FRAMES && w.nfresh <= (uint32_t)*nout + 1)
		*idp = memo_keep(s, m, &w, ips, rules.gen, limit, *hash, *nout, *truncated);
	return SHADOW_OK;
fail:
	s->fails++;
	shadow_restore();
	/* A thread whose frames this cannot walk: libunwind from now on. */
	if (s->fails > 64 && s->fails > s->captures / 16)
		s->state = -1;
	return SHADOW_FAIL;
}

#endif
