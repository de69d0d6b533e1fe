/*
 * Processes: a fork's child gets a connection, a table and rings of its
 * own; a reaped child's exit status goes to the recorder from its parent
 * (the wait family, interposed).
 */
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach.h"
#include "preload.h"

/*
 * The time of a fork, taken in the parent just before it, the child's
 * copy sent with its hello: its mappings are its parent's as of then.
 * A raw clone's child sends 0, and gets its parent's as of its hello.
 */
uint64_t fork_ts;
/* The parent's pid, taken before a fork: once it has exited, the child's
   getppid() names whoever adopted it. */
pid_t fork_parent;

static pid_t (*real_waitpid)(pid_t, int *, int);
static pid_t (*real_wait)(int *);
static pid_t (*real_wait3)(int *, int, struct rusage *);
static pid_t (*real_wait4)(pid_t, int *, int, struct rusage *);
static int (*real_waitid)(idtype_t, id_t, siginfo_t *, int);

/* Taken in the parent just before a fork (see fork_ts). */
void
before_fork(void)
{
	fork_ts = recording ? now() : 0;
	fork_parent = getpid();
}

void
after_fork_child(void)
{
	struct thread_state *t = &tls;

	if (fork_canary)
		*fork_canary = 1;
	recording = 0;
	if (sock_ours())
		close(sock);
	sock = -1;
	/* The parent's ring and table stay the parent's. */
	if (t->ring)
		syscall(SYS_munmap, t->ring, MT_RING_BYTES);
	t->ring = NULL;
	t->head = t->tail = 0;
	t->nnested = 0;
	if (table)
		syscall(SYS_munmap, table, MT_STACK_BYTES(stack_words));
	table = NULL;
	/* The late ring too: another thread may have held its lock. */
	if (late.ring)
		syscall(SYS_munmap, late.ring, MT_RING_BYTES);
	memset(&late, 0, sizeof(late));
	late_lock = 0;
	modules_forked();
	if (!no_follow)
		start_process(0);
	else if (attached)
		got_restore();	/* the child runs as it would have */
}

/* A child made without fork(): as after fork, then its own state. */
void
forked_unseen(void)
{
	fork_ts = 0;
	fork_parent = 0;
	*fork_canary = 1;
	after_fork_child();
}

/* Reaped children: the recorder learns their exit status from the parent. */
static void
tell_reaped(pid_t pid, int status)
{
	struct mt_msg m = { .type = MSG_CHILD };

	if (pid <= 0 || !recording || !(WIFEXITED(status) || WIFSIGNALED(status)))
		return;
	m.pid = getpid();
	m.child = pid;
	m.status = status;
	m.ts = now();
	send_msg(&m, NULL, 0, -1);
}

EXPORT pid_t
waitpid(pid_t pid, int *status, int options)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_waitpid, "waitpid");
	r = real_waitpid(pid, &st, options);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT pid_t
wait(int *status)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_wait, "wait");
	r = real_wait(&st);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT pid_t
wait3(int *status, int options, struct rusage *ru)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_wait3, "wait3");
	r = real_wait3(&st, options, ru);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT pid_t
wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	int st = 0;
	pid_t r;

	RESOLVE(real_wait4, "wait4");
	r = real_wait4(pid, &st, options, ru);
	if (status)
		*status = st;
	tell_reaped(r, st);
	return r;
}

EXPORT int
waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int r;

	RESOLVE(real_waitid, "waitid");
	r = real_waitid(idtype, id, info, options);
	if (r == 0 && info && !(options & WNOWAIT) && info->si_pid > 0) {
		if (info->si_code == CLD_EXITED)
			tell_reaped(info->si_pid, (info->si_status & 0xff) << 8);
		else if (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED)
			tell_reaped(info->si_pid, info->si_status & 0x7f);
	}
	return r;
}

/* Before the program's first call, while what dlsym allocates is ours. */
void
process_resolve(void)
{
	RESOLVE(real_waitpid, "waitpid");
	RESOLVE(real_wait, "wait");
	RESOLVE(real_wait3, "wait3");
	RESOLVE(real_wait4, "wait4");
	RESOLVE(real_waitid, "waitid");
}
