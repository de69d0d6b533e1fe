/*
 * trace: the trace's file, made safely, and the sockets processes connect
 * to, from the start of a recording to its end.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "mt.h"
#include "proto.h"
#include "command.h"

const char *
open_error(int e)
{
	return e == ELOOP ? "a symbolic link: not followed" : strerror(e);
}

/*
 * A trace holds command lines and paths: made 0600, through no symbolic
 * link (a planted one would have root write over its target), truncated
 * only when it is a regular file; with exclusive, only made anew (the
 * default name is predictable).  *created says whether it was.
 */
int
open_trace(const char *path, int exclusive, int *created)
{
	struct stat st;
	int fd;

	*created = 0;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		*created = 1;
		return fd;
	}
	if (errno != EEXIST || exclusive)
		return -1;
	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The socket's path twin (see MT_SOCKET_DIR), made with the abstract
 * name once that is ours: -1 when it cannot be (a name taken, /tmp
 * read-only), and processes in a network namespace of their own then
 * go untraced.  Kept here for atexit.
 */
static char path_sock[128];

void
unlink_path(void)
{
	if (path_sock[0])
		unlink(path_sock);
	path_sock[0] = '\0';
}

static int
listen_path(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s%s", MT_SOCKET_DIR, name);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0) {
		close(fd);
		return -1;
	}
	strcpy(path_sock, sa.sun_path);
	atexit(unlink_path);
	return fd;
}

/*
 * Listening, our signals and descriptors, and the trace's file when
 * named: its descriptor, -1 when not named (open_default's), -2 on
 * trouble, said.
 */
int
start_collector(struct recorder *rc, char *sockname, size_t cap, const char *output,
    int *lfd, int *pfd_path, int *created)
{
	int fd;

	recorder_begin(rc);
	if ((*lfd = recorder_listen(rc, sockname, cap)) >= 0)
		*pfd_path = listen_path(sockname);
	if (*lfd < 0) {
		mt_warn("socket");
		return -2;
	}
	collector_setup();
	recorder_keep_spare(rc);

	if (output && strcmp(output, "-") == 0) {
		fd = STDOUT_FILENO;
		recorder_set_name(rc, "<stdout>");
	} else if (output) {
		fd = open_trace(output, 0, created);
		recorder_set_name(rc, output);
	} else {
		return -1;
	}
	if (fd < 0) {
		mt_warnx("%s: %s", output, open_error(errno));
		unlink_path();
		return -2;
	}
	return fd;
}

/* The default trace, mt.BASE.PID.mtr, made anew; -1 when it cannot be, said. */
int
open_default(struct recorder *rc, const char *base, pid_t pid, char **defname, int *created)
{
	int fd;

	*defname = emalloc(strlen(base) + 32);
	sprintf(*defname, "mt.%s.%d.mtr", base, (int)pid);
	recorder_set_name(rc, *defname);
	if ((fd = open_trace(*defname, 1, created)) < 0)
		mt_warnx("%s: %s", *defname, open_error(errno));
	return fd;
}

/*
 * The trace's file: output (-o), stdout for "-", or mt.BASE.PID.mtr made
 * anew; -1, said.  *created says whether it is ours to remove.
 */
int
open_output(struct recorder *rc, const char *output, const char *base, pid_t pid,
    char **defname, int *created)
{
	int fd;

	*created = 0;
	*defname = NULL;
	if (output && strcmp(output, "-") == 0) {
		recorder_set_name(rc, "<stdout>");
		return STDOUT_FILENO;
	}
	if (!output)
		return open_default(rc, base, pid, defname, created);
	recorder_set_name(rc, output);
	if ((fd = open_trace(output, 0, created)) < 0)
		mt_warnx("%s: %s", output, open_error(errno));
	return fd;
}

/* The trace ended and closed, and said. */
void
end_trace(struct recorder *rc, int fd, char *defname)
{
	unlink_path();
	recorder_end(rc, fd);
	free(defname);
}
