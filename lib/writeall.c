/* writeall: a buffer written whole (writeall.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mt.h"

size_t
writeall(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

ssize_t
readall(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, p + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

void
tmpfd_err(const char *what)
{
	const char *dir = getenv("TMPDIR");

	mt_err(1, "%s a temporary file in %s", what, dir && *dir ? dir : "/tmp");
}

int
tmpfd(const char *prog)
{
	char path[4096];
	const char *dir = getenv("TMPDIR");
	int fd;

	snprintf(path, sizeof(path), "%s/%s.XXXXXX", dir && *dir ? dir : "/tmp", prog);
	if ((fd = mkostemp(path, O_CLOEXEC)) >= 0)
		unlink(path);
	return fd;
}
