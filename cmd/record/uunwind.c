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
#include <stddef.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"
#include "ehframe.h"
#include "uprobes.h"
#include "bpf/ualloc.h"

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
mod_image(struct urec *u, struct uproc *p, const struct umap *mp)
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
		free(u->mods[i].base);
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

	if (!mp || mp->mod < 0 || !(m = mod_image(u, p, mp)) || !eh_functions(&m->im) ||
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

/* The registers a signal interrupted, from its context at sp (a ucontext_t). */
static int
signal_context(const struct ua_regs *g, const uint8_t *copy, uint64_t sp, uint64_t *ip,
    uint64_t *nsp, uint64_t *bp)
{
	uint64_t gregs = sp + offsetof(ucontext_t, uc_mcontext.gregs);

	return word(g, copy, gregs + REG_RIP * 8, ip) && word(g, copy, gregs + REG_RSP * 8, nsp) &&
	    word(g, copy, gregs + REG_RBP * 8, bp);
}

/*
 * The frames of e's copied stack, innermost first, into ips; how many.  At
 * a return, ip is where the call returns to, the first frame; at an entry
 * or in a system call's wrapper, ip is in the function called, whose
 * frame is not the program's: the first is where that returns to.  The
 * walk goes through a signal handler's frame to the frame the signal
 * interrupted, and ends where a rule is unknown, a word is past the copy,
 * or a frame would not be above the last (a rule gone wrong).
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
		/* A function with no rules where the event is (musl's system
		   call wrappers have none): where it returns to is taken to be
		   the first word on the stack that is code, as the frame-pointer
		   path takes it, and the walk goes on from just above it. */
		if (!n && !ret && (v & V_KIND) == K_UNSUP) {
			for (k = 0; k < UA_TOP && !(word(g, copy, sp + 8 * (uint64_t)k, &ip) &&
			    ip && !(ip >> 47) && umap_of(u, p, ip, ts)); k++)
				;
			if (k == UA_TOP)
				break;
			sp += 8 * (uint64_t)k + 8;
			ips[n++] = ip;
			ret = 1;
			continue;
		}
		if ((v & V_KIND) == K_SIGNAL) {
			/* The handler returns to the kernel's trampoline: the
			   interrupted context is at sp, its ip no return address. */
			if (!signal_context(g, copy, sp, &ip, &sp, &bp) || !ip || ip >> 47)
				break;
			ips[n++] = ip;
			ret = 0;
			continue;
		}
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
	free(m.base);
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
	if (set_traced(u, p) < 0)
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
