/*
 * mt-record's collector (lib/recorder/), driven by hand through its API as
 * the fuzz target drives it, in the order that lost an exit: a parent tells of its
 * child's end before the child's connection is accepted, the merge
 * writes the end (of nobody, then), and only after that the child's
 * hello is read.  The child's exit was "-"; it must be its status.
 *
 *   collector-early-exit TRACE     writes TRACE, prints the child's pid
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt.h"
#include "proto.h"
#include "recorder/recorder.h"

/* A hello as the library says it, with a sealed stack table. */
static void
say_hello(int s, const char *exe)
{
	struct mt_msg m = { .type = MSG_HELLO, .pid = getpid(), .ppid = getppid(), .ts = mt_monotonic_ns() };
	size_t size = MT_STACK_BYTES(MT_STACK_WORDS_MIN);
	int fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	struct iovec iov[2] = { { &m, sizeof(m) }, { (char *)(uintptr_t)exe, strlen(exe) + 1 } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	char cbuf[MT_CMSG_SPACE];

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 || fcntl(fd, F_ADD_SEALS, MT_SEALS | F_SEAL_SEAL) < 0)
		exit(3);
	mt_msg_fd(&mh, cbuf, fd);
	if (sendmsg(s, &mh, 0) < 0)
		exit(3);
	close(fd);
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct mt_msg m = { .type = MSG_CHILD };
	struct record_opts opts = { .time_unit = TIME_UNIT_DEFAULT };
	struct trace_writer *writer;
	struct recorder *rc;
	int parent[2], lfd, s, st;
	char name[96];
	pid_t pid;

	if (argc != 2)
		return 2;
	/* Times of the clock the hellos take theirs from: not the TSC. */
	rc = recorder_new(&opts);
	recorder_begin(rc);
	writer = trace_writer_new(open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600), 3);
	recorder_set_writer(rc, writer);
	recorder_set_name(rc, argv[1]);
	/* The child connects as the library does: its own peer credentials. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, parent) < 0 ||
	    (lfd = recorder_listen(rc, name, sizeof(name))) < 0)
		return 3;
	memcpy(sa.sun_path + 1, name, strlen(name));
	say_hello(parent[0], "/parent");
	recorder_add_peer(rc, parent[1]);
	recorder_read_peer(rc, 0);
	if ((pid = fork()) == 0) {
		s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (s < 0 || connect(s, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))) < 0)
			_exit(3);
		say_hello(s, "/child");
		_exit(7);
	}
	if (waitpid(pid, &st, 0) != pid)
		return 3;
	/* The parent tells; the merge goes past it; then the child's hello. */
	m.pid = getpid();
	m.child = pid;
	m.status = st;
	m.ts = mt_monotonic_ns();
	if (send(parent[0], &m, sizeof(m), 0) < 0)
		return 3;
	recorder_read_peer(rc, 0);
	recorder_merge(rc, recorder_now(rc));
	recorder_accept(rc, lfd);
	if (recorder_npeers(rc) != 2)
		return 3;
	recorder_read_peer(rc, 1);
	recorder_merge(rc, recorder_now(rc));
	recorder_finish(rc);
	trace_end(writer);
	recorder_free(rc);
	printf("%d\n", (int)pid);
	return 0;
}
