/* mt-symbolize: what its input side (main.c) and symbols.c share. */
#ifndef MT_SYMBOLIZE_H
#define MT_SYMBOLIZE_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

struct dso {
	char *path;		/* as recorded */
	char *build_id;		/* hex, or NULL */
	Dwfl *dwfl;		/* NULL: could not be opened */
	Dwfl_Module *mod;
	Elf *elf;
	int fd;
	int warned;
	struct symtab *symtab;	/* its functions by address, made at the first lookup */
	uint64_t unnamed;	/* its addresses left without a name */
	struct culines *culines;	/* its units' ranges, made at the first look */
};

struct mapping {
	uint64_t lo, hi;
	uint64_t bias;		/* process address - file address */
	struct dso *dso;
};

/* The options symbols.c follows, set by main.c. */
extern char **symdirs;
extern size_t nsymdirs;
extern char *debuginfo_path;
extern int no_inline, no_demangle;
extern int debuginfod_timeout;	/* seconds a debuginfod server has to answer */

/* The module of a map (its file, build-id or NULL, offset, start): bias
   set to process address - file address. */
struct dso *dso_get(const char *path, const char *build_id, uint64_t off, uint64_t lo,
    uint64_t *bias);
/* ip's sym lines, from the mapping that holds it. */
void resolve(uint64_t ip, const struct mapping *mp);
/* ip's sym line when no mapping holds it: its address, module [unknown]. */
void put_unmapped(uint64_t ip);
void put_sym(uint64_t ip, const char *fn, const char *file, int line, const char *module);
/* symtab.c: the function at a file address of d's module, or NULL. */
const char *symtab_name(struct dso *d, uint64_t a);
void symtab_free(struct symtab *t);
/* culines.c: the file and line of a module address from its unit; NULL. */
const char *culine(struct dso *d, Dwarf_Addr a, int *line);
void culines_free(struct culines *c);
/* unnamed.c: an address of d's left without a name; all such, said. */
void unnamed_count(struct dso *d);
void unnamed_say(void);
/* main.c: a sym line made, with its newline, to the output. */
void sym_line(const char *line, size_t len);

#endif
