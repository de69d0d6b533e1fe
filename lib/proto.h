/*
 * What libmt-preload.so and mt-record share: the control messages sent
 * over a SOCK_SEQPACKET socket, one connection a process image, and the
 * shared-memory rings (one a thread) and stack table (one a process) that
 * the recorder reads while the program runs.  Nothing here is a file
 * format: both sides are always the same build.
 */
#ifndef MT_PROTO_H
#define MT_PROTO_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#define MT_ENV_SOCKET	"MT_RECORD_SOCKET"	/* abstract socket name */
/*
 * The same name under this directory is a socket too: abstract names
 * are a network namespace's own, and a process in one of its own
 * (unshare --net) connects there.
 */
#define MT_SOCKET_DIR	"/tmp/"
#define MT_ENV_DEPTH	"MT_RECORD_DEPTH"
#define MT_ENV_FLAGS	"MT_RECORD_FLAGS"	/* 'f': free stacks, 'n': no follow,
						   's': --unwind shadow, 'p': fp,
						   'c': compare with libunwind,
						   't': times are TSC ticks;
						   '-' where one is off */

/*
 * The time stamp counter, read after every earlier instruction is done
 * (its loads too), as the kernel's own clock_gettime reads it: a free
 * that another thread's allocation made possible reads it after that
 * allocation did, and an allocation after the free that gave its block
 * back.  Without the fence a read can run ahead of the loads before it.
 */
static inline uint64_t
mt_tsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

#define MT_RING_HDR	4096
#define MT_RING_RECS	(1u << 15)	/* records a thread's ring holds */
#define MT_RING_BYTES	(MT_RING_HDR + MT_RING_RECS * sizeof(struct mt_raw))

/*
 * The stack table: a header page, hash slots, and an arena of 8-byte
 * words, its size a power of two between these (the library takes less
 * than the most when the program's address space is limited: ulimit -v).
 * The recorder learns it from the memfd's size, sealed against change.
 */
#define MT_STACK_WORDS_MAX	(1u << 25)
#define MT_STACK_WORDS_MIN	(1u << 16)
#define MT_STACK_SLOTS(words)	((words) >> 5)	/* hash slots, a power of two */
#define MT_STACK_BYTES(words)	(4096 + (size_t)MT_STACK_SLOTS(words) * 4 + (size_t)(words) * 8)
#define MT_STACK_NONE	0u
/* What the recorder asks of a memfd it maps: that it can neither shrink
   nor grow (a shrunk one faults the reader). */
#define MT_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW)

/* Raw events in a ring, in the order the thread made them. */
enum mt_raw_type {
	RAW_ALLOC = 1,	/* addr, size, stack (heap malloc) */
	RAW_FREE,	/* addr, stack (heap malloc) */
	RAW_MMAP,	/* addr, size, stack; heap: mmap or reserve */
	RAW_MUNMAP,	/* addr, size */
	RAW_MREMAP_FROM,	/* addr, size: the old range; RAW_MREMAP_TO follows */
	RAW_MREMAP_TO,	/* addr, size, stack */
	RAW_MPROTECT,	/* addr, size, stack; heap: what the range becomes */
};

#define RAW_HEAP_MALLOC	0
#define RAW_HEAP_MMAP	1
#define RAW_HEAP_RESERVE	2
#define RAW_HEAP_NONE	3	/* mprotect: neither (read-only, say) */

#define RAW_EXEC	1	/* flags: the range is executable (JIT code) */

/* What a mapping's protection makes of its range: committed, reserved, or neither. */
static inline int
raw_heap_of_prot(int prot)
{
	if (prot & PROT_WRITE)
		return RAW_HEAP_MMAP;
	if (prot == PROT_NONE)
		return RAW_HEAP_RESERVE;
	return RAW_HEAP_NONE;
}

/* Whether an mmap's flags make the program's own memory: private and anonymous. */
static inline int
raw_anon_private(int flags)
{
	return (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE;
}

struct mt_raw {
	uint64_t ts;		/* CLOCK_MONOTONIC ns: the recorder makes it relative */
	uint64_t addr;
	uint64_t size;
	uint32_t stack;
	uint8_t type;
	uint8_t heap;
	uint16_t flags;
};

struct mt_ring {
	uint64_t head;		/* records written: the thread's */
	char pad1[56];
	uint64_t tail;		/* records read: the recorder's */
	char pad2[56];
	uint32_t closed;	/* the thread has ended */
	int32_t tid;
	uint32_t waiting;	/* a futex: the thread waits for room, to be woken */
};

struct mt_stack_table {
	uint64_t used;		/* arena words handed out; word 0 is never an id */
	uint64_t lost;		/* events the process could not deliver */
	uint64_t full;		/* stacks that found the table full */
	uint64_t fallback;	/* --unwind shadow: stacks libunwind took */
	uint64_t checked, differ;	/* the unwinders compared (check mode) */
	uint64_t unchecked;	/* check mode: libunwind's went through a
				   trampoline a signal stopped */
	uint64_t unwinder;	/* what takes the stacks: 's' shadow,
				   'l' libunwind, 'p' frame pointers */
	uint32_t detach;	/* attached: the recorder's, 1 to stop */
	uint32_t detached;	/* attached: the library's, 1 once stopped */
	uint64_t remembered;	/* check mode: of checked, from a walk the
				   shadow remembered (capture.c, shadow_state.h) */
	/* then uint32_t slots[MT_STACK_SLOTS] at 4096, the arena after */
};
#define MT_STACK_SLOT_PTR(t) ((uint32_t *)((char *)(t) + 4096))
#define MT_STACK_ARENA(t, words) \
	((uint64_t *)((char *)(t) + 4096 + (size_t)MT_STACK_SLOTS(words) * 4))
/* An arena entry: a word (frames << 1 | truncated), then the frames. */

enum mt_msg_type {
	MSG_HELLO = 1,	/* + exe NUL argv; SCM_RIGHTS: the stack table;
			   lo: a fork's time, when known */
	MSG_RING,	/* SCM_RIGHTS: a thread's ring */
	MSG_MAP,	/* + build-id (hex) NUL path */
	MSG_CHILD,	/* a child the process reaped: pid, status */
	MSG_ALLOCATOR,	/* + the file of its allocator, when not glibc's */
};

struct mt_msg {
	uint32_t type;
	int32_t pid, ppid, tid;
	uint64_t ts;
	uint64_t lo, hi, off;	/* map */
	int32_t child, status;	/* child: pid and wait status */
	uint32_t flags;
};
#define HELLO_FORKED 1	/* a fork's child: its modules are its parent's */
#define HELLO_AGAIN 2	/* a process whose connection was closed under it
			   (a daemon closing every descriptor): the same
			   process, its table and rings as they were */
#define HELLO_TSC 4	/* its times are TSC ticks ('t' in MT_ENV_FLAGS) */
#define HELLO_ATTACHED 8	/* loaded by mt-record -p, not LD_PRELOAD: it
				   stops when the table's detach says so */

#define MT_MSG_MAX 65536

/* A descriptor passed with a message: cbuf is CMSG_SPACE(sizeof(int)). */
#define MT_CMSG_SPACE CMSG_SPACE(sizeof(int))
static inline void
mt_msg_fd(struct msghdr *mh, char *cbuf, int fd)
{
	struct cmsghdr *c;

	memset(cbuf, 0, MT_CMSG_SPACE);
	mh->msg_control = cbuf;
	mh->msg_controllen = MT_CMSG_SPACE;
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
}

#endif
