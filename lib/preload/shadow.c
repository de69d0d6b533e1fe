/*
 * The shadow-stack unwinder (--unwind shadow).
 *
 * libunwind walks every frame of every event, and a program's stacks
 * are 30 to 60 frames deep while only the top few change from one
 * allocation to the next.  A capture here walks from the top, by the
 * frame rules of the binaries' .eh_frame (cached per address), and
 * replaces each return address it walks with the address of a
 * trampoline, keeping the original in the thread's shadow: its slot on
 * the stack, the address, and the caller's frame pointer.  A function
 * returning through the trampoline pops its entry and goes where it
 * would have gone; the next capture walks until it meets a replaced
 * address, and copies the rest from the shadow.  bytehound and memray's
 * experiments do the same; what follows is how this one stays safe.
 *
 * - The shadow is ordered: its slots go down the stack as entries go
 *   up.  Frames that ended without returning (longjmp, an exception
 *   caught above them) leave entries below the live ones: the
 *   trampoline, and a capture that meets a replaced address, drop every
 *   entry below the slot they are at.
 * - Only slots on the thread's own stack are replaced, and only from a
 *   capture (the busy flag held, so never inside a signal handler that
 *   interrupted one).  Frames on a signal's alternate stack, a
 *   coroutine's stack, or past a signal frame's saved context are walked
 *   every time.
 * - Every other unwinder must see the real addresses: a C++ throw and
 *   its cleanups (_Unwind_RaiseException, _Unwind_Resume, ...),
 *   pthread_exit's forced unwind, backtrace(3), a program's own
 *   libunwind, and a switch of context (swapcontext, setcontext) put
 *   them all back first (shadow_restore), through the interposed entry
 *   points below.  A capture that meets a frame it cannot walk (an
 *   expression rule, JIT code) puts them back too, and the caller
 *   unwinds that event with libunwind.
 * - Putting back can race with the trampoline only in a signal handler
 *   that interrupted it: the trampoline then takes the address from its
 *   slot, where it was put back, and leaves the count as it was made.
 * - A CET shadow stack (a kernel and glibc that enable it) rejects a
 *   replaced return: not used there (shadow_usable).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "shadow.h"

#define EXPORT __attribute__((visibility("default")))

extern void *__libc_stack_end;

/* The mapping of /proc/self/maps that holds addr, read without malloc. */
static int
mapping_of(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	char buf[4096];
	size_t have = 0, used;
	ssize_t n;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int found = 0;

	if (fd < 0)
		return 0;
	for (;;) {
		char *line = buf, *nl, *end;
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = memchr(line, '\n', (size_t)(buf + have - line)))) {
			uintptr_t a = (uintptr_t)strtoull(line, &end, 16), b;
			if (*end == '-') {
				b = (uintptr_t)strtoull(end + 1, NULL, 16);
				if (addr >= a && addr < b) {
					*lo = a;
					*hi = b;
					found = 1;
					goto out;
				}
			}
			line = nl + 1;
		}
		used = (size_t)(line - buf);
		memmove(buf, line, have - used);
		have -= used;
		if (have == sizeof(buf) - 1)
			have = 0;	/* a line longer than the buffer: past it */
	}
out:
	close(fd);
	return found;
}

/*
 * The calling thread's stack, or 0 and 0 when not known.  Not from
 * pthread_getattr_np: it holds the thread's lock while it allocates (the
 * cpuset; /proc/self/maps read with fopen for the main thread), and a
 * thread's first allocation comes here: a deadlock (Rust's runtime and
 * the JVM call it first thing).  The main thread's frames are all below
 * where the loader started it, how far down the stack's limit says;
 * another thread's are in the mapping that holds them.
 */
void
thread_stack(uintptr_t *lo, uintptr_t *hi)
{
	struct rlimit rl;
	uintptr_t here = (uintptr_t)&rl;

	*lo = *hi = 0;
	if (syscall(SYS_gettid) == getpid()) {
		uintptr_t top = ((uintptr_t)__libc_stack_end + 4095) & ~(uintptr_t)4095;
		uintptr_t most = (uintptr_t)1 << 30;
		if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < most)
			most = rl.rlim_cur;
		/* Unless a fork from another thread made this one the main. */
		if (top > most && here - (top - most) < most) {
			*lo = top - most;
			*hi = top;
			return;
		}
	}
	if (!mapping_of(here, lo, hi))
		*lo = *hi = 0;
}

#if defined(__x86_64__)

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

static __thread struct shadow sh __attribute__((tls_model("initial-exec")));

static inline int
on_stack(const struct shadow *s, uintptr_t a)
{
	return a - s->lo < s->hi - s->lo;
}

/* The trampoline: registers kept whole (a caller compiled with
   -fipa-ra may keep values in call-clobbered registers across a call to
   a function it knows), the address from mt_shadow_pop, then ret. */
extern const char mt_trampoline_start[], mt_trampoline[], mt_trampoline_end[];
/*
 * Where a signal may stop it, what the stack pointer lacks of its value
 * at the trampoline's entry: after each instruction, its address and that.
 */
struct tramp_point {
	const char *at;
	uintptr_t below;
};
extern const struct tramp_point mt_trampoline_points[];
#define TRAMP_POINT(n, below) "\n.Ltp" #n ":\n" \
	"	.pushsection .data.rel.ro\n" \
	"	.quad .Ltp" #n ", " #below "\n" \
	"	.popsection\n"
