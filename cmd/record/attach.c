/*
 * attach: mt-record -p, the library loaded into a process already
 * running, recorded until told to stop, and the process left running.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "inject.h"
#include "command.h"

#define ATTACH_WAIT_NS	10000000000ull	/* for the library to say hello */
#define DETACH_WAIT_NS	300000000u	/* for the processes to say they stopped */

/* Its name (/proc/PID/comm) fit for a file's, in comm; -1 when it is gone. */
static int
comm_of(pid_t pid, char *comm, size_t len)
{
	char path[64], *nl;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!(f = fopen(path, "re")))
		return -1;
	if (!fgets(comm, (int)len, f))
		comm[0] = '\0';
	fclose(f);
	if ((nl = strchr(comm, '\n')))
		*nl = '\0';
	for (nl = comm; *nl; nl++)
		if (*nl == '/' || *nl == ' ')
			*nl = '_';
	return 0;
}

/*
 * The collector until the duration, a SIGINT or SIGTERM, or the end of
 * every process recorded; then each is told to stop (its GOT put back as
 * it was), and runs on.  0, or -1 when the library never started.
 */
static int
collect(struct recorder *rc, pid_t pid, int lfd, int pfd_path, uint64_t attached_at,
    uint64_t duration)
{
	uint64_t t, last_flush = 0, last_busy = 0, last_look = 0, detached_at = 0;
	int busy, seen = 0;

	for (;;) {
		t = recorder_now(rc);
		busy = recorder_pass(rc, lfd, pfd_path, t, &last_flush);
		if (!seen && recorder_said_hello(rc, pid))
			seen = 1;
		if (!seen && t - attached_at > ATTACH_WAIT_NS)
			return -1;
		if (!detached_at && (stop_signal || (duration && t - attached_at >= duration) ||
		    (t - last_look > 100000000u && (last_look = t, seen) &&
		    recorder_all_gone(rc)))) {
			recorder_detach_all(rc, 1);
			detached_at = t;
		}
		if (detached_at && (t - detached_at > DETACH_WAIT_NS || recorder_detach_all(rc, 0))) {
			recorder_read_all(rc);
			return 0;
		}
		recorder_rest(rc, lfd, pfd_path, t, busy, &last_busy);
	}
}

/* mt-record -p: the library loaded into pid (lib/inject.c), then the collector. */
int
attach(struct recorder *rc, pid_t pid, const char *lib, const struct args *a)
{
	char sockname[96], args[160], why[512], comm[64] = "", *defname = NULL;
	int lfd, pfd_path = -1, fd, created = 0, n, failed;
	uint64_t attached_at;

	if (comm_of(pid, comm, sizeof(comm)) < 0) {
		mt_warnx("pid %d: no such process", (int)pid);
		return 2;
	}
	if ((fd = start_collector(rc, sockname, sizeof(sockname), a->output, &lfd, &pfd_path,
	    &created)) < -1)
		return 2;
	if (fd < 0 &&
	    (fd = open_default(rc, comm[0] ? comm : "process", pid, &defname, &created)) < 0) {
		unlink_path();
		free(defname);
		return 2;
	}
	recorder_set_root(rc, pid, NULL);
	recorder_read_befores(rc, pid);
	/* The library's start(): the socket, the depth, the flags, each ended by a NUL. */
	n = snprintf(args, sizeof(args), "%s%c%d%c%s", sockname, 0, a->depth, 0, a->flags);
	if (mt_inject(pid, lib, args, (size_t)n + 1, why, sizeof(why)) < 0) {
		mt_warnx("pid %d: %s", (int)pid, why);
		unlink_path();
		if (created)
			unlink(defname ? defname : a->output);
		if (fd != STDOUT_FILENO)
			close(fd);
		free(defname);
		return 2;
	}
	recorder_open(rc, fd);
	attached_at = recorder_now(rc);
	recorder_comment(rc, "# mt-record: attached to pid %d (%s) at %llu: what it allocated "
	    "before is not seen, and frees of it are of blocks from before recording",
	    (int)pid, comm, (unsigned long long)attached_at);
	if ((failed = collect(rc, pid, lfd, pfd_path, attached_at, a->duration)) < 0)
		mt_warnx("pid %d: the library did not start in %llu s "
		    "(dlopen failed: can its user reach %s through every directory? "
		    "or the thread never left the call it was in)",
		    (int)pid, (unsigned long long)(ATTACH_WAIT_NS / 1000000000u), lib);
	end_trace(rc, fd, defname);
	if (failed)
		return 2;
	if (stop_signal)
		mt_note("stopped by %s: detached, pid %d runs on", strsignal(stop_signal), (int)pid);
	return 0;
}
