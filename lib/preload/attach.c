/*
 * Attaching (mt-record -p): the library is loaded into a running process
 * by dlopen, after every module was bound, so LD_PRELOAD's interposition
 * never happened.  What it would have done is done to the modules' GOTs:
 * each slot (a PLT's jump slot, or a GLOB_DAT of code that calls through
 * the GOT, as glibc's own strdup does) naming a function we interpose is
 * pointed at ours, and put back at detach.
 *
 * A slot is one aligned word: a thread calling through it gets either
 * function, both of which work (a block allocated by the old one and
 * freed through ours is a free of a block from before recording).  A
 * slot in the module's RELRO is made writable for the store and
 * read-only again, as the loader left it.  Slots are put back only in
 * modules still loaded, and only where they still hold ours.
 */

#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach.h"

struct slot {
	void **at;
	void *was, *ours;
	uintptr_t base;		/* the module's, to put back only where loaded */
	uintptr_t relro_lo, relro_hi;	/* the page range the loader protected */
};

#define SLOTS_MAX (1u << 16)
#define MODS_MAX 4096

static struct slot *slots;
static unsigned nslots;
static uintptr_t done_bases[MODS_MAX];
static const char *done_names[MODS_MAX];
static unsigned ndone;
static const struct got_hook *hooks;
static unsigned nhooks;
static uintptr_t self_base;

static void
store(void **at, void *v, uintptr_t lo, uintptr_t hi)
{
	uintptr_t a = (uintptr_t)at, pg = a & ~(uintptr_t)4095;
	int ro = a >= lo && a < hi;

	if (ro && syscall(SYS_mprotect, pg, 4096, PROT_READ | PROT_WRITE) != 0)
		return;
	__atomic_store_n(at, v, __ATOMIC_RELEASE);
	if (ro)
		syscall(SYS_mprotect, pg, 4096, PROT_READ);
}

/* A d_ptr the loader relocated in place (x86-64 does), or not yet. */
static uintptr_t
dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
	return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

static const struct got_hook *
hook_of(const char *name)
{
	unsigned i;

	for (i = 0; i < nhooks; i++)
		if (strcmp(hooks[i].name, name) == 0)
			return &hooks[i];
	return NULL;
}

static void
patch_relocs(const struct dl_phdr_info *info, const ElfW(Rela) *r, size_t bytes,
    const ElfW(Sym) *symtab, const char *strtab, uintptr_t lo, uintptr_t hi)
{
	const ElfW(Rela) *end = (const void *)((const char *)r + bytes);
	const struct got_hook *h;
	struct slot *s;
	void **at;

	for (; r < end && nslots < SLOTS_MAX; r++) {
		unsigned long type = ELF64_R_TYPE(r->r_info);
		if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
		    !ELF64_R_SYM(r->r_info))
			continue;
		if (!(h = hook_of(strtab + symtab[ELF64_R_SYM(r->r_info)].st_name)))
			continue;
		at = (void **)(info->dlpi_addr + r->r_offset);
		if (*at == h->ours)
			continue;
		s = &slots[nslots++];
		s->at = at;
		s->was = *at;
		s->ours = h->ours;
		s->base = info->dlpi_addr;
		s->relro_lo = lo;
		s->relro_hi = hi;
		store(at, h->ours, lo, hi);
	}
}

