/*
 * symbols: an address made sym lines, from the binary or debug file of
 * the module that held it: function, file:line, module, each inlined
 * frame a line of its own, innermost first (elfutils' libdwfl and libdw).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mt.h"
#include "symbolize.h"

char **symdirs;
size_t nsymdirs;
char *debuginfo_path;
int no_inline, no_demangle;
int debuginfod_timeout = 5;
static struct dso **dsos;
static size_t ndsos;

/*
 * A debuginfod server that does not answer costs one wait, not one a
 * module: the first look that takes the whole timeout and finds nothing
 * ends the asking (DEBUGINFOD_URLS unset: libdebuginfod reads it at each
 * look), said once.
 */
static int
find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
    const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
    char **debuginfo_file_name)
{
	struct timespec t0, t1;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
	    debuglink_file, debuglink_crc, debuginfo_file_name);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (fd < 0 && getenv("DEBUGINFOD_URLS") && *getenv("DEBUGINFOD_URLS") &&
	    t1.tv_sec - t0.tv_sec >= debuginfod_timeout) {
		mt_note("debuginfod: no answer from %s within %d s: not asked again; "
		    "frames without debug information stay module+offset",
		    getenv("DEBUGINFOD_URLS"), debuginfod_timeout);
		unsetenv("DEBUGINFOD_URLS");
	}
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static int
same_build_id(Elf *elf, const char *want)
{
	const unsigned char *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, (const void **)&id);
	char hex[256];
	ssize_t i;

	if (!want)
		return 1;
	if (n <= 0 || n > 100)
		return 0;
	for (i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return strcmp(hex, want) == 0;
}

