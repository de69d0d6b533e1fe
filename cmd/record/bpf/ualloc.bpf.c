/*
 * ualloc.bpf: uprobes on the allocation functions of a process, each
 * call's block, size, time, thread and user stack sent to mt-record
 * through a ring buffer.  The probes are attached for one process (the
 * kernel filters by its mm), so nothing here checks the pid.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ualloc.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} ring SEC(".maps");

/* The call a thread is in: what its entry knew, for its return.  A call
   inside another of its heap (memalign in valloc) is not one. */
struct call {
	__u64 size, memptr, probe_ip;
	__u32 cookie, depth;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct call);
} calls SEC(".maps");

/* The key of a thread's call in a heap: its tid, and the heap's number. */
static __u64
call_key(struct pt_regs *ctx)
{
	return (__u32)bpf_get_current_pid_tgid() | (__u64)UA_HEAP(bpf_get_attach_cookie(ctx)) << 32;
}

/* A pool function's argument, the one its cookie names.  Each read at
   its own constant offset first: the verifier refuses a computed one. */
static __u64
arg_of(struct pt_regs *ctx)
{
	__u64 a1 = PT_REGS_PARM1(ctx), a2 = PT_REGS_PARM2(ctx), a3 = PT_REGS_PARM3(ctx);
	__u64 a4 = PT_REGS_PARM4(ctx), a5 = PT_REGS_PARM5(ctx), a6 = ctx->r9;

	switch (UA_ARG(bpf_get_attach_cookie(ctx))) {
	case 2: return a2;
	case 3: return a3;
	case 4: return a4;
	case 5: return a5;
	case 6: return a6;	/* r9: this libbpf has no PT_REGS_PARM6 */
	default: return a1;
	}
}

/* Set by mt-record before loading: frees with their stacks (--free-stacks). */
const volatile int free_stacks = 0;

/* Events the ring had no room for, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/* An event built off the stack (too big for BPF's 512 bytes). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ua_event);
} scratch SEC(".maps");

static void
count_lost(void)
{
	__u32 z = 0;
	__u64 *n = bpf_map_lookup_elem(&lost, &z);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * An event into the ring, as long as its frames: mt-record is woken only
 * when the ring is a quarter full, else it reads on its own every few
 * milliseconds (a wakeup an event doubled the cost of a call).
 */
static void
send(struct ua_event *e)
{
	__u64 n = e->nips, size;
	long flags;

	if (n > UA_FRAMES)
		n = UA_FRAMES;
	size = sizeof(*e) - sizeof(e->ips) + n * sizeof(e->ips[0]);
	flags = bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) > (4 << 20) ?
	    BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	if (bpf_ringbuf_output(&ring, e, size, flags))
		count_lost();
}

/*
 * The user stack: at an entry, the return address on top of the stack,
 * then the frame-pointer chain of the callers above; at a return, where
 * it returns to and the chain from there (the caller's own frame).
 */
static void
take_stack(struct pt_regs *ctx, struct ua_event *e, int entry)
{
	__u64 ret = 0;
	long n;

	n = bpf_get_stack(ctx, e->ips, sizeof(e->ips), BPF_F_USER_STACK);
	e->nips = n > 0 ? (unsigned int)((__u64)n / 8) : 0;
	if (entry && bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(ctx)) == 0) {
		e->ips[0] = ret;
		if (!e->nips)
			e->nips = 1;
	}
}

static int
enter(struct pt_regs *ctx, __u64 size, __u64 memptr)
{
	__u64 key = call_key(ctx);
	struct call *c = bpf_map_lookup_elem(&calls, &key), n;

	if (c) {
		c->depth++;
		return 0;
	}
	n.size = size;
	n.memptr = memptr;
	n.probe_ip = PT_REGS_IP(ctx);
	n.cookie = (__u32)bpf_get_attach_cookie(ctx);
	n.depth = 1;
	if (bpf_map_update_elem(&calls, &key, &n, BPF_ANY))
		count_lost();
	return 0;
}

