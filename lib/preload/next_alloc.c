/*
 * The allocator the interposed functions pass calls on to: glibc's,
 * unless another is preloaded after us (jemalloc, tcmalloc, mimalloc),
 * when it is the next definition in the lookup order, as the program
 * would have called without us.
 */
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include "attach.h"
#include "preload.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);

/*
 * Another allocator's whole family, or glibc's: glibc's inner functions
 * with another's malloc_usable_size crash.  Found at the first call,
 * whoever makes it; one not given by the other allocator is made from
 * its memalign.
 */
#define GLIBC_ALLOC { __libc_malloc, __libc_calloc, __libc_realloc, __libc_free, \
	__libc_memalign, __libc_valloc, __libc_pvalloc }
static const struct alloc_fns glibc_alloc = GLIBC_ALLOC;
struct alloc_fns next_alloc = GLIBC_ALLOC;
int next_found;
const char *other_allocator;

/*
 * Where the allocator we pass calls on to is looked up: after us in the
 * lookup order, or when attached (loaded by dlopen, outside the global
 * scope) the program's own definition (attach.c).  Everything else is
 * after us either way: libc's, or libunwind's, our dependency.
 */
void *
next_sym(const char *name)
{
	return attached ? got_definition(name, self_base()) : dlsym(RTLD_NEXT, name);
}

static void *
valloc_of_memalign(size_t n)
{
	return next_alloc.memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

static void *
pvalloc_of_memalign(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return next_alloc.memalign(pg, (n + pg - 1) & ~(pg - 1));
}

void
find_next_alloc(void)
{
	Dl_info info, libc;
	void *m;

	next_found = 1;
	m = next_sym("malloc");
	/* tcmalloc gives glibc's inner names too: by its file, then. */
	if (m && dladdr(m, &info) && info.dli_fname &&
	    dladdr((void *)getpid, &libc) && libc.dli_fname &&
	    strcmp(info.dli_fname, libc.dli_fname) != 0)
		other_allocator = info.dli_fname;
	if (!m || m == (void *)__libc_malloc)
		return;
	*(void **)&next_alloc.malloc = m;
	*(void **)&next_alloc.free = next_sym("free");
	*(void **)&next_alloc.calloc = next_sym("calloc");
	*(void **)&next_alloc.realloc = next_sym("realloc");
	*(void **)&next_alloc.memalign = next_sym("memalign");
	*(void **)&next_alloc.valloc = next_sym("valloc");
	*(void **)&next_alloc.pvalloc = next_sym("pvalloc");
	if (!next_alloc.free || !next_alloc.calloc || !next_alloc.realloc ||
	    !next_alloc.memalign) {
		/* Half an allocator: glibc's whole is safer. */
		other_allocator = NULL;
		next_alloc = glibc_alloc;
		return;
	}
	if (!next_alloc.valloc)
		next_alloc.valloc = valloc_of_memalign;
	if (!next_alloc.pvalloc)
		next_alloc.pvalloc = pvalloc_of_memalign;
}
