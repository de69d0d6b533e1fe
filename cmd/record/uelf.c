/*
 * uelf: what mt-record --uprobes reads from the programs it probes: where
 * their allocation functions are, their executable segments, whether
 * they load a C library, and why LD_PRELOAD cannot see into them.
 */

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"
#include "uprobes.h"

/* Each name of a kind: one list, for the prefixes a library gives them. */
#define STD(p) \
	{ p "malloc", P_MALLOC, P_OUT }, { p "calloc", P_CALLOC, P_OUT }, \
	{ p "realloc", P_REALLOC, P_OUT }, { p "memalign", P_MEMALIGN, P_OUT }, \
	{ p "aligned_alloc", P_MEMALIGN, P_OUT }, \
	{ p "posix_memalign", P_POSIX_MEMALIGN, P_POSIX_MEMALIGN_OUT }, \
	{ p "valloc", P_MALLOC, P_OUT }, { p "pvalloc", P_MALLOC, P_OUT }, \
	{ p "free", P_FREE, P_NONE }, { p "cfree", P_FREE, P_NONE }
/* jemalloc's non-standard API: mallocx(size, flags), rallocx(ptr, size,
   flags), dallocx(ptr, flags), sdallocx(ptr, size, flags). */
#define JE(p) \
	{ p "mallocx", P_MALLOC, P_OUT }, { p "rallocx", P_REALLOC, P_OUT }, \
	{ p "dallocx", P_FREE, P_NONE }, { p "sdallocx", P_FREE, P_NONE }

/* The C library's names first: preload_blind tells them from the rest. */
#define NSTD 10
const struct probe_fn probe_fns[] = {
	STD(""), STD("je_"), STD("_rjem_"), JE(""), JE("je_"), JE("_rjem_"), STD("tc_"),
	{ "mi_malloc", P_MALLOC, P_OUT }, { "mi_zalloc", P_MALLOC, P_OUT },
	{ "mi_calloc", P_CALLOC, P_OUT }, { "mi_mallocn", P_CALLOC, P_OUT },
	{ "mi_realloc", P_REALLOC, P_OUT }, { "mi_malloc_aligned", P_MALLOC, P_OUT },
	{ "mi_zalloc_aligned", P_MALLOC, P_OUT }, { "mi_realloc_aligned", P_REALLOC, P_OUT },
	{ "mi_aligned_alloc", P_MEMALIGN, P_OUT },
	{ "mi_posix_memalign", P_POSIX_MEMALIGN, P_POSIX_MEMALIGN_OUT },
	{ "mi_free", P_FREE, P_NONE }, { "mi_free_size", P_FREE, P_NONE },
	{ "mi_free_aligned", P_FREE, P_NONE },
};
const size_t nprobe_fns = sizeof(probe_fns) / sizeof(probe_fns[0]);

