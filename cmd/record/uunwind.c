/*
 * uunwind: the stacks mt-record --uprobes takes by copy (--unwind
 * dwarf): a process's registers and the top of its stack, copied by the
 * BPF program at the event, unwound here by each module's call frame
 * information, the words the rules name read from the copy.  It is what
 * perf's --call-graph dwarf does, by the interpreter the preload
 * library's own walk uses (lib/ehframe.c), its rules cached by address.
 * Whether a program keeps frame pointers, and so needs no copy, is
 * judged here too.  The files are the traced process's: not trusted.
 */

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"
#include "ehframe.h"
#include "uprobes.h"
#include "bpf/ualloc.h"

/*
 * A file with no .eh_frame_hdr (a static program): its .eh_frame
 * section, found by name, indexed.
 */
static void
index_eh_frame(struct umod *m, const Elf64_Ehdr *eh)
{
	const Elf64_Shdr *sh, *names;
	uint64_t i;

	if (eh->e_shentsize != sizeof(*sh) || eh->e_shoff > m->size ||
	    eh->e_shnum > (m->size - eh->e_shoff) / sizeof(*sh) || eh->e_shstrndx >= eh->e_shnum)
		return;
	sh = (const void *)(m->base + eh->e_shoff);
	names = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++)
		if (names->sh_offset < m->size && sh[i].sh_name < m->size - names->sh_offset &&
		    m->size - names->sh_offset - sh[i].sh_name > sizeof(".eh_frame") - 1 &&
		    !memcmp(m->base + names->sh_offset + sh[i].sh_name, ".eh_frame",
		    sizeof(".eh_frame")) && sh[i].sh_type == SHT_PROGBITS &&
		    sh[i].sh_offset < m->size && sh[i].sh_size <= m->size - sh[i].sh_offset) {
			m->im.bias = (uintptr_t)sh[i].sh_addr - sh[i].sh_offset - (uintptr_t)m->base;
			eh_index(&m->im, m->base + sh[i].sh_offset, sh[i].sh_size);
			return;
		}
}

/* A file's PT_LOAD segments and its .eh_frame_hdr, read from its mapping. */
static void
parse_image(struct umod *m)
{
	const Elf64_Ehdr *eh = (const void *)m->base;
	const Elf64_Phdr *ph;
	uint64_t i;

	if (m->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(*ph) ||
	    eh->e_phoff > m->size || eh->e_phnum > (m->size - eh->e_phoff) / sizeof(*ph))
		return;
	for (i = 0; i < eh->e_phnum; i++) {
		ph = (const void *)(m->base + eh->e_phoff + i * sizeof(*ph));
		if (ph->p_type == PT_LOAD && m->nsegs < UMOD_SEGS) {
			m->segs[m->nsegs].off = ph->p_offset;
			m->segs[m->nsegs].vaddr = ph->p_vaddr;
			m->segs[m->nsegs++].size = ph->p_filesz;
		} else if (ph->p_type == PT_GNU_EH_FRAME && ph->p_offset < m->size) {
			m->im.hdr = m->base + ph->p_offset;
			/* A byte at base + o is at vaddr p_vaddr + (o - p_offset). */
			m->im.bias = (uintptr_t)ph->p_vaddr - ph->p_offset - (uintptr_t)m->base;
		}
	}
	m->im.lo = m->base;
	m->im.hi = m->base + m->size;
	if (!m->im.hdr)
		index_eh_frame(m, eh);
}

/* path mapped read-only into m, and parsed; -1 when it cannot be. */
static int
map_file(struct umod *m, const char *path)
{
	struct stat st;
	void *base;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	close(fd);
	m->base = base;
	m->size = (size_t)st.st_size;
	parse_image(m);
	return 0;
}

/*
 * A module's image, its file mapped once.  The file is looked for under
 * the process's root first: a container's files are its own.
 */
static struct umod *
mod_image(struct urec *u, struct uproc *p, int k)
{
	struct umod *m = &u->mods[k];
	char path[PATH_MAX + 64];

	if (m->opened)
		return m->base ? m : NULL;
	m->opened = 1;
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)p->pid, m->path);
	if (map_file(m, path) < 0 && map_file(m, m->path) < 0)
		return NULL;
	return m;
}

/* The module of a file named in a map line: its index, made when new. */
int
umod_of(struct urec *u, const char *path)
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
umods_free(struct urec *u)
{
	size_t i;

	for (i = 0; i < u->nmods; i++) {
		if (u->mods[i].base)
			munmap(u->mods[i].base, u->mods[i].size);
		free(u->mods[i].im.tab);
		free(u->mods[i].path);
	}
	free(u->mods);
	u->mods = NULL;
	u->nmods = u->modcap = 0;
	u64map_free(&u->rules, NULL);
}

