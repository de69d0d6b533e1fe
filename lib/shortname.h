/* shortname: function names shortened for people. */
#ifndef MT_SHORTNAME_H
#define MT_SHORTNAME_H

#include <stddef.h>

/* names.c: a function's name for a person: templates as <>, cut to w bytes */
char *name_shortened(const char *s);
char *name_cut(const char *s, size_t w);
void name_middle_cut(const char *s, size_t w, char *out);	/* out: w + 1 bytes */

#endif
