/*
 * ualloc.bpf: uprobes on the allocation functions of a process, each
 * call's block, size, time, thread and user stack sent to mt-record
 * through a ring buffer; and the mmap family's system calls, by
 * tracepoint, for the processes mt-record names in `traced'.  The probes
 * are attached for one process (the kernel filters by its mm), so they
 * do not check the pid; the tracepoints fire for every process, and do.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "ualloc.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} ring SEC(".maps");

/* The processes recorded, by pid: mt-record names them (UA_TRACED,
   UA_DWARF). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/*
 * The threads and processes our program has sent a SIGSTOP to, not yet
 * seen stopped by mt-record: under ptrace (UA_HOLD) the stop is reported
 * to mt-record alone, which tells its own from the program's by this.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u8);
} stops SEC(".maps");

/* The call a thread is in: what its entry knew, for its return.  A call
   inside another of its heap (memalign in valloc) is not one. */
struct call {
	__u64 size, memptr, probe_ip;
	__u64 sp;		/* the stack pointer at its entry */
	__u64 ret;		/* where it returns to: [sp] at its entry */
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

/* The flags of a process recorded (UA_TRACED...); 0 when it is not, or
   not yet: the probes of a process attached to are all in before any
   fires, so that no allocation is seen without its free's probe. */
static __u8
traced_flags(__u32 pid)
{
	__u8 *t = bpf_map_lookup_elem(&traced, &pid);

	return t ? *t : 0;
}

/*
 * Whether the probe that fired was attached for this process.  A child
 * of vfork or posix_spawn runs in its parent's memory until its exec, so
 * the kernel fires the parent's probes in it as well as its own: each
 * call would be seen twice, the second entry taken for a call whose
 * return was lost, and a free sent twice.
 */
static int
own_probe(struct pt_regs *ctx)
{
	__u32 pid = UA_PID(bpf_get_attach_cookie(ctx));

	return !pid || pid == (__u32)(bpf_get_current_pid_tgid() >> 32);
}

/* Set by mt-record before loading: frees with their stacks (--free-stacks). */
const volatile int free_stacks = 0;
/* The bytes of user stack an event copies for a process whose stacks are
   unwound by mt-record (UA_DWARF): a multiple of 4096, or 0. */
const volatile unsigned int stack_copy = 0;
/* The pools probed (--alloc-fn): heaps 1 to npools. */
const volatile unsigned int npools = 0;

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

/* Calls whose return the kernel did not report, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} unseen SEC(".maps");

static void
count(void *map)
{
	__u32 z = 0;
	__u64 *n = bpf_map_lookup_elem(map, &z);

	if (n)
		__sync_fetch_and_add(n, 1);
}

static void
count_lost(void)
{
	count(&lost);
}

/*
 * Whether this probe's call is inside c: deeper in the stack, or at its
 * depth in another function, a tail call (realloc of NULL jumps to
 * malloc).  The same function at the same depth is a new call, the
 * other's return not seen (a longjmp out of it).
 */
static int
nested(struct pt_regs *ctx, struct call *c)
{
	return PT_REGS_SP(ctx) < c->sp || (PT_REGS_SP(ctx) == c->sp && PT_REGS_IP(ctx) != c->probe_ip);
}

/*
 * The call of its heap the thread is in, if this one is inside it: deeper
 * in the stack (nested).  One at or above it has returned, its return unseen (a
 * longjmp out of it, or a uretprobe the kernel dropped), and is over.
 */
static struct call *
inside(struct pt_regs *ctx, __u64 key)
{
	struct call *c = bpf_map_lookup_elem(&calls, &key);

	return c && nested(ctx, c) ? c : NULL;
}

/*
 * The thread's calls of ours under way but that of heap `skip' (the one
 * returning), into the event: the trampoline the kernel put in place of
 * each's return address is not where it returns.
 */
static void
pending(struct ua_event *e, int skip)
{
	__u64 key;
	struct call *c;
	__u32 h, k = 0;

	__builtin_memset(e->pend_ret, 0, sizeof(e->pend_ret));
	__builtin_memset(e->pend_at, 0, sizeof(e->pend_at));
	for (h = 0; h <= 16 && h <= npools && k < UA_PENDING; h++) {
		if ((int)h == skip)
			continue;
		key = e->tid | (__u64)h << 32;
		if ((c = bpf_map_lookup_elem(&calls, &key))) {
			e->pend_ret[k & (UA_PENDING - 1)] = c->ret;
			e->pend_at[k & (UA_PENDING - 1)] = c->sp;
			k++;
		}
	}
}

/* The ring's size, set by mt-record before loading. */
const volatile __u64 ring_size = 16 << 20;

/* The ring's wakeup: when it is a quarter full. */
static long
wakeup(void)
{
	return bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) > ring_size / 4 ?
	    BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

/*
 * A thread of a process held by ptrace (UA_HOLD) whose event left the
 * ring half full stops as it returns to its program, until mt-record
 * has read the ring: no event is lost to a collector that falls behind,
 * and nobody but mt-record sees the stop.
 */
static void
hold_if_full(__u32 pid, __u32 tid)
{
	__u8 one = 1;

	if (!(traced_flags(pid) & UA_HOLD) ||
	    bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA) < ring_size / 2)
		return;
	if (bpf_map_update_elem(&stops, &tid, &one, BPF_ANY) == 0)
		bpf_send_signal_thread(19);	/* SIGSTOP */
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

