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
 *   points of unwinders.c.  A capture that meets a frame it cannot walk (an
 *   expression rule, JIT code) puts them back too, and the caller
 *   unwinds that event with libunwind.
 * - Putting back can race with the trampoline only in a signal handler
 *   that interrupted it: the trampoline then takes the address from its
 *   slot, where it was put back, and leaves the count as it was made.
 * - A CET shadow stack (a kernel and glibc that enable it) rejects a
 *   replaced return: not used there (shadow_usable).
 *
 * This file holds a thread's shadow and the trampoline's C half; the
 * capture is capture.c, the frame rules cfi.c, the other unwinders
 * unwinders.c.
 */
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cfi.h"
#include "shadow.h"
#include "shadow_state.h"

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

#if defined(__x86_64__) && !defined(MT_GENERIC)

__thread struct shadow sh __attribute__((tls_model("initial-exec")));
uintptr_t self_lo, self_hi;

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

int
shadow_trampoline(uintptr_t ip)
{
	return in_trampoline_code(ip);
}

void
shadow_modules_changed(void)
{
	cfi_modules_changed();
}

void
self_find(void)
{
	struct dl_find_object fo;

	if (_dl_find_object((void *)self_find, &fo) == 0) {
		self_lo = (uintptr_t)fo.dlfo_map_start;
		self_hi = (uintptr_t)fo.dlfo_map_end;
	}
}

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
	if (cfi_cache_init() < 0)
		return 0;
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
void
suspend(void)
{
	shadow_restore();
	sh.suspended++;
}

void
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

#else	/* libunwind only */

int shadow_usable(void) { return 0; }
void shadow_thread_start(void) { }
void shadow_thread_end(void) { }
int
shadow_capture(void **ips, int depth, int skip, int *n, int *truncated, uint64_t *hash,
    uint32_t epoch, uint64_t **idp)
{
	*idp = NULL;
	return SHADOW_OFF;
}
void shadow_restore(void) { }
void shadow_unpatched(void (*f)(void *), void *arg) { f(arg); }
void shadow_modules_changed(void) { }
int shadow_trampoline(uintptr_t ip) { return 0; }

#endif