int
elf_functions(const char *path, const char *const *names, size_t nnames, uint64_t *offs,
    int *dynamic, int imports)
{
	Elf_Scn *scn = NULL, *s;
	GElf_Shdr sh, th;
	GElf_Sym sym;
	Elf_Data *d;
	Elf *elf;
	int fd, found = 0;
	size_t i, j, n;

	if (nnames)
		memset(offs, 0, nnames * sizeof(*offs));
	*dynamic = 0;
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -1;
	}
	/* An interpreter: the program loads a C library of its own. */
	if (elf_getphdrnum(elf, &n) == 0)
		for (i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP)
				*dynamic = 1;
		}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			const char *name;
			int type;

			if (!gelf_getsym(d, (int)i, &sym) || (imports ? sym.st_shndx != SHN_UNDEF :
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || !sym.st_value))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC)
				continue;
			if (!(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			for (j = 0; j < nnames; j++) {
				if (offs[j] || strcmp(name, names[j]))
					continue;
				/* The address in its section, as an offset in the file. */
				if (imports)
					offs[j] = 1;
				else if (!(s = elf_getscn(elf, sym.st_shndx)) || !gelf_getshdr(s, &th))
					continue;
				else
					offs[j] = sym.st_value - th.sh_addr + th.sh_offset;
				found++;
			}
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}


const char *
script_interp(const char *path, char *buf, size_t n)
{
	char line[PATH_MAX + 3], *interp;
	ssize_t got;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	got = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (got < 3 || line[0] != '#' || line[1] != '!')
		return NULL;
	line[got] = '\0';
	interp = line + 2 + strspn(line + 2, " \t");
	interp[strcspn(interp, " \t\n")] = '\0';
	if (*interp != '/')
		return NULL;
	snprintf(buf, n, "%s", interp);
	return buf;
}

/*
 * Why LD_PRELOAD cannot see into the program at path, in a few words
 * for "PROG: WHY: recorded through uprobes"; NULL when it can.  A script
 * is its interpreter's case.
 */
const char *
preload_blind(const char *path, char *why, size_t n)
{
	char interp[PATH_MAX], inner[PATH_MAX + 100];
	const char **names = emalloc(nprobe_fns * sizeof(*names));
	uint64_t *offs = emalloc(nprobe_fns * sizeof(*offs));
	const char *r = NULL;
	struct stat st;
	size_t i;
	int dynamic;

	for (i = 0; i < nprobe_fns; i++)
		names[i] = probe_fns[i].name;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		r = NULL;
	} else if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
		snprintf(why, n, "it is set-user-ID or set-group-ID");
		r = why;
	} else if (elf_functions(path, names, nprobe_fns, offs, &dynamic, 0) < 0) {
		/* One level of "#!": an interpreter that is itself a script is not run. */
		if (script_interp(path, interp, sizeof(interp)) &&
		    elf_functions(interp, names, 1, offs, &dynamic, 0) >= 0 &&
		    preload_blind(interp, inner, sizeof(inner))) {
			snprintf(why, n, "its interpreter %s: %s", interp, inner);
			r = why;
		}
	} else if (!dynamic) {
		snprintf(why, n, "it is statically linked");
		r = why;
	} else {
		/* An allocation function of its own: the program's calls stay inside it. */
		for (i = 0; i < nprobe_fns && !offs[i]; i++)
			;
		if (i < nprobe_fns) {
			snprintf(why, n, "it has an allocator of its own (it defines %s)",
			    probe_fns[i].name);
			r = why;
		} else if (elf_functions(path, names + NSTD, nprobe_fns - NSTD, offs, &dynamic, 1) > 0) {
			/* A known allocator's own entry point, from a library: not malloc's. */
			for (i = 0; i < nprobe_fns - NSTD && !offs[i]; i++)
				;
			snprintf(why, n, "it calls %s, an allocator's own function", names[NSTD + i]);
			r = why;
		}
	}
	free(names);
	free(offs);
	return r;
}

size_t
exec_segments(const char *path, uint64_t segs[][2], size_t max)
{
	size_t i, n, k = 0;
	GElf_Phdr ph;
	Elf *elf;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) && elf_getphdrnum(elf, &n) == 0)
		for (i = 0; i < n && k < max; i++)
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				segs[k][0] = ph.p_offset;
				segs[k++][1] = ph.p_filesz;
			}
	if (elf)
		elf_end(elf);
	close(fd);
	return k;
}

/* The file offset of path's entry point; 0 when it has none. */
uint64_t
entry_offset(const char *path)
{
	uint64_t off = 0;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) && gelf_getehdr(elf, &eh) &&
	    elf_getphdrnum(elf, &n) == 0)
		for (i = 0; i < n; i++)
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    eh.e_entry >= ph.p_vaddr && eh.e_entry < ph.p_vaddr + ph.p_filesz)
				off = eh.e_entry - ph.p_vaddr + ph.p_offset;
	if (elf)
		elf_end(elf);
	close(fd);
	return off;
}

/* Whether path has a section named name (or, with type, one of that type). */
static int
has_section(const char *path, const char *want, unsigned type)
{
	Elf_Scn *scn = NULL;
	const char *name;
	size_t shstrndx;
	GElf_Shdr sh;
	int fd, found = 0;
	Elf *elf;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) && elf_getshdrstrndx(elf, &shstrndx) == 0)
		while (!found && (scn = elf_nextscn(elf, scn)))
			found = gelf_getshdr(scn, &sh) && (type ? sh.sh_type == type :
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && strcmp(name, want) == 0);
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* Whether path is a Go program (a .go.buildinfo section): its runtime allocates, not malloc. */
int
elf_is_go(const char *path)
{
	return has_section(path, ".go.buildinfo", 0);
}

/* Whether path keeps its symbol table (not stripped). */
int
elf_has_symtab(const char *path)
{
	return has_section(path, NULL, SHT_SYMTAB);
}