static int
patch_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	const ElfW(Dyn) *dyn = NULL, *d;
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const ElfW(Rela) *rela = NULL, *jmprel = NULL;
	size_t relasz = 0, pltrelsz = 0;
	uintptr_t lo = 0, hi = 0;
	unsigned i;
	int k;

	(void)size;
	(void)arg;
	if (info->dlpi_addr == self_base || (info->dlpi_name &&
	    strncmp(info->dlpi_name, "linux-vdso", 10) == 0))
		return 0;
	for (i = 0; i < ndone; i++)
		if (done_bases[i] == info->dlpi_addr && done_names[i] == info->dlpi_name)
			return 0;
	if (ndone == MODS_MAX)
		return 0;
	done_bases[ndone] = info->dlpi_addr;
	done_names[ndone++] = info->dlpi_name;
	for (k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + ph->p_vaddr);
		else if (ph->p_type == PT_GNU_RELRO) {
			/* As the loader rounds it: whole pages, the end down. */
			lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)4095;
			hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(uintptr_t)4095;
		}
	}
	if (!dyn)
		return 0;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB: symtab = (const void *)dyn_ptr(info, d->d_un.d_ptr); break;
		case DT_STRTAB: strtab = (const void *)dyn_ptr(info, d->d_un.d_ptr); break;
		case DT_RELA: rela = (const void *)dyn_ptr(info, d->d_un.d_ptr); break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_JMPREL: jmprel = (const void *)dyn_ptr(info, d->d_un.d_ptr); break;
		case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
		}
	}
	if (!symtab || !strtab)
		return 0;
	if (rela)
		patch_relocs(info, rela, relasz, symtab, strtab, lo, hi);
	if (jmprel)
		patch_relocs(info, jmprel, pltrelsz, symtab, strtab, lo, hi);
	return 0;
}

void
got_patch(const struct got_hook *h, unsigned n, uintptr_t self)
{
	if (!slots) {
		void *p = (void *)syscall(SYS_mmap, NULL, SLOTS_MAX * sizeof(*slots),
		    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		slots = p;
	}
	hooks = h;
	nhooks = n;
	self_base = self;
	dl_iterate_phdr(patch_module, NULL);
}

static int
restore_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned i;

	(void)size;
	(void)arg;
	for (i = 0; i < nslots; i++) {
		struct slot *s = &slots[i];
		if (s->base != info->dlpi_addr || !s->at)
			continue;
		if (*s->at == s->ours)
			store(s->at, s->was, s->relro_lo, s->relro_hi);
		s->at = NULL;
	}
	return 0;
}

struct lookup {
	const char *name;
	void *found;
};

static int
lookup_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct lookup *l = arg;
	const ElfW(Dyn) *dyn = NULL, *d;
	const ElfW(Sym) *symtab = NULL, *sym;
	const char *strtab = NULL;
	size_t strsz = 0, i, n;
	int k;

	(void)size;
	if (l->found || info->dlpi_addr == self_base ||
	    (info->dlpi_name && strncmp(info->dlpi_name, "linux-vdso", 10) == 0))
		return 0;
	for (k = 0; k < info->dlpi_phnum; k++)
		if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
			dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[k].p_vaddr);
	if (!dyn)
		return 0;
	for (d = dyn; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			symtab = (const void *)dyn_ptr(info, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			strtab = (const void *)dyn_ptr(info, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRSZ)
			strsz = d->d_un.d_val;
	}
	/* The linker puts .dynsym right before .dynstr: that bounds it. */
	if (!symtab || !strtab || (const char *)symtab >= strtab)
		return 0;
	n = (size_t)(strtab - (const char *)symtab) / sizeof(*sym);
	for (i = 1; i < n && i < (1u << 20); i++) {
		sym = &symtab[i];
		if (sym->st_shndx == SHN_UNDEF || !sym->st_value || sym->st_name >= strsz ||
		    ELF64_ST_TYPE(sym->st_info) != STT_FUNC ||
		    strcmp(strtab + sym->st_name, l->name) != 0)
			continue;
		l->found = (void *)(info->dlpi_addr + sym->st_value);
		return 1;
	}
	return 0;
}

void *
got_definition(const char *name, uintptr_t self)
{
	struct lookup l = { name, NULL };

	self_base = self;
	dl_iterate_phdr(lookup_module, &l);
	return l.found;
}

void
got_restore(void)
{
	if (!slots)
		return;
	dl_iterate_phdr(restore_module, NULL);
	nslots = 0;
	ndone = 0;
}
