/* writeall: a buffer written whole, through short writes and signals. */
#ifndef MT_WRITEALL_H
#define MT_WRITEALL_H

#include <stddef.h>
#include <sys/types.h>

/* The bytes written: len, or fewer with errno set (EIO: a write took none). */
size_t writeall(int fd, const void *buf, size_t len);
/* The bytes read: len, fewer only at the end of the file; -1 on an error. */
ssize_t readall(int fd, void *buf, size_t len);
/* A file in TMPDIR (or /tmp) named for prog, gone with its descriptor: -1 (errno) when none can be made. */
int tmpfd(const char *prog);
/* Exit 1 saying what could not be done ("making", "writing"...) to a temporary file there. */
void tmpfd_err(const char *what) __attribute__((noreturn));

#endif
