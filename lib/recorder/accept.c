/*
 * accept: the listening socket, and who may talk to us.
 */

#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "internal.h"

int
recorder_listen(struct recorder *rc, char *name, size_t cap)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned rnd;
	int fd, tries;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	for (tries = 0; tries < 16; tries++) {
		rnd = (unsigned)(clock_ns(rc) ^ (uint64_t)getpid() << 16) * 2654435761u;
		/* The pid comes last: the library checks we are alive by it. */
		snprintf(name, cap, "mt-record-%08x-%d", rnd + (unsigned)tries, (int)getpid());
		memset(sa.sun_path, 0, sizeof(sa.sun_path));
		memcpy(sa.sun_path + 1, name, strlen(name));
		if (bind(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))) == 0 &&
		    listen(fd, 128) == 0)
			return fd;
	}
	close(fd);
	return -1;
}

/*
 * Whether pid is a descendant of ours: 1, 0, or -1 when it is gone.  We
 * are the subreaper, so an orphan of ours stays ours.
 */
static int
descendant_of(pid_t pid, pid_t self)
{
	pid_t at, ppid;
	int hops, tries;

	/* An ancestor gone while we walk: its children are ours now. */
	for (tries = 0; tries < 4; tries++) {
		for (at = pid, hops = 0; hops < 4096 && at > 1; hops++) {
			if (!(ppid = proc_ppid(at)))
				break;
			if ((pid_t)ppid == self)
				return 1;
			at = (pid_t)ppid;
		}
		if (hops == 0 && at > 1)
			return -1;
		if (at <= 1 || hops == 4096)
			return 0;
	}
	return 0;
}

/*
 * Who may talk to us.  The socket's name is in /proc/net/unix for anyone
 * to read: a peer of another user is accepted only when it is alive and
 * our descendant (a program we run as root that dropped its privileges),
 * or the process we attached to (-p) or its descendant.
 * One of our own user is: it could do anything to us anyway, and the
 * process tree cannot vouch for it (a short process may have ended, and
 * its pid gone to another, before we get to it).
 */
static int
peer_ok(struct recorder *rc, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || cr.pid <= 0)
		return 0;
	return cr.uid == getuid() || descendant_of(cr.pid, getpid()) == 1 ||
	    (rc->attach_pid && (cr.pid == rc->attach_pid ||
	    descendant_of(cr.pid, rc->attach_pid) == 1));
}

void
recorder_accept(struct recorder *rc, int lfd)
{
	int fd;

	if (lfd < 0)
		return;
	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && rc->spare_fd >= 0) {
			/*
			 * Out of descriptors: the one waiting is closed, or
			 * the socket stays readable and we spin; the process
			 * runs on untraced.
			 */
			close(rc->spare_fd);
			if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
				close(fd);
				rc->refused++;
			}
			rc->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
			continue;
		}
		if (fd < 0)
			return;
		if (!peer_ok(rc, fd)) {
			close(fd);
			rc->refused++;
			continue;
		}
		add_proc(rc, fd);
	}
}

