/* groupkey: Key values mt-group and mt-report both show. */
#ifndef MT_GROUPKEY_H
#define MT_GROUPKEY_H

#include <stddef.h>
#include <stdint.h>
#include "stacks.h"

/* groupkey.c: key values mt-group and mt-report both show */
void stack_frame_add(char **p, size_t *len, size_t *cap, const char *f);
void stack_folded(const struct mt_stackinfo *si, uint32_t startup, char **p, size_t *len,
    size_t *cap);
size_t size_class(uint64_t size, char *buf, size_t n);
size_t task_name(struct mt_dict *d, int64_t pid, int64_t tid, char *buf, size_t n);

#endif
