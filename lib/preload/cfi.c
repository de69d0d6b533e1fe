/*
 * The frame rules of the modules loaded in this process, by the
 * interpreter of ehframe.c, and the cache of them by address (cfi.h).
 */
#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cfi.h"

#if defined(__x86_64__) && !defined(MT_GENERIC)

struct cfi_cache_ent *cfi_cache;
uint64_t cfi_gen = 1;

/* The packed rule of pc, by the frame information of the module that
   holds it, as the dynamic linker finds it. */
uint64_t
cfi_rule(uintptr_t pc)
{
	struct dl_find_object fo;
	struct eh_image im;

	if (_dl_find_object((void *)pc, &fo) != 0 || !fo.dlfo_eh_frame)
		return K_UNSUP;
	/* The module is ours to read, loaded: its bytes are where they say. */
	im.hdr = fo.dlfo_eh_frame;
	im.lo = NULL;
	im.hi = (const uint8_t *)UINTPTR_MAX;
	im.bias = 0;
	im.tab = NULL;
	im.ntab = 0;
	return eh_rule(&im, pc);
}

int
cfi_cache_init(void)
{
	void *p = (void *)syscall(SYS_mmap, NULL, CFI_CACHE_SLOTS * sizeof(*cfi_cache),
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	cfi_cache = p;
	return 0;
}

void
cfi_modules_changed(void)
{
	__atomic_fetch_add(&cfi_gen, 1, __ATOMIC_RELAXED);
}

#endif
