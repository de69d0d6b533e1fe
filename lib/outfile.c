/*
 * outfile.c: outputs written beside, then renamed (outfile.h).  A
 * regular file or a new one is replaced whole; anything else (a FIFO,
 * /dev/stdout, /dev/null) is written in place, as it cannot be renamed
 * over.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt.h"
#include "outfile.h"

int
outfile_is_input(const char *path, const char *input)
{
	struct stat o, i;

	if (stat(path, &o) < 0)
		return 0;
	if (!input || !strcmp(input, "-") ? fstat(STDIN_FILENO, &i) < 0 : stat(input, &i) < 0)
		return 0;
	if (o.st_dev != i.st_dev || o.st_ino != i.st_ino || !S_ISREG(o.st_mode))
		return 0;
	mt_note("%s: the input itself: not written over", path);
	return 1;
}

int
outfile_open(struct outfile *o, const char *path)
{
	char *real = realpath(path, NULL), *slash;
	struct stat st;
	mode_t mask;
	int fd;

	memset(o, 0, sizeof(*o));
	/* A link's target is what is replaced, as writing through it would. */
	o->path = real && lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? real : estrdup(path);
	if (o->path != real)
		free(real);
	if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (!(o->f = fopen(o->path, "w")))
			goto fail;
		return 0;
	}
	o->part = emalloc(strlen(o->path) + 16);
	slash = strrchr(o->path, '/');
	sprintf(o->part, "%.*s.%s.XXXXXX", slash ? (int)(slash - o->path + 1) : 0, o->path,
	    slash ? slash + 1 : o->path);
	if ((fd = mkostemp(o->part, O_CLOEXEC)) < 0)
		goto fail;
	/* The mode a new file gets, or the one it replaces had. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, stat(o->path, &st) == 0 ? st.st_mode & 07777 : 0666 & ~mask) < 0 ||
	    !(o->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(o->part);
		goto fail;
	}
	return 0;
fail:
	mt_note("%s: %s", path, strerror(errno));
	free(o->part);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return -1;
}

int
outfile_close(struct outfile *o)
{
	int bad = ferror(o->f), e = 0;

	if (fclose(o->f) || bad)
		e = errno ? errno : EIO;
	if (!e && o->part && rename(o->part, o->path) < 0)
		e = errno;
	if (e) {
		mt_note("%s: %s", o->path, strerror(e));
		if (o->part)
			unlink(o->part);
	}
	free(o->part);
	free(o->path);
	memset(o, 0, sizeof(*o));
	return e ? -1 : 0;
}