	if (n > UA_FRAMES)
		n = UA_FRAMES;
	size = UA_IS_CALL(e->kind) ? sizeof(*e) : UA_HEAD + n * sizeof(e->ips[0]);
	e->copy = 0;
	if (bpf_ringbuf_output(&ring, e, size, wakeup()))
		count_lost();
	else
		hold_if_full(e->pid, e->tid);
}

/* Whether the process's stacks are copies (UA_DWARF). */
static int
copies_stack(__u32 pid)
{
	__u8 *t;

	if (!stack_copy)
		return 0;
	t = bpf_map_lookup_elem(&traced, &pid);
	return t && (*t & UA_DWARF);
}

/*
 * The user stack from sp up, stack_copy bytes: page by page, since a
 * read that meets an unmapped page gets nothing (the top of the main
 * thread's stack); what it has read until then is the copy.  Its last
 * page may go past stack_copy, into the record's page of slack: a read
 * of the rest alone is not one the verifier can bound.
 */
static __u64
copy_stack(char *dst, __u64 sp)
{
	__u64 at, off, n = 4096 - (sp & 4095);
	int i;

	if (bpf_probe_read_user(dst, n, (void *)sp))
		return 0;
	at = n;
	for (i = 0; i < UA_COPY_MAX / 4096; i++) {
		/* Bounded where it is used: the compiler would otherwise make
		   dst + at a pointer the verifier cannot bound. */
		off = at;
		__asm__ volatile("" : "+r"(off));
		if (off >= stack_copy)
			break;
		if (bpf_probe_read_user(dst + off, 4096, (void *)(sp + off)))
			break;
		at = off + 4096;
	}
	return at < stack_copy ? at : stack_copy;
}

/* An event, with a copy of the stack for its frames. */
static void
send_copy(struct ua_event *e, __u64 ip, __u64 sp, __u64 bp)
{
	char *r = bpf_ringbuf_reserve(&ring, UA_HEAD + sizeof(struct ua_regs) + stack_copy + 4096,
	    0);
	struct ua_regs *g;

	if (!r) {
		count_lost();
		return;
	}
	e->nips = 0;
	e->copy = 1;
	bpf_probe_read_kernel(r, UA_HEAD, e);
	g = (struct ua_regs *)(r + UA_HEAD);
	g->ip = ip;
	g->sp = sp;
	g->bp = bp;
	g->len = copy_stack(r + UA_HEAD + sizeof(*g), sp);
	bpf_ringbuf_submit(r, wakeup());
	hold_if_full(e->pid, e->tid);
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

	if (!traced_flags((__u32)(bpf_get_current_pid_tgid() >> 32)) || !own_probe(ctx))
		return 0;
	if (c && nested(ctx, c)) {
		c->depth++;
		return 0;
	}
	if (c)
		count(&unseen);
	n.size = size;
	n.memptr = memptr;
	n.sp = PT_REGS_SP(ctx);
	n.ret = 0;
	bpf_probe_read_user(&n.ret, sizeof(n.ret), (void *)n.sp);
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

	if (!c || !own_probe(ctx))
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
		pending(e, (int)UA_HEAP(c->cookie));
		if (copies_stack(e->pid)) {
			send_copy(e, PT_REGS_IP(ctx), PT_REGS_SP(ctx), PT_REGS_FP(ctx));
		} else {
			take_stack(ctx, e, 0);
			send(e);
		}
	}
	bpf_map_delete_elem(&calls, &key);
	return 0;
}