/* A file offset's address in the module's own terms (its segments'); 0 if in none. */
static uint64_t
vaddr_of(const struct umod *m, uint64_t off)
{
	size_t i;

	for (i = 0; i < m->nsegs; i++)
		if (off >= m->segs[i].off && off - m->segs[i].off < m->segs[i].size)
			return off - m->segs[i].off + m->segs[i].vaddr;
	return 0;
}

/* The packed rule (ehframe.h) of the code at pc in the process; K_UNSUP when unknown. */
static uint64_t
rule_at(struct urec *u, struct uproc *p, uint64_t pc, uint64_t ts)
{
	const struct umap *mp = umap_of(u, p, pc, ts);
	struct umod *m;
	uint64_t va;
	void **slot;

	if (!mp || mp->mod < 0 || !(m = mod_image(u, p, mp->mod)) || !eh_functions(&m->im) ||
	    !(va = vaddr_of(m, pc - mp->lo + mp->off)) || va >> 48)
		return K_UNSUP;
	slot = u64map_get(&u->rules, va | (uint64_t)mp->mod << 48, 1);
	/* No rule packs to 0 (K_NORMAL's has its CFA offset): 0 is not yet. */
	if (!*slot)
		*slot = (void *)(uintptr_t)eh_rule(&m->im, (uintptr_t)va);
	return (uint64_t)(uintptr_t)*slot;
}

/* The word at addr, when the copy holds it. */
static int
word(const struct ua_regs *g, const uint8_t *copy, uint64_t addr, uint64_t *w)
{
	if (addr < g->sp || addr - g->sp > g->len || g->len - (addr - g->sp) < 8)
		return 0;
	memcpy(w, copy + (addr - g->sp), 8);
	return 1;
}

/*
 * The frames of e's copied stack, innermost first, into ips; how many.  At
 * a return, ip is where the call returns to, the first frame; at an entry
 * or in a system call's wrapper, ip is in the function called, whose
 * frame is not the program's: the first is where that returns to.  The
 * walk ends where a rule is unknown, a word is past the copy, or a frame
 * would not be above the last (a rule gone wrong).
 */
size_t
unwind_copy(struct urec *u, struct uproc *p, const struct ua_event *e, const struct ua_regs *g,
    const uint8_t *copy, int at_return, uint64_t *ips, size_t max, uint64_t ts)
{
	uint64_t ip = g->ip, sp = g->sp, bp = g->bp, cfa, v;
	int ret = at_return, k;
	size_t n = 0;

	if (at_return && max)
		ips[n++] = ip;
	while (n < max) {
		v = rule_at(u, p, ret ? ip - 1 : ip, ts);
		if ((v & V_KIND) != K_NORMAL || ((v & V_CFA_BP) && !bp))
			break;
		cfa = ((v & V_CFA_BP) ? bp : sp) + (uint64_t)(int64_t)V_CFA_OFF(v);
		if (cfa <= sp || !word(g, copy, cfa - 8, &ip))
			break;
		/* A call of ours under way: the kernel's trampoline is there. */
		for (k = 0; k < UA_PENDING; k++)
			if (e->pend_at[k] == cfa - 8 && e->pend_ret[k])
				ip = e->pend_ret[k];
		if ((v & V_BP_SAVED) && !word(g, copy, cfa + (uint64_t)(int64_t)V_BP_OFF(v), &bp))
			bp = 0;
		else if (v & V_BP_LOST)
			bp = 0;
		sp = cfa;
		if (!ip || ip >> 47)
			break;
		ips[n++] = ip;
		ret = 1;
	}
	return n;
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
	munmap(m.base, m.size);
	free(m.im.tab);
	return seen == 0 || with * 2 > seen;
}

/*
 * How the stacks of p, which now runs exe, are taken: copies where
 * --unwind dwarf says, or (by default) where exe keeps no frame pointers;
 * the BPF program told, and the trace.
 */
void
stacks_way(struct urec *u, struct uproc *p, const char *exe)
{
	p->copies = u->unwind == 'd' || (u->unwind == 'a' && !keeps_frame_pointers(exe));
	if (set_traced(u, p->pid, UA_TRACED | (p->copies ? UA_DWARF : 0)) < 0)
		p->copies = 0;
	say_stacks_way(u, p);
}

/* What took p's stacks, in the trace; counted for its end. */
void
say_stacks_way(struct urec *u, struct uproc *p)
{
	if (p->copies)
		recorder_comment(u->rc, "# mt-record: pid %d: stacks by --unwind dwarf: %u bytes "
		    "of its stack copied at each event, unwound by the call frame information",
		    (int)p->pid, u->copy_size);
	else
		recorder_comment(u->rc, "# mt-record: pid %d: stacks by --unwind fp: its frame "
		    "pointers", (int)p->pid);
	if (p->copies)
		u->by_copy++;
	else
		u->by_fp++;
}
