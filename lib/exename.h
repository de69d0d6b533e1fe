/*
 * The name a process's program goes by in a proc line: the path it was
 * executed by (AT_EXECFN), as ps and top name it, a symbolic link not
 * followed (/usr/bin/redis-server, not the file it points to), made
 * absolute.  One rule, applied inside by the preload library and outside
 * by mt-record --uprobes (procfs.h's proc_exe_name), so that a command
 * recorded either way is named the same.
 */
#ifndef MT_EXENAME_H
#define MT_EXENAME_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

/*
 * The name execfn gives, into buf (len bytes), which holds the directory
 * the program started in, cwdlen bytes long, or nothing (cwdlen 0) when
 * that is not known (a process attached to, which may have changed
 * directory since).  Returns its length; 0 when the rule falls back on
 * the file itself (/proc/PID/exe): no execfn, one relative to a
 * directory not known, /dev/fd/N and /proc/... (fexecve), or too long.
 * The caller checks that the name is a file.  Touches no allocator: the
 * preload library calls it where malloc may not be.
 */
size_t exe_name_of(char *buf, size_t len, size_t cwdlen, const char *execfn);

#pragma GCC visibility pop

#endif