__asm__(
	"	.pushsection .data.rel.ro\n"
	"	.p2align 3\n"
	"	.globl mt_trampoline_points\n"
	"	.hidden mt_trampoline_points\n"
	"mt_trampoline_points:\n"
	"	.popsection\n"
	"	.text\n"
	"	.p2align 4\n"
	"	.globl mt_trampoline_start\n"
	"	.hidden mt_trampoline_start\n"
	"	.globl mt_trampoline\n"
	"	.hidden mt_trampoline\n"
	"	.globl mt_trampoline_end\n"
	"	.hidden mt_trampoline_end\n"
	"mt_trampoline_start:\n"
	"	nop\n"
	"mt_trampoline:\n"
	TRAMP_POINT(0, 0)
	"	sub $8, %rsp\n"		/* the slot again: the address goes there */
	TRAMP_POINT(1, 8)
	"	push %rax\n"
	TRAMP_POINT(2, 16)
	"	push %rcx\n"
	TRAMP_POINT(3, 24)
	"	push %rdx\n"
	TRAMP_POINT(4, 32)
	"	push %rsi\n"
	TRAMP_POINT(5, 40)
	"	push %rdi\n"
	TRAMP_POINT(6, 48)
	"	push %r8\n"
	TRAMP_POINT(7, 56)
	"	push %r9\n"
	TRAMP_POINT(8, 64)
	"	push %r10\n"
	TRAMP_POINT(9, 72)
	"	push %r11\n"
	TRAMP_POINT(10, 80)
	"	lea 80(%rsp), %rdi\n"	/* the stack pointer after the return */
	"	call mt_shadow_pop\n"
	"	mov %rax, 72(%rsp)\n"
	"	pop %r11\n"
	TRAMP_POINT(11, 72)
	"	pop %r10\n"
	TRAMP_POINT(12, 64)
	"	pop %r9\n"
	TRAMP_POINT(13, 56)
	"	pop %r8\n"
	TRAMP_POINT(14, 48)
	"	pop %rdi\n"
	TRAMP_POINT(15, 40)
	"	pop %rsi\n"
	TRAMP_POINT(16, 32)
	"	pop %rdx\n"
	TRAMP_POINT(17, 24)
	"	pop %rcx\n"
	TRAMP_POINT(18, 16)
	"	pop %rax\n"
	TRAMP_POINT(19, 8)
	/* Not ret: the return stack buffer stays in step with the calls. */
	"	lea 8(%rsp), %rsp\n"
	TRAMP_POINT(20, 0)
	"	jmp *-8(%rsp)\n"
	"mt_trampoline_end:\n"
	"	.pushsection .data.rel.ro\n"
	"	.quad 0, 0\n"
	"	.popsection\n"
	"	.previous\n");

#define TRAMP ((uintptr_t)mt_trampoline)

static void __attribute__((noreturn, target("general-regs-only")))
lost_place(void)
{
	static const char msg[] = "libmt-preload: the shadow stack lost its place: "
	    "record again with mt-record --unwind libunwind\n";

	(void)!write(2, msg, sizeof(msg) - 1);
	__builtin_trap();
}

/* Where the function that returned to the trampoline was to go. */
uintptr_t mt_shadow_pop(uintptr_t sp);
__attribute__((used, visibility("hidden"), target("general-regs-only"))) uintptr_t
mt_shadow_pop(uintptr_t sp)
{
	struct shadow *s = &sh;
	uintptr_t slot = sp - 8, ra;
	uint32_t n0 = __atomic_load_n(&s->n, __ATOMIC_RELAXED), n = n0;

	while (n > 0 && s->e[n - 1].slot < slot)
		n--;	/* frames left by longjmp or a caught exception */
	if (n == 0 || s->e[n - 1].slot != slot) {
		/* Put back under us (a signal handler): it is in the slot. */
		ra = *(volatile uintptr_t *)slot;
		if (ra == TRAMP)
			lost_place();
		return ra;
	}
	ra = s->e[n - 1].ra;
	s->pops++;
	/* Unless a signal handler put everything back meanwhile. */
	__atomic_compare_exchange_n(&s->n, &n0, n - 1, 0, __ATOMIC_RELAXED,
	    __ATOMIC_RELAXED);
	return ra;
}

/* ---- Frame rules from .eh_frame, cached by address ---- */

enum { K_NORMAL, K_END, K_SIGNAL, K_UNSUP };

#define CACHE_BITS 16
#define CACHE_SLOTS (1u << CACHE_BITS)
struct cache_ent {
	uint64_t key;		/* address | generation << 48; 0 empty */
	uint64_t val;
};
static struct cache_ent *cache;
static uint64_t cache_gen = 1;

