/*
 * The shadow stack's own state, shared by its files (shadow.c, capture.c,
 * unwinders.c): a thread's entries, its remembered walks, the trampoline.
 */
#ifndef MT_SHADOW_STATE_H
#define MT_SHADOW_STATE_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

#define SHADOW_MAX 4096		/* entries a thread's shadow holds */
#define SCRATCH_MAX 1100	/* the frames of one capture, before patching */
#define SHADOW_BYTES ((SHADOW_MAX + SCRATCH_MAX) * sizeof(struct entry) + \
	SHADOW_MAX * sizeof(uintptr_t))

struct entry {
	uintptr_t slot;		/* where the return address was */
	uintptr_t ra;		/* what it was */
	uintptr_t bp;		/* the caller's rbp, to walk on from it */
	uint64_t hash;		/* stack_mix of the frames from the outermost
				   to this one; 0 when not known */
};

/*
 * A walk remembered (shadow_capture, walk-only threads): it is a function
 * of where it starts (the return address, stack and frame pointers of
 * the program's frame that called us), of the frame rules (their
 * generation) and of the words it read from the stack.  When those
 * words still hold what they held, the walk would give what it gave:
 * checking them is loads that do not wait on each other, where walking
 * is a chain of them (load, rule, load).  The caller keeps the stack's
 * id in it too.
 */
#define MEMO_BITS 6	/* sets of MEMO_WAYS */
#define MEMO_WAYS 4
#define MEMO_SLOTS (MEMO_WAYS << MEMO_BITS)
#define MEMO_FRAMES 32
#define MEMO_READS (2 * MEMO_FRAMES + 2)
#define MEMO_KEY_BP 1	/* as where bp was read from: the key's */
struct memo {
	uintptr_t ra, sp, bp;	/* where the walk started: the key */
	uint64_t gen;		/* the rules' generation, as in a key */
	uint64_t hash;		/* *hash as the capture gave it */
	uint64_t id;		/* the caller's: epoch << 32 | stack id */
	uintptr_t last;		/* walked to the end: shadow entries at or
				   below this slot are of frames gone */
	uintptr_t tramp_slot;	/* met a replaced address there: e[j - 1] */
	uint32_t ver;		/* the shadow's version, when tramp_slot */
	uint32_t j, copied;
	uint16_t n, limit, nreads;
	uint8_t truncated, need_bp;	/* the walk used the key's bp */
	struct { uintptr_t at, val; } rd[MEMO_READS];
	void *ips[MEMO_FRAMES];
};

struct shadow {
	struct entry *e;	/* SHADOW_MAX + SCRATCH_MAX entries */
	struct memo *memo;	/* MEMO_SLOTS, once the thread only walks */
	uint32_t memo_next;	/* the way replaced next */
	uint32_t ver;		/* entries added or put back: a new version */
	uintptr_t *rev;		/* e[i].ra at SHADOW_MAX - 1 - i: copied whole */
	uint32_t n;		/* entries in use */
	int8_t state;		/* 0 not started, 1 on, -1 off */
	uint8_t outer_end;	/* e[0]'s frame is the outermost */
	uintptr_t lo, hi;	/* the thread's stack */
	uint32_t suspended;	/* inside another unwinder's call: no capture */
	uint32_t captures, fails;
	/* Whether replacing pays: the trampoline's returns (pops) against
	   the frames copied instead of walked, a window at a time. */
	uint32_t pops, win_pops, win_captures, win_copied, walk_only;
};

extern __thread struct shadow sh __attribute__((tls_model("initial-exec")));

static inline int
on_stack(const struct shadow *s, uintptr_t a)
{
	return a - s->lo < s->hi - s->lo;
}

/* The trampoline (trampoline.S); its points, where a signal may stop it. */
extern const char mt_trampoline_start[], mt_trampoline[], mt_trampoline_end[];
struct tramp_point {
	const char *at;
	uintptr_t below;
};
extern const struct tramp_point mt_trampoline_points[];
#define TRAMP ((uintptr_t)mt_trampoline)

static inline int
in_trampoline_code(uintptr_t ip)
{
	return ip - (uintptr_t)mt_trampoline_start <
	    (uintptr_t)mt_trampoline_end - (uintptr_t)mt_trampoline_start;
}

/* This library's code, found at the first call. */
extern uintptr_t self_lo, self_hi;
void self_find(void);

/* Our own frame in what another unwinder reports: libmt-preload's code. */
static inline int
ours(uintptr_t ip)
{
	if (!self_hi)
		self_find();
	return ip - self_lo < self_hi - self_lo;
}

/* Everything put back, and nothing replaced until resume() (shadow.c). */
void suspend(void);
void resume(void);

#pragma GCC visibility pop

#endif