/* The call's return: its block sent, with the stack it returns into. */
static int
leave(struct pt_regs *ctx, __u64 addr, int ok)
{
	__u64 id = bpf_get_current_pid_tgid(), key = call_key(ctx);
	struct call *c = bpf_map_lookup_elem(&calls, &key);
	struct ua_event *e;
	__u32 z = 0;

	if (!c)
		return 0;
	if (--c->depth > 0)
		return 0;
	if (c->memptr) {
		/* posix_memalign: 0 and the block where it was asked. */
		addr = 0;
		if (ok)
			bpf_probe_read_user(&addr, sizeof(addr), (void *)c->memptr);
	}
	if (addr && (e = bpf_map_lookup_elem(&scratch, &z))) {
		e->ts = bpf_ktime_get_ns();
		e->addr = addr;
		e->size = c->size;
		e->old = 0;
		e->memptr = 0;
		e->pid = (__u32)(id >> 32);
		e->tid = (__u32)id;
		e->kind = UA_ALLOC;
		e->depth = 0;
		e->cookie = c->cookie;
		e->probe_ip = c->probe_ip;
		take_stack(ctx, e, 0);
		send(e);
	}
	bpf_map_delete_elem(&calls, &key);
	return 0;
}

/* A block freed: sent at once, so that no allocation of its address by
   another thread can come before it (realloc's old block too). */
static void
send_free(struct pt_regs *ctx, __u64 addr)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ua_event *e;
	__u32 z = 0;

	if (!(e = bpf_map_lookup_elem(&scratch, &z)))
		return;
	e->ts = bpf_ktime_get_ns();
	e->addr = addr;
	e->size = 0;
	e->old = 0;
	e->memptr = 0;
	e->pid = (__u32)(id >> 32);
	e->tid = (__u32)id;
	e->kind = UA_FREE;
	e->depth = 0;
	e->cookie = (__u32)bpf_get_attach_cookie(ctx);
	e->probe_ip = PT_REGS_IP(ctx);
	e->nips = 0;
	if (free_stacks)
		take_stack(ctx, e, 1);
	send(e);
}

SEC("uprobe")
int BPF_KPROBE(malloc_in, __u64 size) { return enter(ctx, size, 0); }
SEC("uprobe")
int BPF_KPROBE(calloc_in, __u64 n, __u64 size) { return enter(ctx, n * size, 0); }
SEC("uprobe")
int BPF_KPROBE(realloc_in, __u64 old, __u64 size)
{
	__u64 key = call_key(ctx);

	if (old && !bpf_map_lookup_elem(&calls, &key))
		send_free(ctx, old);
	return enter(ctx, size, 0);
}
/* memalign, aligned_alloc: the size second. */
SEC("uprobe")
int BPF_KPROBE(memalign_in, __u64 align, __u64 size) { return enter(ctx, size, 0); }
SEC("uprobe")
int BPF_KPROBE(posix_memalign_in, __u64 memptr, __u64 align, __u64 size)
{
	return enter(ctx, size, memptr ? memptr : 1);
}
SEC("uretprobe")
int BPF_KRETPROBE(alloc_out, __u64 ret) { return leave(ctx, ret, 1); }
/* posix_memalign's return is 0 or an error number. */
SEC("uretprobe")
int BPF_KRETPROBE(posix_memalign_out, int ret) { return leave(ctx, 0, ret == 0); }

SEC("uprobe")
int BPF_KPROBE(free_in, __u64 addr)
{
	__u64 key = call_key(ctx);

	/* NULL, or a free inside an allocation function: not the program's. */
	if (addr && !bpf_map_lookup_elem(&calls, &key))
		send_free(ctx, addr);
	return 0;
}

/* A pool's functions (--alloc-fn): the size, or the block, where the cookie says. */
SEC("uprobe")
int BPF_KPROBE(pool_in) { return enter(ctx, arg_of(ctx), 0); }
SEC("uprobe")
int BPF_KPROBE(pool_free_in)
{
	__u64 key = call_key(ctx), addr = arg_of(ctx);

	if (addr && !bpf_map_lookup_elem(&calls, &key))
		send_free(ctx, addr);
	return 0;
}

/*
 * The program's entry point, after the dynamic linker loaded its
 * libraries: stopped there once, for mt-record to probe them too.
 */
SEC("uprobe")
int BPF_KPROBE(entry_stop)
{
	bpf_send_signal(19);	/* SIGSTOP */
	return 0;
}