/* A build-id as the trace gives it: hex digits only, or it makes no path. */
static int
hex_id(const char *s)
{
	if (!s || strlen(s) <= 2)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/*
 * Candidates for a recorded module: the symbol path first, then itself.
 * Regular files only: a path that names a FIFO (the trace says what it
 * likes) held mt-symbolize in its open for ever.
 */
static int
open_module(struct dso *d, char *found, size_t cap)
{
	struct stat st;
	const char *base = strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;
	int fd, mismatch = 0;
	size_t i;
	Elf *elf;

	for (i = 0; i <= nsymdirs * 2; i++) {
		if (i == nsymdirs * 2)
			snprintf(found, cap, "%s", d->path);
		else if (i % 2 == 0)
			snprintf(found, cap, "%s/%s", symdirs[i / 2], base);
		else if (hex_id(d->build_id))
			snprintf(found, cap, "%s/.build-id/%.2s/%s", symdirs[i / 2],
			    d->build_id, d->build_id + 2);
		else
			continue;
		if ((fd = open(found, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		if (elf && elf_kind(elf) == ELF_K_ELF && same_build_id(elf, d->build_id)) {
			d->elf = elf;
			return fd;
		}
		if (elf && elf_kind(elf) == ELF_K_ELF)
			mismatch = 1;
		if (elf)
			elf_end(elf);
		close(fd);
	}
	return mismatch ? -2 : -1;
}

struct dso *
dso_get(const char *path, const char *build_id, uint64_t off, uint64_t lo, uint64_t *bias)
{
	char found[4096];
	struct dso *d = NULL;
	GElf_Phdr ph;
	size_t i, n;
	int fd = -1;

	for (i = 0; i < ndsos; i++)
		if (strcmp(dsos[i]->path, path) == 0 &&
		    (!build_id) == (!dsos[i]->build_id) &&
		    (!build_id || strcmp(build_id, dsos[i]->build_id) == 0)) {
			d = dsos[i];
			break;
		}
	if (!d) {
		d = ecalloc(1, sizeof(*d));
		d->path = estrdup(path);
		d->build_id = build_id ? estrdup(build_id) : NULL;
		d->fd = -1;
		dsos = erealloc(dsos, (ndsos + 1) * sizeof(*dsos));
		dsos[ndsos++] = d;
		if (path[0] == '/' && (fd = open_module(d, found, sizeof(found))) >= 0) {
			d->fd = fd;
			d->dwfl = dwfl_begin(&callbacks);
			/* Reported at its link-time addresses: we subtract the bias. */
			if (d->dwfl) {
				d->mod = dwfl_report_elf(d->dwfl, path, found, dup(fd), 0, false);
				dwfl_report_end(d->dwfl, NULL, NULL);
			}
			if (!d->mod) {
				if (d->dwfl)
					dwfl_end(d->dwfl);
				d->dwfl = NULL;
			}
		} else if (path[0] == '/' && fd == -2) {
			mt_note("%s: build-id differs from the recorded %s: "
			    "its frames stay unresolved", path, build_id);
		}
	}
	/* Without the file, offsets in it: as if addresses were offsets. */
	*bias = lo - off;
	if (d->elf && elf_getphdrnum(d->elf, &n) == 0) {
		for (i = 0; i < n; i++) {
			if (gelf_getphdr(d->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
			    ph.p_offset == off) {
				*bias = lo - ph.p_vaddr;
				break;
			}
		}
	}
	return d;
}

/* libiberty's demangler: C++, and Rust in both its legacy and v0 forms. */
static const char *
demangle(const char *name, char **tofree)
{
	char *s;

	*tofree = NULL;
	if (no_demangle || !name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return name;
	s = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!s)
		return name;
	*tofree = s;
	return s;
}

/*
 * Rust's standard library, remapped: its own units name a file
 * library/alloc/src/alloc.rs, the program's units (which instantiate its
 * generics) /rustc/<commit>/library/alloc/src/alloc.rs; one form, the
 * short one, so that a line is one row whatever unit its code is in.
 */
static const char *
rust_source(const char *file)
{
	size_t n;

	if (!file || strncmp(file, "/rustc/", 7))
		return file;
	n = strspn(file + 7, "0123456789abcdef");
	return n >= 7 && file[7 + n] == '/' && !strncmp(file + 8 + n, "library/", 8) ?
	    file + 8 + n : file;
}

void
put_sym(uint64_t ip, const char *fn, const char *file, int line, const char *module)
{
	char buf[8192], *p = buf;
	char *freeme;
	size_t room = sizeof(buf);
	int n;

	fn = demangle(fn, &freeme);
	file = rust_source(file);
	n = snprintf(p, room, "sym\t0x%llx\t", (unsigned long long)ip);
	p += n;
	room -= (size_t)n;
	if (fn && strlen(fn) * 4 + 2 < room) {
		n = (int)str_escape(p, fn, strlen(fn));
	} else {
		memcpy(p, "??", 2);
		n = 2;
	}
	p += n;
	room -= (size_t)n;
	if (file && line > 0 && strlen(file) * 4 + 32 < room) {
		*p++ = '\t';
		p += str_escape(p, file, strlen(file));
		p += sprintf(p, ":%d", line);
	} else {
		memcpy(p, "\t-", 2);
		p += 2;
	}
	room = sizeof(buf) - (size_t)(p - buf);
	if (strlen(module) * 4 + 3 < room) {
		*p++ = '\t';
		p += str_escape(p, module, strlen(module));
	}
	*p++ = '\n';
	sym_line(buf, (size_t)(p - buf));
	free(freeme);
}

/* The name of a subprogram or inlined subroutine, through its origin. */
static const char *
die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name;
}

/*
 * The functions and inlined subroutines of a compilation unit, by address
 * range and depth: built once a unit, on its first address.  Asking libdw
 * for the scopes of each address walks the whole unit every time, which
 * in link-time-optimised programs (a unit of half the program) costs
 * half a millisecond an address.
 */
struct scope {
	Dwarf_Addr lo, hi;
	Dwarf_Off off;
	unsigned depth;
};

struct unit_index {
	Dwarf *dbg;
	Dwarf_Off cu;
	struct scope *v;
	size_t n, cap;
	struct unit_index *next;
};

static struct unit_index *indexes;

static void
index_walk(Dwarf_Die *die, unsigned depth, struct unit_index *x)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Die child;
	ptrdiff_t off;
	int tag;

	do {
		tag = dwarf_tag(die);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			for (off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;) {
				x->v = egrow(x->v, x->n, &x->cap, sizeof(*x->v));
				x->v[x->n++] = (struct scope){ lo, hi, dwarf_dieoffset(die), depth };
			}
		}
		if (dwarf_haschildren(die) && dwarf_child(die, &child) == 0)
			index_walk(&child, depth + 1, x);
	} while (dwarf_siblingof(die, die) == 0);
}

static struct unit_index *
unit_index(Dwarf *dbg, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct unit_index *x;
	Dwarf_Die child;

	for (x = indexes; x; x = x->next)
		if (x->dbg == dbg && x->cu == off)
			return x;
	x = ecalloc(1, sizeof(*x));
	x->dbg = dbg;
	x->cu = off;
	if (dwarf_child(cu, &child) == 0)
		index_walk(&child, 1, x);
	x->next = indexes;
	indexes = x;
	return x;
}

static int
deeper_first(const void *a, const void *b)
{
	const struct scope *x = a, *y = b;

	return x->depth < y->depth ? 1 : x->depth > y->depth ? -1 : 0;
}

/*
 * Every frame at file address a of module m: the innermost function with
 * the line-table line of a, then for each inlined subroutine the function
 * it was inlined into, at its call site.
 */
static int
resolve_inlines(uint64_t ip, struct dso *d, GElf_Addr a, const char *module)
{
	Dwfl_Module *m = d->mod;
	Dwarf_Addr bias = 0, dbias;
	Dwarf_Die *cu = dwfl_module_addrdie(m, a, &bias), die;
	Dwarf *dbg = dwfl_module_getdwarf(m, &dbias);
	Dwfl_Line *line = dwfl_module_getsrc(m, a);
	const char *file = NULL, *fn = NULL;
	int lineno = 0, tag;
	struct unit_index *x;
	struct scope chain[64];
	size_t i, n = 0;
	Dwarf_Files *files;
	Dwarf_Word w;
	Dwarf_Attribute attr;

	if (line)
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!cu || !dbg)
		return 0;
	x = unit_index(dbg, cu);
	for (i = 0; i < x->n && n < 64; i++)
		if (x->v[i].lo <= a - bias && a - bias < x->v[i].hi)
			chain[n++] = x->v[i];
	if (n == 0)
		return 0;
	qsort(chain, n, sizeof(*chain), deeper_first);
	for (i = 0; i < n; i++) {
		if (!dwarf_offdie(dbg, chain[i].off, &die))
			break;
		tag = dwarf_tag(&die);
		fn = die_name(&die);
		if (!fn)
			fn = symtab_name(d, a);
		put_sym(ip, fn, file, lineno, module);
		if (tag == DW_TAG_subprogram || no_inline)
			return 1;
		/* The caller's line is this inlined call's site. */
		file = NULL;
		lineno = 0;
		if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_line, &attr), &w) == 0)
			lineno = (int)w;
		if (dwarf_formudata(dwarf_attr(&die, DW_AT_call_file, &attr), &w) == 0 &&
		    dwarf_getsrcfiles(cu, &files, NULL) == 0)
			file = dwarf_filesrc(files, w, NULL, NULL);
	}
	/* No enclosing function in the DWARF: name it by its symbol. */
	put_sym(ip, symtab_name(d, a), file, lineno, module);
	return 1;
}

