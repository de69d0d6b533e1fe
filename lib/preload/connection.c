/*
 * The connection to mt-record: a SOCK_SEQPACKET socket, under an
 * abstract name or a path, that carries the control messages (proto.h),
 * made again once if the program closes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "preload.h"

int sock = -1;
volatile int connection_lost;
char socket_name[108];

/*
 * Our descriptors live high, out of the way of a program that counts on
 * the lowest free numbers (a daemon started with 0-2, a shell's exec 5>):
 * the socket from 32 below the soft limit or 1024, whichever is lower,
 * libunwind's pipe from 16 below.  Apart: once a daemon has closed them
 * all, libunwind still reads its old numbers (and makes a new pipe when
 * they are closed), which must not be where our new socket went.  A
 * program may still close one and open its own there: the socket is
 * checked to be ours (the inode it had) before every use, and never
 * closed otherwise.
 */
int
fd_high(int fd, int below)
{
	struct rlimit rl;
	rlim_t top = 1024;
	int nfd;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top)
		top = rl.rlim_cur;
	if (fd < 0 || top <= 96)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, (int)(top - (rlim_t)below));
	if (nfd < 0)
		return fd;
	close(fd);
	return nfd;
}

static dev_t sock_dev;
static ino_t sock_ino;

int
sock_ours(void)
{
	struct stat st;

	return sock >= 0 && fstat(sock, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_ino == sock_ino && st.st_dev == sock_dev;
}

/*
 * The program closed our socket (close_range, a daemon's loop): a new
 * connection, said to be the same process's, once; the recorder keeps
 * its table and rings.  Not when the recorder is gone.
 */
static int
reconnect(void)
{
	struct mt_msg m = { .type = MSG_HELLO, .flags = HELLO_AGAIN };
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct timeval wait_ack = { 10, 0 };
	ssize_t n;
	char ack;

	if (connection_lost || (sock = connect_recorder()) < 0) {
		sock = -1;
		connection_lost = 1;
		return -1;
	}
	m.pid = getpid();
	m.ppid = getppid();
	m.ts = now();
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	/* Taken back, or refused: a byte, or the connection closed. */
	if (n >= 0 && setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &wait_ack, sizeof(wait_ack)) == 0)
		do
			n = recv(sock, &ack, 1, 0);
		while (n < 0 && errno == EINTR);
	if (n != 1) {
		close(sock);
		sock = -1;
		connection_lost = 1;
		return -1;
	}
	return 0;
}

int
send_msg(struct mt_msg *m, const void *data, size_t len, int fd)
{
	struct iovec iov[2] = { { m, sizeof(*m) }, { (char *)(uintptr_t)data, len } };
	char cbuf[MT_CMSG_SPACE];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	if (sock < 0)
		return -1;
	/* The program closed it, and the number may be its own now. */
	if (!sock_ours() && reconnect() < 0)
		return -1;
	if (fd >= 0)
		mt_msg_fd(&mh, cbuf, fd);
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		/*
		 * The connection is gone (the program closed it, or the
		 * recorder died): threads with a ring go on, those without
		 * count what they cannot deliver.
		 */
		connection_lost = 1;
		return -1;
	}
	return 0;
}

int
connect_recorder(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(socket_name);
	struct stat st;
	int fd;

	fd = fd_high(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), 32);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	sock_dev = st.st_dev;
	sock_ino = st.st_ino;
	/* An abstract name: a leading NUL, not a file. */
	memcpy(sa.sun_path + 1, socket_name, n);
	if (connect(fd, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) == 0)
		return fd;
	/* In a network namespace of its own: the path (proto.h). */
	if (strlen(MT_SOCKET_DIR) + n >= sizeof(sa.sun_path)) {
		close(fd);
		return -1;
	}
	memset(sa.sun_path, 0, sizeof(sa.sun_path));
	memcpy(sa.sun_path, MT_SOCKET_DIR, strlen(MT_SOCKET_DIR));
	memcpy(sa.sun_path + strlen(MT_SOCKET_DIR), socket_name, n);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	close(fd);
	return -1;
}