/*
 * Whether a free is the C library's own business: a direct call from
 * inside the shared library that defines it (UA_OWN in the cookie), as
 * glibc's tcache_thread_shutdown frees at a thread's end the cache it
 * allocated by its internal _int_malloc, which no probe sees.  The
 * program's calls, and the library's on the program's behalf, come
 * through the PLT, and the preload library sees just those.
 */
static int
own_call(struct pt_regs *ctx)
{
	__u64 ret = 0;
	int rel = 0;
	__u8 op = 0;

	if (!(bpf_get_attach_cookie(ctx) & UA_OWN) ||
	    bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(ctx)) ||
	    bpf_probe_read_user(&op, 1, (void *)(ret - 5)) ||
	    bpf_probe_read_user(&rel, 4, (void *)(ret - 4)))
		return 0;
	return op == 0xe8 && ret + (__s64)rel == PT_REGS_IP(ctx);
}

/* A block freed: sent at once, so that no allocation of its address by
   another thread can come before it (realloc's old block too). */
static void
send_free(struct pt_regs *ctx, __u64 addr)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct ua_event *e;
	__u32 z = 0;

	if (!traced_flags((__u32)(id >> 32)) || !own_probe(ctx) || own_call(ctx) ||
	    !(e = bpf_map_lookup_elem(&scratch, &z)))
		return;
	e->ts = bpf_ktime_get_ns();
	e->addr = addr;
	e->size = 0;
	e->old = 0;
	e->memptr = 0;
	e->old_size = 0;
	e->prot = e->mflags = 0;
	e->pid = (__u32)(id >> 32);
	e->tid = (__u32)id;
	e->kind = UA_FREE;
	e->depth = 0;
	e->cookie = (__u32)bpf_get_attach_cookie(ctx);
	e->probe_ip = PT_REGS_IP(ctx);
	e->nips = 0;
	if (free_stacks)
		pending(e, -1);
	if (free_stacks && copies_stack(e->pid)) {
		send_copy(e, PT_REGS_IP(ctx), PT_REGS_SP(ctx), PT_REGS_FP(ctx));
		return;
	}
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

	if (old && !inside(ctx, key))
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
	if (addr && !inside(ctx, key))
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

	if (addr && !inside(ctx, key))
		send_free(ctx, addr);
	return 0;
}


/*
 * The mmap family, by tracepoint.  The kernel's own types, as much of
 * them as is read here: CO-RE places each field where the running
 * kernel's BTF says it is.
 */
struct mm_struct {
	unsigned long brk;
} __attribute__((preserve_access_index));
struct signal_struct {
	struct {
		int counter;
	} live;			/* its threads not yet exited */
} __attribute__((preserve_access_index));
struct task_struct {
	struct mm_struct *mm;
	struct task_struct *real_parent;
	struct signal_struct *signal;
	int pid, tgid, exit_code;
	__u64 start_time;	/* CLOCK_MONOTONIC ns, bpf_ktime_get_ns's clock */
} __attribute__((preserve_access_index));

/* A thread's call in progress: its arguments, for its return. */
struct sys_call {
	__u64 ts, args[5], brk;
	__u32 kind;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct sys_call);
} sys_calls SEC(".maps");

/* The syscalls' tracepoints' records (their format files under tracefs). */
struct sys_enter_rec {
	__u64 common;
	int nr, pad;
	__u64 args[6];
};
struct sys_exit_rec {
	__u64 common;
	int nr, pad;
	long ret;
};

/* A call's entry, of a process recorded: its kind is the tracepoint's cookie. */
SEC("tracepoint")
int sys_in(struct sys_enter_rec *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = (__u32)(id >> 32), tid = (__u32)id;
	struct task_struct *t;
	struct sys_call c;

	if (!bpf_map_lookup_elem(&traced, &pid))
		return 0;
	__builtin_memset(&c, 0, sizeof(c));
	c.ts = bpf_ktime_get_ns();
	c.kind = (__u32)bpf_get_attach_cookie(ctx);
	/* Only the call's own arguments: the kernel refuses to attach a
	   program that reads past a tracepoint's record to a shorter one. */
	switch (c.kind) {
	case UA_MMAP:
	case UA_MREMAP:
		bpf_probe_read_kernel(c.args, 5 * sizeof(__u64), ctx->args);
		break;
	case UA_MPROTECT:
		bpf_probe_read_kernel(c.args, 3 * sizeof(__u64), ctx->args);
		break;
	case UA_MUNMAP:
		bpf_probe_read_kernel(c.args, 2 * sizeof(__u64), ctx->args);
		break;
	default:
		bpf_probe_read_kernel(c.args, sizeof(__u64), ctx->args);
	}
	if (c.kind == UA_BRK) {
		t = (struct task_struct *)bpf_get_current_task();
		c.brk = BPF_CORE_READ(t, mm, brk);
	}
	if (bpf_map_update_elem(&sys_calls, &tid, &c, BPF_ANY))
		count_lost();
	return 0;
}

