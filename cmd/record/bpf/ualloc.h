/* ualloc: what the uprobes' BPF program and mt-record's collector share. */
#ifndef MT_UALLOC_H
#define MT_UALLOC_H

#define UA_FRAMES 48		/* frames a stack keeps, innermost first */
#define UA_TOP 16		/* words of the user stack a system call's event keeps */
#define UA_COPY_MAX 65536	/* the most of the user stack an event copies */
#define UA_PENDING 4		/* calls of ours under way an event says */

/* The `traced' map's value: the process is recorded; its stacks are
   copies of the stack, unwound by mt-record, not frame-pointer chains. */
#define UA_TRACED 1
#define UA_DWARF 2
/* Held by mt-record's ptrace: a stop of ours is seen by mt-record alone,
   so a thread may stop while the ring is read. */
#define UA_HOLD 4

/*
 * An event's kind: a block's; a call of the mmap family (a tracepoint's
 * cookie); or a process's: forked (stopped at its first return, ppid in
 * old), its exec (stopped before its first instruction), its entry point
 * reached (stopped), its end (the wait status in size).
 */
enum { UA_ALLOC = 1, UA_FREE, UA_MMAP, UA_MUNMAP, UA_MREMAP, UA_MPROTECT, UA_BRK,
	UA_FORK, UA_EXEC, UA_ENTRY, UA_EXIT, UA_NKINDS };

/*
 * A probe's BPF cookie: its site (the collector's index) in the low 16
 * bits; for a pool's functions (--alloc-fn), the argument holding the
 * size or the block (1 to 6) in bits 16-19 and the pool's number in bits
 * 24-31, 0 for the malloc family.  A call is nested in another of its
 * own heap only: a pool's malloc of a chunk is recorded.  Bits 32-63:
 * the process the probe was attached for, whose calls alone it sees.
 */
#define UA_SITE(c)	((c) & 0xffff)
#define UA_ARG(c)	(((c) >> 16) & 0xf)
#define UA_HEAP(c)	(((c) >> 24) & 0xff)
#define UA_PID(c)	((unsigned int)((c) >> 32))
/* The probe's file is a shared C library: its direct calls of free are its own. */
#define UA_OWN		(1u << 20)
#define UA_COOKIE(site, arg, heap, pid)	((site) | ((arg) << 16) | \
	((unsigned long long)(heap) << 24) | ((unsigned long long)(pid) << 32))

/* One call's event, as the ring carries it. */
struct ua_event {
	unsigned long long ts;		/* CLOCK_MONOTONIC ns, at the call's end */
	unsigned long long addr;	/* the block given, or freed; the range; brk's new end */
	unsigned long long size;
	unsigned long long old;		/* mremap's old range; brk's old end */
	unsigned long long memptr;	/* posix_memalign: where the block goes */
	unsigned long long old_size;	/* mremap: the old range's length */
	/* Calls probed under way in the thread (a brk inside malloc): where
	   each returns to, which the kernel's uretprobe replaced on the stack
	   by its trampoline, and that place's address. */
	unsigned long long pend_ret[UA_PENDING], pend_at[UA_PENDING];
	unsigned int prot, mflags;	/* mmap's, mprotect's */
	unsigned int pid, tid;
	unsigned int kind;
	unsigned int depth;		/* calls of ours on this thread, nested */
	unsigned int nips;
	unsigned int cookie;		/* which probe: the collector's index */
	unsigned int copy;		/* a ua_regs and the stack's copy follow, not ips */
	unsigned int pad;
	unsigned long long probe_ip;	/* where that probe is in the process */
	unsigned long long ips[UA_FRAMES];
	/* A system call's alone (its event is whole, the others end with
	   their frames): the top of the user stack. */
	unsigned long long top[UA_TOP];
};

/* An event's fields before its frames: what one with a copy sends of it. */
#define UA_HEAD (sizeof(struct ua_event) - (UA_FRAMES + UA_TOP) * sizeof(unsigned long long))
/* Whether an event's kind is a system call's, whose event is whole. */
#define UA_IS_CALL(k)	((k) >= UA_MMAP && (k) <= UA_BRK)

/*
 * After the head of an event whose stack is copied: the user registers
 * the call frame information needs (at a return, ip is where it returns
 * to; at an entry or a system call, where the thread is), and how many
 * bytes from sp the copy holds; the copy follows.
 */
struct ua_regs {
	unsigned long long ip, sp, bp, len;
};

#endif
