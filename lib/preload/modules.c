/*
 * The modules the recorder symbolizes by: every executable segment with
 * its file and build-id, sent once, at the start and after each dlopen.
 * dlclose, interposed, drops what the unwinders cached by address.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "preload.h"
#include "shadow.h"

#define MAPS_MAX 4096

static uintptr_t maps_sent[MAPS_MAX];
static unsigned nmaps_sent;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
/* The loader's count of modules loaded, as of our last walk of them. */
static unsigned long long adds_walked;
static void *(*real_dlopen)(const char *, int);

static size_t
build_id_hex(const struct dl_phdr_info *info, char *out, size_t cap)
{
	static const char digits[] = "0123456789abcdef";
	const ElfW(Phdr) *ph;
	const char *p, *end;
	size_t i, n = 0;
	int k;

	for (k = 0; k < info->dlpi_phnum; k++) {
		ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const void *)p;
			const char *name = p + sizeof(*nh);
			const unsigned char *desc = (const unsigned char *)name +
			    ((nh->n_namesz + 3) & ~3u);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && nh->n_descsz * 2 < cap) {
				for (i = 0; i < nh->n_descsz; i++) {
					out[n++] = digits[desc[i] >> 4];
					out[n++] = digits[desc[i] & 15];
				}
				out[n] = '\0';
				return n;
			}
			p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
		}
	}
	out[0] = '\0';
	return 0;
}

static int
send_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	char buf[4096 + 128], *path = buf + 128;
	const char *name = info->dlpi_name;
	struct mt_msg m = { .type = MSG_MAP };
	const uint64_t *at = arg;
	const ElfW(Phdr) *ph;
	unsigned j;
	size_t blen, plen;
	ssize_t n;
	int k;

	(void)size;
	(void)arg;
	for (k = 0; k < info->dlpi_phnum; k++) {
		ph = &info->dlpi_phdr[k];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		m.lo = info->dlpi_addr + ph->p_vaddr;
		for (j = 0; j < nmaps_sent; j++)
			if (maps_sent[j] == m.lo)
				break;
		if (j < nmaps_sent)
			continue;
		if (nmaps_sent < MAPS_MAX)
			maps_sent[nmaps_sent++] = m.lo;
		m.hi = m.lo + ph->p_memsz;
		m.off = ph->p_offset;
		m.pid = getpid();
		m.ts = *at ? *at : now();
		blen = build_id_hex(info, buf, 128);
		if (!name || !*name) {
			n = readlink("/proc/self/exe", path, 4095);
			plen = n > 0 ? (size_t)n : 0;
		} else if (strncmp(name, "linux-vdso", 10) == 0) {
			plen = 6;
			memcpy(path, "[vdso]", plen);
		} else {
			plen = strnlen(name, 4095);
			memcpy(path, name, plen);
		}
		path[plen] = '\0';
		memmove(buf + blen + 1, path, plen + 1);
		send_msg(&m, buf, blen + 1 + plen, -1);
	}
	return 0;
}

/* The loader's count of the modules it has loaded so far. */
static int
peek_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(info->dlpi_adds))
		*(unsigned long long *)arg = info->dlpi_adds;
	return 1;
}

/* The modules not sent yet, at time ts (0: now). */
void
send_modules(uint64_t ts)
{
	unsigned long long adds = 0;

	pthread_mutex_lock(&maps_lock);
	dl_iterate_phdr(peek_adds, &adds);
	dl_iterate_phdr(send_module, &ts);
	__atomic_store_n(&adds_walked, adds, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&maps_lock);
}

/*
 * A new stack was made: the modules the C library loaded by itself
 * (NSS's, iconv's gconv) come by no dlopen of ours, so the loader's
 * count says whether one came since the last walk.  Sent at ts, the
 * event's time, so that its map line comes before the stack.
 */
void
modules_check(uint64_t ts)
{
	unsigned long long adds = 0;

	dl_iterate_phdr(peek_adds, &adds);
	if (adds != __atomic_load_n(&adds_walked, __ATOMIC_RELAXED))
		send_modules(ts);
}

/*
 * Another thread may have held the lock, or the loader's, at a fork: the
 * child does not walk its modules.  The recorder gives it its parent's,
 * and maps_sent, inherited, stays right.
 */
void
modules_forked(void)
{
	pthread_mutex_init(&maps_lock, NULL);
}

EXPORT void *
dlopen(const char *file, int mode)
{
	void *h;

	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	h = real_dlopen(file, mode);
	if (h && recording) {
		if (attached)
			patch_gots();
		send_modules(0);
	}
	return h;
}

/*
 * A module unloaded: another may come where it was, so the shadow
 * stack's rules cached by address are dropped, and libunwind's address
 * space cache.  Not its per-thread trace cache, which nothing flushes:
 * libunwind can still walk a module loaded where another was by the old
 * one's rules.
 */
EXPORT int
dlclose(void *h)
{
	static int (*real_dlclose)(void *);
	int r;

	RESOLVE(real_dlclose, "dlclose");
	r = real_dlclose(h);
	if (r == 0) {
		unw_flush_cache(unw_local_addr_space, 0, 0);
		shadow_modules_changed();
	}
	return r;
}

/* Before the program's first call, while what dlsym allocates is ours. */
void
modules_resolve(void)
{
	RESOLVE(real_dlopen, "dlopen");
}
