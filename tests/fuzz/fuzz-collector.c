/*
 * libFuzzer: mt-record's collector on anything a traced process can send
 * it (the process, and whoever gets to its socket, is not trusted):
 * control messages on its connection, with memfds of a stack table or a
 * ring, and whatever it writes into its rings and table while we read
 * them.  Nothing of it may crash mt-record, hang it, or leak.
 *
 * The input is a list of steps, each a byte (the kind), two bytes of
 * length (little-endian) and that many bytes:
 *   0  a message (a struct mt_msg, its type made one we know, then data)
 *   1  a message with a stack table's memfd, its first bytes the data
 *   2  a message with a ring's memfd: the data from its start (head, tail,
 *      then on from the records)
 *   3  the data written into the newest ring's records, and its first
 *      eight bytes as the head: then a pass of the collector
 * and at the end mt-record's end of a recording.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mt.h"
#include "proto.h"
#include "recorder/recorder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct recorder *rc;
static struct mt_ring *newest;

static int
memfd_of(size_t size, const uint8_t *d, size_t n, size_t at, void **map)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	char *p;

	if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, MT_SEALS | F_SEAL_SEAL) < 0)
		abort();
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		abort();
	memcpy(p + at, d, n < size - at ? n : size - at);
	if (map)
		*map = p;
	else
		munmap(p, size);
	return fd;
}

static void
send_step(int s, int kind, const uint8_t *d, size_t n)
{
	char buf[sizeof(struct mt_msg) + 4096], cbuf[MT_CMSG_SPACE];
	struct iovec iov = { buf, 0 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct mt_msg m;
	void *ring;
	int fd = -1;

	iov.iov_len = n < sizeof(buf) ? n : sizeof(buf);
	memcpy(buf, d, iov.iov_len);
	if (iov.iov_len >= sizeof(m)) {
		memcpy(&m, buf, sizeof(m));
		m.type = 1 + m.type % 4;
		memcpy(buf, &m, sizeof(m));
	}
	if (kind == 1)
		fd = memfd_of(MT_STACK_BYTES(MT_STACK_WORDS_MIN), d, n, 0, NULL);
	else if (kind == 2) {
		fd = memfd_of(MT_RING_BYTES, d, n, 0, &ring);
		if (newest)
			munmap(newest, MT_RING_BYTES);
		newest = ring;
	}
	if (fd >= 0)
		mt_msg_fd(&mh, cbuf, fd);
	(void)sendmsg(s, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (fd >= 0)
		close(fd);
}

static void
pass(void)
{
	uint64_t w = recorder_drain_limit(rc, recorder_now(rc));
	size_t i;

	for (i = 0; i < recorder_npeers(rc); i++)
		if (recorder_read_peer(rc, i) == 0)
			recorder_close_peer(rc, i);
	for (i = 0; i < recorder_nrings(rc); i++)
		recorder_drain(rc, i, w, i & 1);
	recorder_merge(rc, w);
	recorder_release(rc);
}

/* Everything a recording held, let go of, for the next input. */
static void
forget(void)
{
	recorder_reset(rc);
	if (newest)
		munmap(newest, MT_RING_BYTES);
	newest = NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	size_t n;
	uint64_t head;

	if (!rc) {
		struct record_opts opts = { .time_unit = TIME_UNIT_DEFAULT };
		rc = recorder_new(&opts);
		recorder_begin(rc);
		recorder_set_writer(rc, trace_writer_new(open("/dev/null", O_WRONLY | O_CLOEXEC), 3));
		recorder_set_name(rc, "/dev/null");
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	recorder_add_peer(rc, sv[1]);
	while (size >= 3) {
		int kind = data[0] % 4;
		n = (size_t)data[1] | (size_t)data[2] << 8;
		data += 3;
		size -= 3;
		if (n > size)
			n = size;
		if (kind == 3) {
			if (newest && n >= 8) {
				memcpy(&head, data, 8);
				memcpy((char *)newest + MT_RING_HDR, data + 8,
				    n - 8 < MT_RING_BYTES - MT_RING_HDR ? n - 8 : MT_RING_BYTES - MT_RING_HDR);
				__atomic_store_n(&newest->head, head, __ATOMIC_RELEASE);
			}
			pass();
		} else {
			send_step(sv[0], kind, data, n);
			pass();
		}
		data += n;
		size -= n;
	}
	close(sv[0]);
	pass();
	recorder_finish(rc);
	forget();
	return 0;
}