/* A packed rule: */
#define V_KIND		3u	/* K_* */
#define V_CFA_BP	4u
#define V_BP_SAVED	8u
#define V_BP_LOST	16u
#define V_BP_OFF(v)	((int16_t)(uint16_t)((v) >> 16))
#define V_CFA_OFF(v)	((int32_t)(uint32_t)((v) >> 32))


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
encoded(const uint8_t *p, const uint8_t *end, int enc, uintptr_t datarel, uintptr_t *v)
{
	const uint8_t *at = p;
	uint64_t u = 0;
	int64_t s;

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
		u += (uintptr_t)at;
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

/* Runs CFA instructions until the location passes pc. */
static int
run_cfi(const uint8_t *p, const uint8_t *end, uintptr_t loc, uintptr_t pc,
    uint64_t code_align, int64_t data_align, struct cfi_state *st,
    const struct cfi_state *initial)
{
	struct cfi_state saved[STATE_STACK];
	int nsaved = 0;
	uint64_t a, b;
	int64_t sa;

	while (p && p < end) {
		uint8_t op = *p++, low = op & 0x3f;
		uint64_t delta = 0;

		switch (op >> 6) {
		case 1:
			delta = low * code_align;
			goto advance;
		case 2:
			if (!(p = uleb(p, end, &a)))
				return -1;
			sa = (int64_t)a * data_align;
			goto offset_rule;
		case 3:
			if (low == 6) {
				st->bp_how = initial->bp_how;
				st->bp_off = initial->bp_off;
			} else if (low == 16) {
				st->ra_how = initial->ra_how;
			}
			continue;
		}
		switch (op) {
		case 0x00:	/* nop */
			continue;
		case 0x02:
			if (end - p < 1)
				return -1;
			delta = *p++ * code_align;
			goto advance;
		case 0x03: {
			uint16_t w;
			if (end - p < 2)
				return -1;
			memcpy(&w, p, 2);
			p += 2;
			delta = w * code_align;
			goto advance;
		}
		case 0x04: {
			uint32_t w;
			if (end - p < 4)
				return -1;
			memcpy(&w, p, 4);
			p += 4;
			delta = w * code_align;
			goto advance;
		}
		case 0x05:	/* offset_extended */
			if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
				return -1;
			low = (uint8_t)(a > 63 ? 63 : a);
			sa = (int64_t)b * data_align;
			goto offset_rule;
		case 0x11:	/* offset_extended_sf */
			if (!(p = uleb(p, end, &a)) || !(p = sleb(p, end, &sa)))
				return -1;
			low = (uint8_t)(a > 63 ? 63 : a);
			sa *= data_align;
			goto offset_rule;
		case 0x2f:	/* GNU_negative_offset_extended */
			if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
				return -1;
			low = (uint8_t)(a > 63 ? 63 : a);
			sa = -(int64_t)b * data_align;
			goto offset_rule;
		case 0x06:	/* restore_extended */
			if (!(p = uleb(p, end, &a)))
				return -1;
			if (a == 6) {
				st->bp_how = initial->bp_how;
				st->bp_off = initial->bp_off;
			} else if (a == 16) {
				st->ra_how = initial->ra_how;
			}
			continue;
		case 0x07:	/* undefined */
		case 0x08:	/* same_value */
			if (!(p = uleb(p, end, &a)))
				return -1;
			if (a == 6)
				st->bp_how = op == 0x07 ? 2 : 0;
			else if (a == 16)
				st->ra_how = op == 0x07 ? 1 : 2;
			continue;
		case 0x09:	/* register */
			if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
				return -1;
			lose(st, a);
			continue;
		case 0x0a:	/* remember_state */
			if (nsaved == STATE_STACK)
				return -1;
			saved[nsaved++] = *st;
			continue;
		case 0x0b:	/* restore_state */
			if (nsaved == 0)
				return -1;
			*st = saved[--nsaved];
			continue;
		case 0x0c:	/* def_cfa */
			if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)))
				return -1;
			st->cfa_reg = (int)(a > 63 ? 63 : a);
			st->cfa_off = (int64_t)b;
			continue;
		case 0x12:	/* def_cfa_sf */
			if (!(p = uleb(p, end, &a)) || !(p = sleb(p, end, &sa)))
				return -1;
			st->cfa_reg = (int)(a > 63 ? 63 : a);
			st->cfa_off = sa * data_align;
			continue;
		case 0x0d:	/* def_cfa_register */
			if (!(p = uleb(p, end, &a)))
				return -1;
			st->cfa_reg = (int)(a > 63 ? 63 : a);
			continue;
		case 0x0e:	/* def_cfa_offset */
			if (!(p = uleb(p, end, &a)))
				return -1;
			st->cfa_off = (int64_t)a;
			continue;
		case 0x13:	/* def_cfa_offset_sf */
			if (!(p = sleb(p, end, &sa)))
				return -1;
			st->cfa_off = sa * data_align;
			continue;
		case 0x0f:	/* def_cfa_expression */
			if (!(p = uleb(p, end, &a)) || a > (uint64_t)(end - p))
				return -1;
			p += a;
			st->cfa_reg = 63;	/* unsupported from here */
			continue;
		case 0x10:	/* expression */
		case 0x16:	/* val_expression */
			if (!(p = uleb(p, end, &a)) || !(p = uleb(p, end, &b)) ||
			    b > (uint64_t)(end - p))
				return -1;
			p += b;
			lose(st, a);
			continue;
		case 0x14:	/* val_offset */
		case 0x15:	/* val_offset_sf */
			if (!(p = uleb(p, end, &a)) ||
			    !(p = op == 0x14 ? uleb(p, end, &b) : sleb(p, end, &sa)))
				return -1;
			lose(st, a);
			continue;
		case 0x2e:	/* GNU_args_size */
			if (!(p = uleb(p, end, &a)))
				return -1;
			continue;
		default:	/* set_loc and anything newer */
			return -1;
		}
advance:
		if (loc + delta > pc)
			return 0;
		loc += delta;
		continue;
offset_rule:
		if (low == 6) {
			st->bp_how = 1;
			st->bp_off = sa;
		} else if (low == 16) {
			st->ra_how = sa == -8 ? 0 : 2;
		}
	}
	return p ? 0 : -1;
}

