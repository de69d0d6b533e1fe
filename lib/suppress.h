/* suppress: Suppressions of leaks that are no leak of the program. */
#ifndef MT_SUPPRESS_H
#define MT_SUPPRESS_H

#include <stdint.h>
#include "stacks.h"
#include "units.h"

/*
 * suppress.c: rules (share/mt-suppress built in, --suppress FILE) on the
 * stacks of lifetimes never freed that are no leak of the program.
 */
struct mt_suppress;
struct mt_suppress *suppress_new(void);
int suppress_parse(struct mt_suppress *s, const char *text, const char *name);	/* 1: bad, said */
int suppress_builtin(struct mt_suppress *s);
int suppress_read(struct mt_suppress *s, const char *path);
void suppress_none(struct mt_suppress *s);
void suppress_forget(struct mt_suppress *s);	/* a stack id redefined */
long suppress_match(struct mt_suppress *s, struct mt_dict *dict, uint64_t stack);
void suppress_count(struct mt_suppress *s, long rule, uint64_t bytes);
void suppress_say(const struct mt_suppress *s, struct mt_sat *sat);

#endif
