/*
 * A traced program that turns on its recorder: it connects to
 * mt-record's socket again and hands it memfds that lie -- a stack table
 * and a ring of 0 bytes, and one of the right size left unsealed, which
 * it then shrinks.  mt-record must map none of them (a read of a mapping
 * past its file's end is a SIGBUS), and record the program's own events.
 *
 *   hostile-peer      prints "sent" and exits 0
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "../../lib/preload/proto.h"

static int
sendfd(int s, uint32_t type, int fd)
{
	struct mt_msg m = { .type = type, .pid = getpid(), .ppid = getppid(), .tid = getpid() };
	char payload[] = "/fake\0fake";
	struct iovec iov[2] = { { &m, sizeof(m) }, { payload, sizeof(payload) } };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = type == MSG_HELLO ? 2 : 1,
	    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	memset(cbuf, 0, sizeof(cbuf));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(s, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

static int
connect_again(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *name = getenv(MT_ENV_SOCKET);
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (!name || s < 0)
		return -1;
	memcpy(sa.sun_path + 1, name, strlen(name));
	if (connect(s, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))) < 0)
		return -1;
	return s;
}

int
main(void)
{
	int s, empty, big;
	void *volatile p;

	p = malloc(1234);
	free(p);
	if ((s = connect_again()) < 0)
		return 1;
	empty = (int)syscall(SYS_memfd_create, "lie", 0);
	big = (int)syscall(SYS_memfd_create, "lie", 0);
	if (empty < 0 || big < 0 || ftruncate(big, (off_t)MT_RING_BYTES) < 0)
		return 1;
	/* A table of nothing, then rings of nothing and of a size that goes. */
	if (sendfd(s, MSG_HELLO, empty) < 0 || sendfd(s, MSG_RING, empty) < 0 ||
	    sendfd(s, MSG_RING, big) < 0)
		return 1;
	usleep(300000);
	if (ftruncate(big, 0) < 0)
		return 1;
	usleep(300000);
	p = malloc(4321);
	free(p);
	close(s);
	puts("sent");
	return 0;
}
