/*
 * The modules the recorder symbolizes by: every executable segment with
 * its file and build-id, sent once, at the start and after each dlopen.
 * dlclose, interposed, drops what the unwinders cached by address.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
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
		m.ts = now();
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

void
send_modules(void)
{
	pthread_mutex_lock(&maps_lock);
	dl_iterate_phdr(send_module, NULL);
	pthread_mutex_unlock(&maps_lock);
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
		send_modules();
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
