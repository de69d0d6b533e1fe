/*
 * umods: the files whose code the processes mt-record --uprobes records
 * run, read for their call frame information when a copied stack
 * (--unwind dwarf) is unwound through them, and judged on whether they
 * keep frame pointers.  The files are the traced process's: not trusted.
 */

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "ehframe.h"
#include "uprobes.h"

/* The most of a file read for its frame information. */
#define IMAGE_MAX (256u << 20)

/* n bytes of fd at off, read whole into a new buffer; NULL if it cannot be. */
static uint8_t *
read_at(int fd, uint64_t off, uint64_t n)
{
	uint8_t *b;

	if (n == 0 || n > IMAGE_MAX || !(b = malloc(n)))
		return NULL;
	if (pread(fd, b, n, (off_t)off) != (ssize_t)n) {
		free(b);
		return NULL;
	}
	return b;
}

/*
 * A file with no .eh_frame_hdr (a static program): its .eh_frame
 * section, found by name, read and indexed.
 */
static void
index_eh_frame(struct umod *m, int fd, const Elf64_Ehdr *eh)
{
	Elf64_Shdr *sh;
	char *names = NULL;
	uint64_t i;

	if (eh->e_shentsize != sizeof(*sh) || eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum ||
	    !(sh = (Elf64_Shdr *)read_at(fd, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh))))
		return;
	if (sh[eh->e_shstrndx].sh_size < 65536)
		names = (char *)read_at(fd, sh[eh->e_shstrndx].sh_offset, sh[eh->e_shstrndx].sh_size);
	for (i = 0; names && i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_PROGBITS &&
		    sh[i].sh_name < sh[eh->e_shstrndx].sh_size - sizeof(".eh_frame") + 1 &&
		    sh[eh->e_shstrndx].sh_size >= sizeof(".eh_frame") &&
		    !memcmp(names + sh[i].sh_name, ".eh_frame", sizeof(".eh_frame")) &&
		    (m->base = read_at(fd, sh[i].sh_offset, sh[i].sh_size))) {
			m->size = sh[i].sh_size;
			m->im.lo = m->base;
			m->im.hi = m->base + m->size;
			m->im.bias = (uintptr_t)sh[i].sh_addr - (uintptr_t)m->base;
			eh_index(&m->im, m->base, m->size);
			break;
		}
	free(names);
	free(sh);
}

/*
 * A file's frame information read: its PT_LOAD segments, and the
 * segment that holds its .eh_frame_hdr (and .eh_frame), copied (a
 * mapping of a file its owner may truncate would fault).  -1 when it
 * cannot be read; no frame information is not a failure.
 */
static int
map_file(struct umod *m, const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL, *hdr = NULL, *seg = NULL;
	uint64_t i;
	int fd;

	/* Not blocked by a FIFO put where the file was. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(*ph) || eh.e_phnum == 0 ||
	    !(ph = (Elf64_Phdr *)read_at(fd, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(*ph)))) {
		close(fd);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && m->nsegs < UMOD_SEGS) {
			m->segs[m->nsegs].off = ph[i].p_offset;
			m->segs[m->nsegs].vaddr = ph[i].p_vaddr;
			m->segs[m->nsegs++].size = ph[i].p_filesz;
		} else if (ph[i].p_type == PT_GNU_EH_FRAME) {
			hdr = &ph[i];
		}
	for (i = 0; hdr && i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && hdr->p_offset >= ph[i].p_offset &&
		    hdr->p_offset - ph[i].p_offset < ph[i].p_filesz)
			seg = &ph[i];
	if (seg && (m->base = read_at(fd, seg->p_offset, seg->p_filesz))) {
		m->size = seg->p_filesz;
		m->im.lo = m->base;
		m->im.hi = m->base + m->size;
		m->im.hdr = m->base + (hdr->p_offset - seg->p_offset);
		/* A byte at base + o is at the module's address p_vaddr + o. */
		m->im.bias = (uintptr_t)seg->p_vaddr - (uintptr_t)m->base;
	} else {
		index_eh_frame(m, fd, &eh);
	}
	free(ph);
	close(fd);
	return 0;
}

/*
 * A module's image, its file read once: through the mapping's own link
 * in /proc (the very file mapped, in whatever mount namespace, even
 * deleted: a library upgraded under a running program), else by its
 * path under the process's root, unless it was deleted (another file
 * may be there now).
 */
struct umod *
mod_image(struct usource *u, struct uproc *p, const struct umap *mp)
{
	struct umod *m = &u->mods[mp->mod];
	char path[PATH_MAX + 64];
	size_t n;

	if (m->opened)
		return m->opened > 0 ? m : NULL;
	m->opened = -1;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)p->pid,
	    (unsigned long long)mp->lo, (unsigned long long)mp->hi);
	if (map_file(m, path) < 0) {
		n = strlen(m->path);
		if (n > 10 && !strcmp(m->path + n - 10, " (deleted)"))
			return NULL;
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->pid, m->path);
		if (map_file(m, path) < 0 && map_file(m, m->path) < 0)
			return NULL;
	}
	m->opened = 1;
	return m;
}

/* The module of a file named in a map line: its index, made when new. */
int
umod_of(struct usource *u, const char *path)
{
	size_t i;

	if (path[0] != '/')
		return -1;	/* [vdso], [anon:exec]: no file to read */
	for (i = 0; i < u->nmods; i++)
		if (!strcmp(u->mods[i].path, path))
			return (int)i;
	u->mods = egrow(u->mods, u->nmods, &u->modcap, sizeof(*u->mods));
	memset(&u->mods[u->nmods], 0, sizeof(u->mods[0]));
	u->mods[u->nmods].path = estrdup(path);
	return (int)u->nmods++;
}

void
umods_free(struct usource *u)
{
	size_t i;

	for (i = 0; i < u->nmods; i++) {
		free(u->mods[i].base);
		free(u->mods[i].im.tab);
		free(u->mods[i].path);
	}
	free(u->mods);
	u->mods = NULL;
	u->nmods = u->modcap = 0;
	u64map_free(&u->rules, NULL);
}

/*
 * Whether a program keeps frame pointers: most of the functions its
 * frame information covers (a sample of 256) have, halfway through, their
 * CFA at rbp, the frame pointer's.  A file with no such information (Go's)
 * is taken to keep them.
 */
int
keeps_frame_pointers(const char *path)
{
	struct umod m = { 0 };
	uint64_t i, count, step, with = 0, seen = 0, v;
	uintptr_t a, b;

	if (map_file(&m, path) < 0)
		return 1;
	count = eh_functions(&m.im);
	step = count / 256 + 1;
	for (i = 0; i + 1 < count; i += step) {
		a = eh_function(&m.im, i);
		b = eh_function(&m.im, i + 1);
		/* _start, a PLT: not functions of the program's to judge by. */
		if (b <= a + 1 || (v = eh_rule(&m.im, a + (b - a) / 2)) & V_KIND)
			continue;
		seen++;
		with += (v & V_CFA_BP) != 0;
	}
	free(m.base);
	free(m.im.tab);
	return seen == 0 || with * 2 > seen;
}
