/*
 * The mmap family, interposed: anonymous mappings are the program's
 * other heap (the VirtualAlloc analogue), and a fixed mapping, an unmap
 * or a remap changes what an address is; the recorder decides what each
 * means.  Also pipe2, for libunwind's pipe.
 */
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload.h"

/* libunwind maps memory for its caches while we unwind: not the program's. */
#define OURS() ((uintptr_t)__builtin_return_address(0) - unwinder_lo < \
	unwinder_hi - unwinder_lo)

/*
 * libunwind validates addresses by writing a byte from them into a pipe
 * it keeps (and makes again when it finds it closed): that pipe goes high
 * too, or libunwind would read and write the program's own descriptors
 * once the program has closed its numbers and reused them.
 */
EXPORT int
pipe2(int fds[2], int flags)
{
	int ret = (int)syscall(SYS_pipe2, fds, flags);

	if (ret == 0 && OURS()) {
		fds[0] = fd_high(fds[0], 16);
		fds[1] = fd_high(fds[1], 16);
	}
	return ret;
}

/*
 * Before a call that frees or replaces address space: what we would map
 * lazily after it (the thread's ring, libunwind's caches) is mapped first,
 * so that none of it can be in the range the program maps over next.
 */
static void
ready_before_unmap(void)
{
	struct thread_state *t = &tls;
	void *ips[4];
	sigset_t old;

	if (t->ring || t->busy || connection_lost)
		return;
	own_begin(&old);
	t->busy = 2;
	if (ring_open(t) == 0)
		(void)libunwind_backtrace(ips, 4);
	t->busy = 0;
	own_end(&old);
}

EXPORT void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if ((flags & MAP_FIXED) && recording && !OURS())
		ready_before_unmap();
	p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);

	if (p != MAP_FAILED && recording && !OURS()) {
		int anon = raw_anon_private(flags);
		/* A fixed mapping of anything replaces what was there. */
		if (anon || (flags & MAP_FIXED)) {
			struct mt_raw r = RAW(RAW_MMAP,
			    anon ? raw_heap_of_prot(prot) : RAW_HEAP_NONE, p, len);
			if (anon && (prot & PROT_EXEC))
				r.flags = RAW_EXEC;
			record(&r, NULL, 1);
		}
	}
	return p;
}

/* The same function under its large-file name; some programs call that. */
EXPORT void *mmap64(void *, size_t, int, int, int, off_t) __attribute__((alias("mmap")));

EXPORT int
munmap(void *addr, size_t len)
{
	int mine = recording && !OURS();
	uint64_t t0;
	int ret;

	if (mine)
		ready_before_unmap();
	t0 = mine ? now() : 0;
	ret = (int)syscall(SYS_munmap, addr, len);

	if (ret == 0 && mine) {
		struct mt_raw r = RAW(RAW_MUNMAP, RAW_HEAP_NONE, addr, len);
		r.ts = t0;
		record(&r, NULL, free_stacks);
	}
	return ret;
}

EXPORT void *
mremap(void *old, size_t oldlen, size_t newlen, int flags, ...)
{
	int mine = recording && !OURS();
	uint64_t t0;
	void *newaddr = NULL, *p;
	va_list ap;

	if (mine)
		ready_before_unmap();
	t0 = mine ? now() : 0;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		newaddr = va_arg(ap, void *);
		va_end(ap);
	}
	p = (void *)syscall(SYS_mremap, old, oldlen, newlen, flags, newaddr);
	if (p != MAP_FAILED && mine) {
		struct mt_raw from = RAW(RAW_MREMAP_FROM, RAW_HEAP_NONE, old, oldlen);
		struct mt_raw to = RAW(RAW_MREMAP_TO, RAW_HEAP_NONE, p, newlen);
		from.ts = to.ts = t0;
		record(&to, &from, 1);
	}
	return p;
}

EXPORT int
mprotect(void *addr, size_t len, int prot)
{
	int mine = recording && !OURS();
	uint64_t t0 = mine ? now() : 0;
	int ret = (int)syscall(SYS_mprotect, addr, len, prot);

	if (ret == 0 && mine) {
		struct mt_raw r = RAW(RAW_MPROTECT, (uint8_t)raw_heap_of_prot(prot), addr, len);
		if (prot & PROT_EXEC)
			r.flags = RAW_EXEC;
		r.ts = t0;
		record(&r, NULL, 1);
	}
	return ret;
}
