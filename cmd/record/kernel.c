/*
 * kernel: mt-record -k, the kernel's allocations read from tracefs
 * (lib/ktrace/) into a trace, until the duration passes or a signal asks.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"

static volatile sig_atomic_t stop_asked;

static void
on_stop(int sig)
{
	stop_asked = 1;
}

static void
put_kernel(struct mt_event *ev, void *arg)
{
	recorder_put(arg, ev);
}

int
parse_events(const char *s, unsigned *events)
{
	const char *e;
	size_t n;

	*events = 0;
	for (; *s; s = *e ? e + 1 : e) {
		e = s + strcspn(s, ",");
		n = (size_t)(e - s);
		if (n == 7 && !strncmp(s, "kmalloc", n))
			*events |= KT_KMALLOC;
		else if (n == 5 && !strncmp(s, "cache", n))
			*events |= KT_CACHE;
		else if (n == 4 && !strncmp(s, "page", n))
			*events |= KT_PAGE;
		else
			return -1;
	}
	return *events ? 0 : -1;
}

static void
catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int
record_kernel(struct recorder *rc, const char *output, struct ktrace_opts *ko,
    uint64_t duration)
{
	struct mt_event ev;
	struct ktrace *k;
	struct pollfd pfd;
	char err[600], *defname;
	uint64_t t, last_flush = 0, written;
	int fd, created;

	if ((fd = open_output(rc, output, "kernel", getpid(), &defname, &created)) < 0)
		return 2;
	if (defname)
		output = defname;
	if (!ko->events)
		ko->events = KT_KMALLOC | KT_CACHE;
	ko->start_ns = recorder_begin(rc);
	catch_stop();
	if (!(k = ktrace_open(ko, err, sizeof(err)))) {
		mt_warnx("%s", err);
		if (fd != STDOUT_FILENO) {
			close(fd);
			if (created)
				unlink(output);
		}
		free(defname);
		return 2;
	}
	recorder_open(rc, fd);
	recorder_comment(rc, "# mt-record: kernel allocations:%s%s%s, page order >= %d, %s",
	    ko->events & KT_KMALLOC ? " kmalloc" : "", ko->events & KT_CACHE ? " cache" : "",
	    ko->events & KT_PAGE ? " page" : "", ko->min_order,
	    ko->stacks ? "kernel stacks" : "call sites");
	/* The kernel is one process: pid 0, the allocating task its thread. */
	memset(&ev, 0, sizeof(ev));
	ev.type = MT_PROC;
	ev.s1 = (struct mt_str){ "[kernel]", 8 };
	ev.s2 = (struct mt_str){ "[kernel]", 8 };
	recorder_put(rc, &ev);
	pfd = (struct pollfd){ .fd = ktrace_fd(k), .events = POLLIN };
	while (!stop_asked) {
		t = recorder_now(rc);
		if (duration && t >= duration)
			break;
		if (!ktrace_read(k, put_kernel, rc))
			poll(&pfd, 1, 50);
		if (t - last_flush > FLUSH_NS) {
			recorder_flush(rc);
			last_flush = t;
		}
	}
	ktrace_close(k, put_kernel, rc);
	if (ktrace_unresolved(k))
		recorder_comment(rc, "# mt-record: %llu call sites not in /proc/kallsyms have no stack",
		    (unsigned long long)ktrace_unresolved(k));
	written = recorder_close(rc, fd);
	recorder_say_written(rc, RECORDER_KERNEL, written);
	if (ktrace_lost(k))
		mt_warnx("%llu events lost: the kernel's buffer overran",
		    (unsigned long long)ktrace_lost(k));
	ktrace_free(k);
	free(defname);
	recorder_say_bound(rc);
	return recorder_failed(rc) ? 1 : 0;
}
