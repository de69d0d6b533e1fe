/* writeall: a buffer written whole, through short writes and signals. */
#ifndef MT_WRITEALL_H
#define MT_WRITEALL_H

#include <stddef.h>

/* The bytes written: len, or fewer with errno set (EIO: a write took none). */
size_t writeall(int fd, const void *buf, size_t len);

#endif