/* The rule for the frame at pc, from its FDE, packed (V_*). */
static uint64_t
rule_of(uintptr_t pc)
{
	struct dl_find_object fo;
	const uint8_t *hdr, *tab, *fde, *fend, *cie, *cend, *p, *aug, *insns;
	uintptr_t eh_frame, count, begin, range;
	uint64_t code_align, ra_reg, alen;
	int64_t data_align;
	uint32_t len, id;
	int fde_enc = 0, signal = 0, version, lo, hi;
	struct cfi_state st = { 7, 8, 0, 0, 0 }, initial;

	if (_dl_find_object((void *)pc, &fo) != 0 || !fo.dlfo_eh_frame)
		return K_UNSUP;
	hdr = fo.dlfo_eh_frame;
	/* version 1; the table: 4-byte offsets from the header, sorted. */
	if (hdr[0] != 1 || hdr[3] != 0x3b)
		return K_UNSUP;
	p = encoded(hdr + 4, hdr + 32, hdr[1], (uintptr_t)hdr, &eh_frame);
	if (!p || !(p = encoded(p, p + 16, hdr[2], (uintptr_t)hdr, &count)) || count == 0)
		return K_UNSUP;
	tab = p;
	lo = 0;
	hi = (int)count - 1;
	{
		int32_t at;
		memcpy(&at, tab, 4);
		if ((uintptr_t)hdr + (intptr_t)at > pc)
			return K_UNSUP;
	}
	while (lo < hi) {	/* the last entry that starts at or before pc */
		int mid = lo + (hi - lo + 1) / 2;
		int32_t at;
		memcpy(&at, tab + (size_t)mid * 8, 4);
		if ((uintptr_t)hdr + (intptr_t)at <= pc)
			lo = mid;
		else
			hi = mid - 1;
	}
	{
		int32_t off;
		memcpy(&off, tab + (size_t)lo * 8 + 4, 4);
		fde = hdr + off;
	}
	memcpy(&len, fde, 4);
	if (len == 0 || len == 0xffffffffu)
		return K_UNSUP;
	fend = fde + 4 + len;
	memcpy(&id, fde + 4, 4);
	cie = fde + 4 - id;
	memcpy(&len, cie, 4);
	if (len == 0 || len == 0xffffffffu)
		return K_UNSUP;
	cend = cie + 4 + len;
	memcpy(&id, cie + 4, 4);
	if (id != 0)
		return K_UNSUP;
	version = cie[8];
	if (version != 1 && version != 3)
		return K_UNSUP;
	aug = cie + 9;
	p = memchr(aug, 0, (size_t)(cend - aug));
	if (!p++ || (*aug && *aug != 'z'))
		return K_UNSUP;
	if (!(p = uleb(p, cend, &code_align)) || !(p = sleb(p, cend, &data_align)))
		return K_UNSUP;
	if (version == 1) {
		if (p >= cend)
			return K_UNSUP;
		ra_reg = *p++;
	} else if (!(p = uleb(p, cend, &ra_reg))) {
		return K_UNSUP;
	}
	if (ra_reg != 16)
		return K_UNSUP;
	insns = p;
	if (*aug == 'z') {
		const char *c;
		if (!(p = uleb(p, cend, &alen)) || alen > (uint64_t)(cend - p))
			return K_UNSUP;
		insns = p + alen;
		for (c = (const char *)aug + 1; *c; c++) {
			uintptr_t skip;
			switch (*c) {
			case 'R':
				fde_enc = *p++;
				break;
			case 'L':
				p++;
				break;
			case 'P':
				if (!(p = encoded(p + 1, insns, p[0] & 0x7f, 0, &skip)))
					return K_UNSUP;
				break;
			case 'S':
				signal = 1;
				break;
			default:
				return K_UNSUP;
			}
			if (p > insns)
				return K_UNSUP;
		}
	}
	p = encoded(fde + 8, fend, fde_enc, 0, &begin);
	if (!p || !(p = encoded(p, fend, fde_enc & 0x0f, 0, &range)))
		return K_UNSUP;
	if (pc < begin || pc - begin >= range)
		return K_UNSUP;
	if (*aug == 'z') {
		if (!(p = uleb(p, fend, &alen)) || alen > (uint64_t)(fend - p))
			return K_UNSUP;
		p += alen;
	}
	if (signal)
		return K_SIGNAL;
	if (run_cfi(insns, cend, 0, 0, code_align, data_align, &st, &st) < 0)
		return K_UNSUP;
	initial = st;
	if (run_cfi(p, fend, begin, pc, code_align, data_align, &st, &initial) < 0)
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

/*
 * The packed rule of the frame at pc.  The cache is direct-mapped; on
 * x86-64 stores are seen in order, so a key read the same before and
 * after its value vouches for it (the writer clears the key first).
 */
static uint64_t
lookup_slow(uintptr_t pc, struct cache_ent *c, uint64_t key)
{
	uint64_t v = rule_of(pc);

	if (c) {
		__atomic_store_n(&c->key, 0, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_store_n(&c->val, v, __ATOMIC_RELAXED);
		__atomic_store_n(&c->key, key, __ATOMIC_RELEASE);
	}
	return v;
}

/* The cache and its generation, read once by a capture: kept in
   registers, not read again after each store of a frame. */
struct rules {
	struct cache_ent *cache;
	uint64_t gen;		/* shifted to its place in a key */
};

static inline struct rules
rules_now(void)
{
	return (struct rules){ cache, __atomic_load_n(&cache_gen, __ATOMIC_RELAXED) << 48 };
}

static inline uint64_t
lookup(const struct rules *r, uintptr_t pc)
{
	uint64_t key = (uint64_t)pc | r->gen, k1, k2, v;
	struct cache_ent *c;

	if (__builtin_expect(!r->cache, 0))
		return lookup_slow(pc, NULL, 0);
	c = &r->cache[(key * 0x9e3779b97f4a7c15ULL) >> (64 - CACHE_BITS)];
	k1 = __atomic_load_n(&c->key, __ATOMIC_ACQUIRE);
	v = __atomic_load_n(&c->val, __ATOMIC_ACQUIRE);
	k2 = __atomic_load_n(&c->key, __ATOMIC_RELAXED);
	if (__builtin_expect(k1 == key && k2 == key, 1))
		return v;
	return lookup_slow(pc, c, key);
}

/*
 * Past the shadow's outermost entry when it is not the stack's outermost
 * frame (a stack deeper than --depth when first seen): walked, not kept.
 */
static int
walk_on(const struct shadow *s, void **ips, int n, int limit)
{
	uintptr_t ip = s->e[0].ra, sp = s->e[0].slot + 8, bp = s->e[0].bp, cfa;
	const struct rules rules = rules_now();
	uint64_t v;

	while (n < limit) {
		v = lookup(&rules, ip - 1);
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

int
shadow_trampoline(uintptr_t ip)
{
	return ip - (uintptr_t)mt_trampoline_start <
	    (uintptr_t)mt_trampoline_end - (uintptr_t)mt_trampoline_start;
}

void
shadow_modules_changed(void)
{
	__atomic_fetch_add(&cache_gen, 1, __ATOMIC_RELAXED);
}

/* ---- The shadow ---- */

static int usable = -1;

int
shadow_usable(void)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if (usable >= 0)
		return usable;
	usable = 0;
	/* A kernel and glibc that turned on a CET shadow stack for us. */
	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	{
		char *f = strstr(buf, "x86_Thread_features:");
		char *nl = f ? strchr(f, '\n') : NULL;
		if (nl)
			*nl = '\0';
		if (f && strstr(f, "shstk"))
			return 0;
	}
	cache = (void *)syscall(SYS_mmap, NULL, CACHE_SLOTS * sizeof(*cache),
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cache == MAP_FAILED) {
		cache = NULL;
		return 0;
	}
	usable = 1;
	return 1;
}

void
shadow_thread_start(void)
{
	struct shadow *s = &sh;

	if (s->state || usable != 1)
		return;
	s->state = -1;
	thread_stack(&s->lo, &s->hi);
	s->e = (void *)syscall(SYS_mmap, NULL, SHADOW_BYTES,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->e == MAP_FAILED) {
		s->e = NULL;
		return;
	}
	s->rev = (uintptr_t *)(s->e + SHADOW_MAX + SCRATCH_MAX);
	s->state = 1;
}

void
shadow_restore(void)
{
	struct shadow *s = &sh;
	uint32_t i;

	if (s->state != 1)
		return;
	for (i = s->n; i-- > 0;)
		if (*(volatile uintptr_t *)s->e[i].slot == TRAMP)
			*(volatile uintptr_t *)s->e[i].slot = s->e[i].ra;
	__atomic_store_n(&s->n, 0, __ATOMIC_RELAXED);
	s->ver++;
}

/*
 * Everything put back, and nothing replaced until resume(): the unwinder
 * called between may allocate before it walks (glibc's backtrace loads
 * libgcc_s at its first call).  Also before the thread's first event.
 */
static void
suspend(void)
{
	shadow_restore();
	sh.suspended++;
}

static void
resume(void)
{
	if (sh.suspended)
		sh.suspended--;
}

/*
 * Nothing replaced is left and nothing reads the shadow once it is off
 * (a trampoline pops nothing from an empty one): its memory goes back,
 * or a program that makes thread after thread would keep each one's.
 */
void
shadow_thread_end(void)
{
	struct shadow *s = &sh;

	shadow_restore();
	s->state = -1;
	if (s->e)
		syscall(SYS_munmap, s->e, SHADOW_BYTES);
	if (s->memo)
		syscall(SYS_munmap, s->memo, MEMO_SLOTS * sizeof(struct memo));
	s->e = NULL;
	s->rev = NULL;
	s->memo = NULL;
}

void
shadow_unpatched(void (*f)(void *), void *arg)
{
	struct shadow *s = &sh;
	uint32_t i;

	if (s->state != 1) {
		f(arg);
		return;
	}
	for (i = 0; i < s->n; i++)
		*(volatile uintptr_t *)s->e[i].slot = s->e[i].ra;
	f(arg);
	for (i = 0; i < s->n; i++)
		*(volatile uintptr_t *)s->e[i].slot = TRAMP;
}

/*
 * A signal stopped the trampoline at ip with the stack pointer at *sp:
 * the address it is taking the function that returned to, and *sp as
 * that function's caller will have it; 0 when not known.
 */
static uintptr_t
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
 * four frames does (13 ns against 3, here).  A thread whose frames mostly
 * return before its next event (short call chains made again each time)
 * only walks, and tries replacing again every 16 windows.
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

static int ours(uintptr_t ip);

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
 * Walks from the caller of this function.  Frames from the skip'th on go
 * to ips and, while new, to the scratch entries; the walk stops at a
 * replaced address, the outermost frame, or depth + 1 frames.  *hash is
 * the stack's (stack_hash) when the shadow knew it, else 0.  *idp, when
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
	uintptr_t ip, sp, bp, cfa, slot = 0, ra, top, last = 0;
	uintptr_t bpslot = MEMO_KEY_BP, usedbp = 0;	/* where bp was read from */
	uintptr_t kra = 0, ksp = 0, kbp = 0;
	uint32_t j = 0, nsh, nfresh = 0, i;
	int n = 0, k = 0, found = 0, end = 0, tramp = 0, limit = depth + 1;
	int nomemo = 0, exit_read = 0;
	uint64_t v, h;
	struct rules rules;

	*idp = NULL;
	if (s->state != 1 || s->suspended)
		return SHADOW_OFF;
	scratch = s->e + SHADOW_MAX;
	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
	    : "=r"(ip), "=r"(sp), "=r"(bp));
	top = on_stack(s, sp) ? s->hi : UINTPTR_MAX;
	s->captures++;
	*hash = 0;
	rules = rules_now();
	/*
	 * Our own frames (this, record() and the interposed function: skip
	 * of them) all keep frame pointers: up their rbp chain, no rule
	 * looked up, to the program's frame that called us.  Each return
	 * address but the last must be in our library, the last not in it;
	 * anything else (a replaced return of ours, see below; a build
	 * without frame pointers) and their rules walk them.
	 */
	for (ra = 0, slot = sp, cfa = bp, k = 0; k < skip; k++) {
		if (cfa < slot || cfa >= top - 16 || (cfa & 7))
			break;
		ra = *(const uintptr_t *)(cfa + 8);
		if (ra == 0 || ours(ra) != (k < skip - 1) || shadow_trampoline(ra))
			break;
		slot = cfa + 8;
		cfa = *(const uintptr_t *)cfa;
	}
	if (k == skip && skip > 0) {
		sp = slot + 8;
		bp = cfa;
		/* Not on the window's last capture: weigh() may end walk-only. */
		if (s->walk_only && s->memo && s->win_captures + 1 < WEIGH_WINDOW &&
		    top == s->hi) {
			struct memo *set = memo_set(s, ra, sp);
			for (i = 0; i < MEMO_WAYS; i++)
				if (set[i].ra == ra && set[i].sp == sp)
					break;
			/* The same start walked elsewhere now: kept over it. */
			m = &set[i < MEMO_WAYS ? i : s->memo_next++ % MEMO_WAYS];
			if (i < MEMO_WAYS && memo_holds(s, m, bp, rules.gen, limit)) {
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
			kra = ra;
			ksp = sp;
			kbp = bp;
		}
		v = 1;
		k--;
		goto have_frame;
	}
	k = 0;
	/* Our own frame's address is not a return address: the rule at it. */
	v = lookup(&rules, ip);
	for (;;) {
		if (__builtin_expect((v & (V_KIND | V_BP_LOST)) != 0, 0)) {
			if ((v & V_KIND) == K_END) {
				end = 1;
				break;
			}
			if ((v & V_KIND) == K_SIGNAL) {
				/* The handler returned here: the context is at sp. */
				nomemo = 1;
				const ucontext_t *uc = (const void *)sp;
				ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
				sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
				bp = (uintptr_t)uc->uc_mcontext.gregs[REG_RBP];
				top = on_stack(s, sp) ? s->hi : UINTPTR_MAX;
				slot = 0;	/* not a return address: never replaced */
				ra = ip;
				v = 0;
				goto have_frame;
			}
			if ((v & V_KIND) == K_UNSUP)
				goto fail;
		}
		if (v & V_CFA_BP) {
			if (!bp)
				goto fail;
			cfa = bp + (uintptr_t)(intptr_t)V_CFA_OFF(v);
			usedbp = bpslot;
		} else {
			cfa = sp + (uintptr_t)(intptr_t)V_CFA_OFF(v);
			usedbp = 0;
		}
		/* Frames go up the stack; a rule that says otherwise is wrong. */
		if (__builtin_expect(cfa <= sp || cfa > top, 0))
			goto fail;
		slot = cfa - 8;
		ra = *(const uintptr_t *)slot;
		if (v & V_BP_SAVED) {
			bpslot = cfa + (uintptr_t)(intptr_t)V_BP_OFF(v);
			bp = *(const uintptr_t *)bpslot;
		} else if (v & V_BP_LOST) {
			bp = 0;
			bpslot = 0;
		}
		sp = cfa;
		if (ra == TRAMP) {
			found = 1;
			exit_read = 1;
			break;
		}
		if (ra == 0) {
			end = 1;
			exit_read = 1;
			break;
		}
		v = 1;	/* a return address: the rule at the call */
have_frame:
		if (++k >= skip) {
			if (n == limit) {
				exit_read = 1;
				break;
			}
			ips[n++] = (void *)ra;
			if (nfresh < SCRATCH_MAX) {
				/* hash, unused in scratch: where the bp this
				   frame's CFA came from was read (MEMO_KEY_BP:
				   the key's), 0 when its CFA is not from bp */
				scratch[nfresh].slot = slot;
				scratch[nfresh].ra = ra;
				scratch[nfresh].bp = bp;
				scratch[nfresh].hash = usedbp;
				nfresh++;
			}
		}
		if (__builtin_expect(shadow_trampoline(ra), 0)) {
			/* A signal handler interrupted the trampoline: on from
			   where it goes, that frame never replaced. */
			if (!(ra = in_trampoline(s, ra, &sp))) {
				*nout = n;
				*truncated = 1;
				return SHADOW_OK;
			}
			slot = 0;
			v = 1;
			tramp = 1;
			goto have_frame;
		}
		v = lookup(&rules, v ? ra - 1 : ra);
	}
	nsh = s->n;
	h = STACK_SEED;
	if (found) {
		/* Entries below the slot are of frames that are gone. */
		for (j = nsh; j > 0 && s->e[j - 1].slot < slot; j--)
			;
		if (j == 0 || s->e[j - 1].slot != slot)
			goto fail;
		if (!tramp)
			nsh = j;
		/*
		 * The rest of the stack, as it was; less what is ours when the
		 * replaced address is that early (a signal handler walked
		 * record() before it took the busy flag, and replaced its
		 * return).
		 */
		if (k + 1 < skip) {
			if ((uint32_t)(skip - k - 1) >= j)
				goto fail;
			j -= (uint32_t)(skip - k - 1);
		}
		n = copy_shadow(s, j, ips, n, limit);
		if (s->outer_end && n <= depth)
			h = s->e[j - 1].hash;
		else
			h = 0;
		if (n < limit && !s->outer_end) {
			n = walk_on(s, ips, n, limit);
			nomemo = 1;	/* its reads are not kept */
		}
	} else {
		/* Every live frame up to here was walked: entries at or below
		   the last slot walked are of frames that are gone. */
		last = nfresh ? scratch[nfresh - 1].slot : sp;
		while (nsh > 0 && s->e[nsh - 1].slot <= last)
			nsh--;
		if (!end)
			h = 0;
	}
	*truncated = n > depth;
	if (n > depth)
		n = depth;
	*nout = n;
	/* Through a trampoline that a signal interrupted: the shadow is
	   its, as it was (the entry it is popping is still needed). */
	if (tramp)
		return SHADOW_OK;
	/*
	 * Replace the new frames' return addresses, outermost first, and
	 * stop at the first that cannot be: a frame kept must never have
	 * one not kept outside it, or a later capture would skip that one.
	 */
	if (nsh == 0)
		s->outer_end = end && !found;
	weigh(s, (uint32_t)n > nfresh ? (uint32_t)n - nfresh : 0);
	for (i = nfresh; i-- > 0;) {
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
	if (h && nfresh == (uint32_t)(*nout) - (uint32_t)(found ? j : 0) && !*truncated)
		*hash = stack_final(h, *nout, 0);
	if (kra && !nomemo && *nout <= MEMO_FRAMES && nfresh <= (uint32_t)*nout + 1) {
		/*
		 * The key frame (scratch[0]) was not read: it is the key.  A
		 * frame pointer read counts only where a CFA came from it
		 * (code without frame pointers keeps anything in rbp); the
		 * bp a frame's CFA came from is the one after the frame below.
		 * The read that ended the walk, if one did, is kept too.
		 */
		uint32_t r = 0;
		m->need_bp = 0;
		for (i = 1; i < nfresh; i++)
			r = memo_frame(m, r, scratch[i].slot, scratch[i].ra, scratch[i].hash,
			    scratch[i - 1].bp);
		if (exit_read)
			r = memo_frame(m, r, slot, ra, usedbp, scratch[nfresh - 1].bp);
		m->nreads = (uint16_t)r;
		m->ra = kra;
		m->sp = ksp;
		m->bp = kbp;
		m->gen = rules.gen;
		m->limit = (uint16_t)limit;
		m->hash = *hash;
		m->id = 0;
		m->last = last;		/* 0 when found */
		m->tramp_slot = found ? slot : 0;
		m->j = j;		/* 0 unless found */
		m->ver = s->ver;
		m->copied = (uint32_t)n > nfresh ? (uint32_t)n - nfresh : 0;
		m->n = (uint16_t)*nout;
		m->truncated = (uint8_t)*truncated;
		memcpy(m->ips, ips, (size_t)*nout * sizeof(*ips));
		*idp = &m->id;
	}
	return SHADOW_OK;
fail:
	s->fails++;
	shadow_restore();
	/* A thread whose frames this cannot walk: libunwind from now on. */
	if (s->fails > 64 && s->fails > s->captures / 16)
		s->state = -1;
	return SHADOW_FAIL;
}

/* ---- Other unwinders see the real addresses ---- */

/* Declared by no header we include, or with types we need not. */
int _Unwind_RaiseException(void *);
void _Unwind_Resume(void *) __attribute__((noreturn));
int _Unwind_Resume_or_Rethrow(void *);
int _Unwind_ForcedUnwind(void *, void *, void *);
int _Unwind_Backtrace(void *, void *);
int backtrace(void **, int);
int _ULx86_64_init_local(void *, void *);
int _ULx86_64_init_local2(void *, void *, int);
int unw_backtrace(void **, int);

/* Our own frame in what another unwinder reports: libmt-preload's code. */
static int
ours(uintptr_t ip)
{
	static uintptr_t lo, hi;
	struct dl_find_object fo;

	if (!hi && _dl_find_object((void *)ours, &fo) == 0) {
		lo = (uintptr_t)fo.dlfo_map_start;
		hi = (uintptr_t)fo.dlfo_map_end;
	}
	return ip - lo < hi - lo;
}

/* Called by libunwind itself (our own captures use it): not the program's. */
#define FROM_UNWINDER() ((uintptr_t)__builtin_return_address(0) - unwinder_lo < \
	unwinder_hi - unwinder_lo)

EXPORT int
_Unwind_RaiseException(void *e)
{
	static int (*real)(void *);

	RESOLVE(real, "_Unwind_RaiseException");
	shadow_restore();
	return real(e);
}

EXPORT void
_Unwind_Resume(void *e)
{
	static void (*real)(void *);

	RESOLVE(real, "_Unwind_Resume");
	shadow_restore();
	real(e);
	__builtin_unreachable();
}

EXPORT int
_Unwind_Resume_or_Rethrow(void *e)
{
	static int (*real)(void *);

	RESOLVE(real, "_Unwind_Resume_or_Rethrow");
	shadow_restore();
	return real(e);
}

EXPORT int
_Unwind_ForcedUnwind(void *e, void *stop, void *arg)
{
	static int (*real)(void *, void *, void *);

	RESOLVE(real, "_Unwind_ForcedUnwind");
	shadow_restore();
	return real(e, stop, arg);
}

/*
 * The calls that walk and return: suspended around them, our frame left
 * out of what they report (the program sees what it would without us).
 */
struct walk_cb {
	int (*fn)(void *, void *);
	void *arg;
};

static int
walk_cb(void *ctx, void *arg)
{
	static uintptr_t (*get_ip)(void *);
	struct walk_cb *w = arg;

	RESOLVE(get_ip, "_Unwind_GetIP");
	if (get_ip && ours(get_ip(ctx)))
		return 0;	/* _URC_NO_REASON: on to the next frame */
	return w->fn(ctx, w->arg);
}

EXPORT int
_Unwind_Backtrace(void *fn, void *arg)
{
	static int (*real)(void *, void *);
	struct walk_cb w = { (int (*)(void *, void *))fn, arg };
	int r;

	RESOLVE(real, "_Unwind_Backtrace");
	if (FROM_UNWINDER())
		return real(fn, arg);
	suspend();
	r = real((void *)walk_cb, &w);
	resume();
	return r;
}

/* backtrace(3) and unw_backtrace: one more frame asked for, ours dropped. */
#define WALK_MAX 1024
static int
walk_into(int (*real)(void **, int), void **buf, int size)
{
	void *tmp[WALK_MAX + 1];
	int n, i;

	suspend();
	n = real(tmp, size + 1);
	resume();
	for (i = 0; i < n && ours((uintptr_t)tmp[i]); i++)
		;
	if (n - i > size)
		n = size + i;
	memcpy(buf, tmp + i, (size_t)(n - i) * sizeof(void *));
	return n - i;
}

EXPORT int
backtrace(void **buf, int size)
{
	static int (*real)(void **, int);

	RESOLVE(real, "backtrace");
	if (size <= 0 || size > WALK_MAX) {
		shadow_restore();
		return real(buf, size);
	}
	return walk_into(real, buf, size);
}

EXPORT int
unw_backtrace(void **buf, int size)
{
	static int (*real)(void **, int);

	RESOLVE(real, "unw_backtrace");
	if (FROM_UNWINDER() || size <= 0 || size > WALK_MAX) {
		if (!FROM_UNWINDER())
			shadow_restore();
		return real(buf, size);
	}
	return walk_into(real, buf, size);
}

EXPORT void
pthread_exit(void *ret)
{
	static void (*real)(void *);

	RESOLVE(real, "pthread_exit");
	/* Its forced unwind runs cleanups that may allocate: off for good. */
	shadow_thread_end();
	real(ret);
	__builtin_unreachable();
}

EXPORT int
swapcontext(ucontext_t *from, const ucontext_t *to)
{
	static int (*real)(ucontext_t *, const ucontext_t *);

	RESOLVE(real, "swapcontext");
	shadow_restore();
	return real(from, to);
}

EXPORT int
setcontext(const ucontext_t *to)
{
	static int (*real)(const ucontext_t *);

	RESOLVE(real, "setcontext");
	shadow_restore();
	return real(to);
}

/* A program's own libunwind: its cursor then walks the real addresses. */
EXPORT int
_ULx86_64_init_local(void *cursor, void *context)
{
	static int (*real)(void *, void *);

	RESOLVE(real, "_ULx86_64_init_local");
	if (!FROM_UNWINDER())
		shadow_restore();
	return real(cursor, context);
}

EXPORT int
_ULx86_64_init_local2(void *cursor, void *context, int flag)
{
	static int (*real)(void *, void *, int);

	RESOLVE(real, "_ULx86_64_init_local2");
	if (!FROM_UNWINDER())
		shadow_restore();
	return real(cursor, context, flag);
}

#else	/* not x86-64: libunwind only */

int shadow_usable(void) { return 0; }
void shadow_thread_start(void) { }
void shadow_thread_end(void) { }
int shadow_capture(void **ips, int depth, int skip, int *n, int *t, uint64_t *h)
{
	(void)ips; (void)depth; (void)skip; (void)n; (void)t; (void)h;
	return SHADOW_OFF;
}
void shadow_restore(void) { }
void shadow_unpatched(void (*f)(void *), void *arg) { f(arg); }
void shadow_modules_changed(void) { }
int shadow_trampoline(uintptr_t ip) { (void)ip; return 0; }

#endif
