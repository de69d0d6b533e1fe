/*
 * A traced program that turns on its recorder: it connects to
 * mt-record's socket again and hands it memfds that lie -- a stack table
 * and a ring of 0 bytes, and one of the right size left unsealed, which
 * it then shrinks.  mt-record must map none of them (a read of a mapping
 * past its file's end is a SIGBUS), and record the program's own events.
 *
 *   hostile-peer      prints "sent" and exits 0
 *
 * Other modes, each a lie mt-record must survive:
 *
 *   hostile-peer future    writes a record of a far-future time into its
 *                          own ring (found in /proc/self/maps); mt-record
 *                          waited for that time for ever
 *   hostile-peer scribble  sets its ring's head a terabyte ahead
 *   hostile-peer attack NAME [N]
 *                          run by another user, not traced: connects to
 *                          mt-record's socket NAME, says hello as "/sbin/
 *                          init" with a well-made table and a ring of ten
 *                          100 MiB allocations, opens N (default 2000)
 *                          more connections, prints "connected" and
 *                          holds them all until killed
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/proto.h"

static const char *payload = "/fake\0fake";
static size_t payload_len = 11;

static int
sendfd(int s, uint32_t type, int fd)
{
	struct mt_msg m = { .type = type, .pid = getpid(), .ppid = getppid(), .tid = getpid() };
	struct iovec iov[2] = { { &m, sizeof(m) }, { (char *)(uintptr_t)payload, payload_len } };
	char cbuf[MT_CMSG_SPACE];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = type == MSG_HELLO ? 2 : 1 };

	mt_msg_fd(&mh, cbuf, fd);
	return sendmsg(s, &mh, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

static int
connect_to(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	if (!name || s < 0)
		return -1;
	memcpy(sa.sun_path + 1, name, strlen(name));
	if (connect(s, (struct sockaddr *)&sa,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))) < 0)
		return -1;
	return s;
}

/* This thread's ring, which the library mapped: the newest. */
static struct mt_ring *
own_ring(void)
{
	char line[512];
	uintptr_t lo, found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/memfd:mt-ring") && sscanf(line, "%" SCNxPTR "-", &lo) == 1)
			found = lo;
	fclose(f);
	return (struct mt_ring *)found;
}

static int
lie_in_ring(int scribble)
{
	struct mt_ring *g;
	struct mt_raw *recs;
	struct timespec t;
	void *volatile p;

	p = malloc(1234);	/* the ring made, and one record in it */
	free(p);
	if (!(g = own_ring()))
		return 1;
	p = malloc(4321);
	free(p);
	if (scribble) {
		g->head += (uint64_t)1 << 40;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &t);
		recs = (struct mt_raw *)((char *)g + MT_RING_HDR);
		recs[g->head & (MT_RING_RECS - 1)] = (struct mt_raw){
		    .ts = (uint64_t)t.tv_sec * 1000000000u * 1000, .addr = 0x1000,
		    .size = 99, .type = RAW_ALLOC };
		__atomic_store_n(&g->head, g->head + 1, __ATOMIC_RELEASE);
	}
	/* Nothing allocated after: the library's next record would write
	   over the lie, and its next head over ours. */
	if (write(1, "sent\n", 5) != 5)
		return 1;
	_exit(0);
}

/* A stack table and a ring as the library makes them, sealed. */
static int
sealed(size_t size, void **map)
{
	int fd = (int)syscall(SYS_memfd_create, "x", MFD_ALLOW_SEALING);

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, MT_SEALS | F_SEAL_SEAL) < 0)
		return -1;
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return *map == MAP_FAILED ? -1 : fd;
}

static int
attack(const char *name, int n)
{
	static const char init[] = "/sbin/init\0/sbin/init";
	struct mt_stack_table *table;
	struct mt_ring *g;
	struct mt_raw *recs;
	int s, tfd, rfd, i;

	if ((s = connect_to(name)) < 0 ||
	    (tfd = sealed(MT_STACK_BYTES(MT_STACK_WORDS_MIN), (void **)&table)) < 0 ||
	    (rfd = sealed(MT_RING_BYTES, (void **)&g)) < 0)
		return 1;
	table->used = 1;
	recs = (struct mt_raw *)((char *)g + MT_RING_HDR);
	for (i = 0; i < 10; i++)
		recs[i] = (struct mt_raw){ .ts = 1000, .addr = 0x100000000ull * (unsigned)(i + 1),
		    .size = 100 << 20, .type = RAW_ALLOC };
	g->head = 10;
	payload = init;
	payload_len = sizeof(init);
	/* A refused connection fails at the first send, or at a later one. */
	sendfd(s, MSG_HELLO, tfd);
	sendfd(s, MSG_RING, rfd);
	for (i = 0; i < n; i++)
		if (connect_to(name) < 0)
			break;
	printf("connected\n");
	fflush(stdout);
	for (;;)
		pause();
}

int
main(int argc, char **argv)
{
	int s, empty, big;
	void *volatile p;

	if (argc > 1 && strcmp(argv[1], "future") == 0)
		return lie_in_ring(0);
	if (argc > 1 && strcmp(argv[1], "scribble") == 0)
		return lie_in_ring(1);
	if (argc > 2 && strcmp(argv[1], "attack") == 0)
		return attack(argv[2], argc > 3 ? atoi(argv[3]) : 2000);
	p = malloc(1234);
	free(p);
	if (!getenv(MT_ENV_SOCKET) || (s = connect_to(getenv(MT_ENV_SOCKET))) < 0)
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
