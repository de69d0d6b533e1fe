/* inject: mt-record -p: a library loaded into a running process. */
#ifndef MT_INJECT_H
#define MT_INJECT_H

#include <sys/types.h>
#include <stddef.h>

/*
 * mt-record -p (lib/inject.c): loads lib into process pid and calls its
 * mt_attach(args) there (args: alen bytes).  0 once a thread of it is on
 * its way to; -1 with why said (wlen bytes at most) when refused.
 */
int mt_inject(pid_t pid, const char *lib, const char *args, size_t alen,
    char *why, size_t wlen);

#endif
