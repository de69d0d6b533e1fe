/* Attaching: the GOT slots of the functions we interpose (attach.c). */
#ifndef MT_ATTACH_H
#define MT_ATTACH_H

#include <stdint.h>

struct got_hook {
	const char *name;
	void *ours;
};

/*
 * Points every loaded module's slots named in h (n of them) at ours,
 * skipping the module loaded at self (this library) and modules already
 * done: called again after a dlopen, it patches only what is new.
 * Holds the loader's lock while it works: not from a signal handler.
 */
void got_patch(const struct got_hook *h, unsigned n, uintptr_t self);
/*
 * The first definition of a function in the modules in load order (the
 * program's, then its libraries'), not this library's (at self): what
 * the program's own calls went to.  Not dlsym(RTLD_DEFAULT), which gives
 * a non-PIE program's PLT entry for a function whose address it takes,
 * and that entry goes through the GOT we patch.
 */
void *got_definition(const char *name, uintptr_t self);
/* mt-record -p's entry point, in start.c. */
int mt_attach(const char *args);
/* Puts back every slot still holding ours in a module still loaded. */
void got_restore(void);

#endif
