/*
 * uprocs.bpf.h: the part of ualloc.bpf.c (included at its end, one
 * program) that follows the processes recorded: a child's first return
 * from fork, an exec, the program's entry point, an end.  It uses the
 * maps and helpers ualloc.bpf.c defines before it.
 */
#ifndef MT_UPROCS_BPF_H
#define MT_UPROCS_BPF_H

/*
 * A process's event (fork, exec, entry, exit), the process stopped first
 * when asked (SIGSTOP, before the event is seen): mt-record probes it and
 * lets it go on.  No room in the ring: not stopped, as nobody would know
 * to let it go.
 */
static void
send_proc(int kind, __u32 pid, __u64 ts, __u64 old, __u64 size, int stop)
{
	struct ua_event *e = bpf_ringbuf_reserve(&ring, sizeof(*e), 0);
	__u8 one = 1;

	if (!e) {
		count_lost();
		return;
	}
	__builtin_memset(e, 0, UA_HEAD);
	e->ts = ts;
	e->pid = e->tid = pid;
	e->kind = kind;
	e->old = old;
	e->size = size;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	if (stop && bpf_map_update_elem(&stops, &pid, &one, BPF_ANY) == 0)
		bpf_send_signal(19);	/* SIGSTOP */
}

/*
 * The program's entry point, after the dynamic linker loaded its
 * libraries: stopped there once, for mt-record to probe them too.
 */
SEC("uprobe")
int BPF_KPROBE(entry_stop)
{
	send_proc(UA_ENTRY, (__u32)(bpf_get_current_pid_tgid() >> 32), bpf_ktime_get_ns(), 0, 0, 1);
	return 0;
}

/*
 * A child's first return from fork, clone, clone3 or vfork: a process
 * (not a thread) whose parent is recorded is recorded too, its mmap
 * family from now, and stopped for its probes (they are per process).
 */
SEC("tracepoint")
int fork_out(struct sys_exit_rec *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = (__u32)(id >> 32), ppid;
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u8 *parent, way;

	if (ctx->ret != 0 || pid != (__u32)id || bpf_map_lookup_elem(&traced, &pid))
		return 0;
	ppid = (__u32)BPF_CORE_READ(t, real_parent, tgid);
	/* Its stacks taken as its parent's: the same program. */
	if (!(parent = bpf_map_lookup_elem(&traced, &ppid)))
		return 0;
	way = *parent;
	if (bpf_map_update_elem(&traced, &pid, &way, BPF_ANY))
		return 0;
	send_proc(UA_FORK, pid, BPF_CORE_READ(t, start_time), ppid, 0, 1);
	return 0;
}

/* A process recorded runs a new program: stopped before its first instruction. */
SEC("tracepoint")
int exec_done(void *ctx)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);

	__u32 tid = (__u32)bpf_get_current_pid_tgid(), h;
	__u64 key;

	if (!bpf_map_lookup_elem(&traced, &pid))
		return 0;
	/* The calls under way in the old program never return. */
	for (h = 0; h <= 16 && h <= npools; h++) {
		key = tid | (__u64)h << 32;
		bpf_map_delete_elem(&calls, &key);
	}
	send_proc(UA_EXEC, pid, bpf_ktime_get_ns(), 0, 0, 1);
	return 0;
}

/* A process recorded ends, its last thread gone: its wait status. */
SEC("tracepoint")
int exit_done(void *ctx)
{
	__u32 pid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();

	if (!bpf_map_lookup_elem(&traced, &pid) || BPF_CORE_READ(t, signal, live.counter) != 0)
		return 0;
	send_proc(UA_EXIT, pid, bpf_ktime_get_ns(), 0, (__u64)(__u32)BPF_CORE_READ(t, exit_code), 0);
	bpf_map_delete_elem(&traced, &pid);
	return 0;
}

#endif