/* An address in no module: named by itself, never a bare "??". */
void
put_unmapped(uint64_t ip)
{
	char name[32];

	snprintf(name, sizeof(name), "0x%llx", (unsigned long long)ip);
	put_sym(ip, name, NULL, 0, "[unknown]");
}

void
resolve(uint64_t ip, const struct mapping *mp)
{
	GElf_Addr a;
	const char *fn, *file = NULL, *base;
	char unknown[256];
	int lineno = 0;
	Dwfl_Line *line;

	/* A return address: the call is the byte before it. */
	a = ip - 1 - mp->bias;
	if (mp->dso->mod) {
		if (resolve_inlines(ip, mp->dso, a, mp->dso->path))
			return;
		fn = symtab_name(mp->dso, a);
		line = dwfl_module_getsrc(mp->dso->mod, a);
		if (line)
			file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		/* No .debug_aranges (Go's): the unit looked for by its ranges. */
		if (!file)
			file = culine(mp->dso, a, &lineno);
		if (fn) {
			put_sym(ip, fn, file, lineno, mp->dso->path);
			return;
		}
	}
	/* No name: the module and the offset addr2line -e takes for the call. */
	base = strrchr(mp->dso->path, '/') ? strrchr(mp->dso->path, '/') + 1 : mp->dso->path;
	snprintf(unknown, sizeof(unknown), "%.200s+0x%llx", *base ? base : mp->dso->path,
	    (unsigned long long)a);
	put_sym(ip, unknown, NULL, 0, mp->dso->path);
	unnamed_count(mp->dso);
}