/*
 * The top of the user stack: where a system call's wrapper returns to is
 * among its first words (the frame-pointer chain starts above its caller,
 * the wrapper being a leaf without a frame of its own); the collector
 * takes the first that is code.
 */
static void
top_of_user_stack(__u64 *top)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	__u64 sp = 0;

	if (bpf_probe_read_kernel(&sp, sizeof(sp), &PT_REGS_SP(regs)) < 0 || !sp ||
	    bpf_probe_read_user(top, UA_TOP * sizeof(__u64), (void *)sp) < 0)
		__builtin_memset(top, 0, UA_TOP * sizeof(__u64));
}

/* An event of a system call, with a copy of the stack at the call. */
static void
send_copy_user(struct ua_event *e)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	__u64 ip = 0, sp = 0, bp = 0;

	bpf_probe_read_kernel(&ip, sizeof(ip), &PT_REGS_IP(regs));
	bpf_probe_read_kernel(&sp, sizeof(sp), &PT_REGS_SP(regs));
	bpf_probe_read_kernel(&bp, sizeof(bp), &PT_REGS_FP(regs));
	send_copy(e, ip, sp, bp);
}

/* Its return: what it did, sent if it succeeded. */
SEC("tracepoint")
int sys_out(struct sys_exit_rec *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, z = 0;
	struct sys_call *c = bpf_map_lookup_elem(&sys_calls, &tid);
	long ret = ctx->ret;
	struct ua_event *e;
	int ok;

	if (!c)
		return 0;
	switch (c->kind) {
	case UA_MMAP:
	case UA_MREMAP:
		ok = ret < -4095 || ret >= 0;
		break;
	case UA_BRK:
		ok = (__u64)ret != c->brk;
		break;
	default:
		ok = ret == 0;
	}
	if (ok && (e = bpf_map_lookup_elem(&scratch, &z))) {
		/* The time of its entry: a range freed is freed before another
		   thread can map it again. */
		e->ts = c->kind == UA_MMAP ? bpf_ktime_get_ns() : c->ts;
		e->pid = (__u32)(id >> 32);
		e->tid = tid;
		e->kind = c->kind;
		e->depth = e->cookie = 0;
		e->probe_ip = e->memptr = 0;
		e->addr = c->kind == UA_MMAP || c->kind == UA_MREMAP || c->kind == UA_BRK ?
		    (__u64)ret : c->args[0];
		e->size = c->args[1];
		e->old = e->old_size = 0;
		e->prot = e->mflags = 0;
		if (c->kind == UA_MMAP || c->kind == UA_MPROTECT)
			e->prot = (unsigned int)c->args[2];
		if (c->kind == UA_MMAP)
			e->mflags = (unsigned int)c->args[3];
		if (c->kind == UA_MREMAP) {
			e->old = c->args[0];
			e->old_size = c->args[1];
			e->size = c->args[2];
		}
		if (c->kind == UA_BRK) {
			e->old = c->brk;
			e->size = 0;
		}
		e->nips = 0;
		__builtin_memset(e->top, 0, sizeof(e->top));
		/* A munmap has no stack unless frees have theirs (-F). */
		if (c->kind != UA_MUNMAP || free_stacks)
			pending(e, -1);
		if ((c->kind != UA_MUNMAP || free_stacks) && copies_stack(e->pid)) {
			send_copy_user(e);
		} else {
			if (c->kind != UA_MUNMAP || free_stacks) {
				take_stack((struct pt_regs *)ctx, e, 0);
				top_of_user_stack(e->top);
			}
			send(e);
		}
	}
	bpf_map_delete_elem(&sys_calls, &tid);
	return 0;
}

/* The processes' own events: their fork, exec, entry point and end. */
#include "uprocs.bpf.h"
