/*
 * uhold: the processes mt-record --uprobes records, held through ptrace.
 * Our BPF program stops a process (SIGSTOP) at its fork, its exec and
 * its entry point until its probes are in, and a thread whose event left
 * the ring half full until the ring is read.  A plain stop is seen by the
 * process's parent (su and runuser then stop themselves, a shell says
 * "Stopped"); under ptrace a signal's delivery is reported to the tracer
 * first, and the stops that are ours end there, seen by nobody else.
 * The program's own signals and stops go on as they would without us.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"
#include "uprobes.h"

#define SEIZE_OPTS (PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | \
	PTRACE_O_TRACEEXEC)
#define RELEASE_NS 2000000000u	/* for the tracees to stop to be let go of */

static int chld_pipe[2] = { -1, -1 };

static void
on_sigchld(int sig)
{
	int e = errno;

	(void)sig;
	if (write(chld_pipe[1], "c", 1) < 0) {
		/* Full: a wakeup waits already. */
	}
	errno = e;
}

/* A descriptor readable when a child or a tracee has something to say. */
int
hold_fd(void)
{
	struct sigaction sa;

	if (chld_pipe[0] >= 0)
		return chld_pipe[0];
	if (pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	return chld_pipe[0];
}

static void
drain_wakeups(void)
{
	char buf[64];

	while (chld_pipe[0] >= 0 && read(chld_pipe[0], buf, sizeof(buf)) > 0)
		;
}

static struct tracee *
tracee_of(struct usource *u, pid_t tid)
{
	size_t i;

	for (i = 0; i < u->ntracees; i++)
		if (u->tracees[i].tid == tid)
			return &u->tracees[i];
	return NULL;
}

static void
tracee_add(struct usource *u, pid_t tid, pid_t tgid)
{
	struct tracee *t = tracee_of(u, tid);

	if (t) {
		t->tgid = tgid;
		return;
	}
	u->tracees = egrow(u->tracees, u->ntracees, &u->tracecap, sizeof(*u->tracees));
	u->tracees[u->ntracees++] = (struct tracee){ tid, tgid };
}

static void
tracee_remove(struct usource *u, pid_t tid)
{
	struct tracee *t = tracee_of(u, tid);

	if (t)
		*t = u->tracees[--u->ntracees];
}

/* The thread group of tid; tid itself when not known. */
static pid_t
tgid_of(pid_t tid)
{
	pid_t tgid = proc_tgid(tid);

	return tgid > 0 ? tgid : tid;
}

/* pid held from now.  0, or -1 with errno (EPERM: not allowed, or traced by another). */
int
hold_seize(struct usource *u, pid_t pid)
{
	if (hold_fd() < 0 || ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)SEIZE_OPTS) < 0)
		return -1;
	tracee_add(u, pid, pid);
	u->hold = 1;
	return 0;
}

/*
 * A SIGSTOP of tid's: ours when our program sent it to the thread or to
 * its process (and then no longer outstanding).
 */
static int
stop_is_ours(struct usource *u, pid_t tid, pid_t tgid)
{
	/* A thread's own and its process's are two signals, seen one by one. */
	return stop_sent(u, tid) || (tgid != tid && stop_sent(u, tgid));
}

/*
 * A stopped tracee goes on: a stop of ours ends once what the ring holds
 * is read (the probes of a new process are in by then); any other
 * signal is delivered as it would be without us; a group stop (the
 * program's own SIGSTOP, SIGTSTP, ...) stays one until a SIGCONT.
 */
static void
on_stop(struct usource *u, pid_t tid, int status)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	struct tracee *t = tracee_of(u, tid);
	unsigned long msg = 0;
	pid_t tgid;

	if (!t) {
		/* Auto-attached, its parent's event not seen yet. */
		tracee_add(u, tid, tgid_of(tid));
		t = tracee_of(u, tid);
	}
	tgid = t->tgid;
	switch (event) {
	case 0:
		if (sig == SIGSTOP && stop_is_ours(u, tid, tgid)) {
			u->held++;
			ubpf_read(u);
			sig = 0;
		}
		ptrace(PTRACE_CONT, tid, NULL, (void *)(long)sig);
		return;
	case PTRACE_EVENT_STOP:
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			ptrace(PTRACE_LISTEN, tid, NULL, NULL);
		else
			ptrace(PTRACE_CONT, tid, NULL, NULL);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && msg)
			tracee_add(u, (pid_t)msg, event == PTRACE_EVENT_CLONE ?
			    tgid_of((pid_t)msg) : (pid_t)msg);
		break;
	case PTRACE_EVENT_EXEC:
		/* A thread's exec: it takes its leader's id, the others are gone. */
		if (ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg) == 0 && (pid_t)msg != tid)
			tracee_remove(u, (pid_t)msg);
		break;
	}
	ptrace(PTRACE_CONT, tid, NULL, NULL);
}

/*
 * What our children and tracees have to say, each answered: the
 * command's end into *status (and *done), the others' ends forgotten.
 */
void
hold_reap(struct usource *u, pid_t cmd, int *status, int *done)
{
	int st;
	pid_t w;

	drain_wakeups();
	for (;;) {
		w = waitpid(-1, &st, __WALL | WNOHANG);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		if (WIFSTOPPED(st)) {
			on_stop(u, w, st);
			continue;
		}
		tracee_remove(u, w);
		if (w == cmd) {
			*status = st;
			*done = 1;
		}
	}
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The end, for processes that run on (a signal to us): every tracee let
 * go of, its pending signal delivered.  Our program stops nobody any
 * more, and the stops it sent are ended already (uprobes.c).
 */
void
hold_release(struct usource *u, pid_t cmd, int *status, int *done)
{
	struct pollfd pf = { .fd = chld_pipe[0], .events = POLLIN };
	uint64_t until;
	int st, sig, event;
	size_t i;
	pid_t w;

	for (i = 0; i < u->ntracees; i++)
		ptrace(PTRACE_INTERRUPT, u->tracees[i].tid, NULL, NULL);
	until = now_ns() + RELEASE_NS;
	while (u->ntracees && now_ns() < until) {
		w = waitpid(-1, &st, __WALL | WNOHANG);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			break;
		if (w == 0) {
			poll(&pf, 1, 10);
			drain_wakeups();
			continue;
		}
		if (!WIFSTOPPED(st)) {
			tracee_remove(u, w);
			if (w == cmd) {
				*status = st;
				*done = 1;
			}
			continue;
		}
		sig = WSTOPSIG(st);
		event = st >> 16;
		/* Only a signal's delivery carries one to give back. */
		if (event || (sig == SIGSTOP && stop_is_ours(u, w,
		    tracee_of(u, w) ? tracee_of(u, w)->tgid : w)))
			sig = 0;
		ptrace(PTRACE_DETACH, w, NULL, (void *)(long)sig);
		tracee_remove(u, w);
	}
	/* Those that never stopped: let go however they are. */
	for (i = 0; i < u->ntracees; i++)
		ptrace(PTRACE_DETACH, u->tracees[i].tid, NULL, NULL);
	u->ntracees = 0;
}
