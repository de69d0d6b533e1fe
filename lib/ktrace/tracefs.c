/*
 * tracefs: kernel allocations through tracefs, as records of the event
 * format.  Everything is set in an instance of our own (events, options,
 * clock, buffer), so removing the instance leaves tracing as it was;
 * tracefs is mounted if it is not, and unmounted after.  The instance's
 * ring-buffer pages are read raw where their layout is known (ring.c),
 * else its trace_pipe as text (text.c): pointers printed unhashed
 * (hash-ptr off), call sites as symbol+offset turned back into addresses
 * with /proc/kallsyms (kallsyms.c), which also names every address a
 * stack holds.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "state.h"

#define TRACEFS_MAGIC 0x74726163

static struct ktrace *active;	/* for the exit-time clean-up */

static int
write_file(const char *dir, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
write_file(const char *dir, const char *file, const char *fmt, ...)
{
	char path[512], val[256];
	va_list ap;
	int fd, n, err = 0;

	va_start(ap, fmt);
	n = vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0)
		return errno;
	if (write(fd, val, (size_t)n) != n)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int
exists(const char *dir, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, F_OK) == 0;
}

/* Events this long ago (ns) are in order: no CPU can still show older. */
#define RAW_SLACK 20000000

int
ktrace_read(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg)
{
	char buf[65536];
	ssize_t n;
	int got = 0;
	struct timespec now;

	if (k->raw) {
		k->emit = emit;
		k->arg = arg;
		clock_gettime(CLOCK_MONOTONIC, &now);
		return kt_raw_read(k, (uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec -
		    RAW_SLACK - k->o.start_ns);
	}

	for (;;) {
		n = read(k->pipe, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got = 1;
		ktrace_feed(k, buf, (size_t)n, emit, arg);
	}
	return got;
}

static void
remove_instance(struct ktrace *k)
{
	for (int i = 0; k->cpufd && i < k->ncpus; i++)
		close(k->cpufd[i]);
	free(k->cpufd);
	k->cpufd = NULL;
	k->raw = 0;
	if (k->dir[0]) {
		write_file(k->dir, "tracing_on", "0");
		if (k->pipe >= 0)
			close(k->pipe);
		k->pipe = -1;
		/* Events off first: an instance with events on may refuse to go. */
		write_file(k->dir, "events/enable", "0");
		rmdir(k->dir);
		k->dir[0] = '\0';
	}
	if (k->mounted) {
		tracefs_unmount(k->root);
		k->mounted = 0;
	}
}

static void
cleanup_at_exit(void)
{
	if (active)
		remove_instance(active);
}

/* Instances of recorders that were killed before they could clean up. */
static void
remove_stale(const char *root)
{
	char path[1024];
	struct dirent *d;
	DIR *dir;
	long pid;

	snprintf(path, sizeof(path), "%s/instances", root);
	if (!(dir = opendir(path)))
		return;
	while ((d = readdir(dir)))
		if (sscanf(d->d_name, "mt-record-%ld", &pid) == 1 && pid > 0 &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			snprintf(path, sizeof(path), "%.256s/instances/%.256s", root, d->d_name);
			write_file(path, "events/enable", "0");
			rmdir(path);
		}
	closedir(dir);
}

int
tracefs_find(char *root, size_t n, int *mounted)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct statfs sf;
	size_t i;

	*mounted = 0;
	for (i = 0; i < 2; i++)
		if (statfs(roots[i], &sf) == 0 && sf.f_type == TRACEFS_MAGIC)
			break;
	if (i == 2) {
		snprintf(root, n, "%s", roots[0]);
		if (mount("nodev", roots[0], "tracefs", 0, NULL) < 0)
			return -1;
		*mounted = 1;
		i = 0;
	}
	snprintf(root, n, "%s", roots[i]);
	return 0;
}

void
tracefs_unmount(const char *root)
{
	/* The kernel lets go of a removed instance's buffers a little later. */
	for (int i = 0; i < 50 && umount(root) < 0 && errno == EBUSY; i++)
		usleep(20000);
}

struct ktrace *
ktrace_open(const struct ktrace_opts *o, char *err, size_t errlen)
{
	struct ktrace *k = ecalloc(1, sizeof(*k));
	int e = 0;

	k->o = *o;
	k->pipe = -1;
	if (tracefs_find(k->root, sizeof(k->root), &k->mounted) < 0) {
		snprintf(err, errlen, "cannot mount tracefs on %s: %s%s", k->root,
		    strerror(errno), errno == EPERM ? " (kernel tracing needs root)" : "");
		free(k);
		return NULL;
	}
	active = k;
	atexit(cleanup_at_exit);
	remove_stale(k->root);
	snprintf(k->dir, sizeof(k->dir), "%s/instances/mt-record-%d", k->root, (int)getpid());
	if (mkdir(k->dir, 0700) < 0) {
		snprintf(err, errlen, "cannot make a tracing instance %s: %s%s", k->dir,
		    strerror(errno), errno == EACCES || errno == EPERM ?
		    " (kernel tracing needs root)" : "");
		k->dir[0] = '\0';
		remove_instance(k);
		free(k);
		active = NULL;
		return NULL;
	}
	/* Real pointers: hashed ones cannot be told apart reliably. */
	if (exists(k->dir, "options/hash-ptr"))
		e = write_file(k->dir, "options/hash-ptr", "0");
	if (!e)
		e = write_file(k->dir, "trace_clock", "mono");
	if (!e)
		e = write_file(k->dir, "buffer_size_kb", "%d", o->buffer_kb ? o->buffer_kb : 16384);
	/* Not what our own writing of the trace allocates. */
	if (!e && exists(k->dir, "set_event_notrace_pid"))
		e = write_file(k->dir, "set_event_notrace_pid", "%d", (int)getpid());
	if (!e && o->stacks) {
		e = write_file(k->dir, "options/stacktrace", "1");
		if (!e)
			e = write_file(k->dir, "options/sym-addr", "1");
	}
	/* Names for tasks gone before their events are read; older kernels lack them. */
	if (!e && exists(k->dir, "events/task/task_newtask/enable")) {
		e = write_file(k->dir, "events/task/task_newtask/enable", "1");
		if (!e)
			e = write_file(k->dir, "events/task/task_rename/enable", "1");
	}
	if (!e && (o->events & KT_KMALLOC) &&
	    !(e = write_file(k->dir, "events/kmem/kmalloc/enable", "1")))
		e = write_file(k->dir, "events/kmem/kfree/enable", "1");
	if (!e && (o->events & KT_CACHE) &&
	    !(e = write_file(k->dir, "events/kmem/kmem_cache_alloc/enable", "1")))
		e = write_file(k->dir, "events/kmem/kmem_cache_free/enable", "1");
	if (!e && (o->events & KT_PAGE)) {
		e = write_file(k->dir, "events/kmem/mm_page_alloc/filter", "order >= %d", o->min_order);
		if (!e)
			e = write_file(k->dir, "events/kmem/mm_page_free/filter", "order >= %d",
			    o->min_order);
		if (!e)
			e = write_file(k->dir, "events/kmem/mm_page_alloc/enable", "1");
		if (!e)
			e = write_file(k->dir, "events/kmem/mm_page_free/enable", "1");
		if (!e && o->min_order == 0)
			e = write_file(k->dir, "events/kmem/mm_page_free_batched/enable", "1");
	}
	if (!e) {
		char path[512];
		snprintf(path, sizeof(path), "%s/trace_pipe", k->dir);
		if ((k->pipe = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			e = errno;
	}
	if (e) {
		snprintf(err, errlen, "cannot set up tracing in %s: %s", k->dir, strerror(e));
		remove_instance(k);
		active = NULL;
		free(k);
		return NULL;
	}
	ksym_load(k, "/proc/kallsyms");
	/* The pages themselves where their layout is as we know it; else text. */
	if (!getenv("MT_KTRACE_TEXT"))
		kt_raw_setup(k, k->root, k->dir);
	return k;
}

int
ktrace_fd(const struct ktrace *k)
{
	return k->pipe;
}

uint64_t
ktrace_lost(const struct ktrace *k)
{
	return k->lost;
}

uint64_t
ktrace_unresolved(const struct ktrace *k)
{
	return k->unresolved;
}

/* Tracing off, what the buffer still holds read, the instance removed. */
void
ktrace_close(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg)
{
	if (k->dir[0])
		write_file(k->dir, "tracing_on", "0");
	k->emit = emit;
	k->arg = arg;
	if (k->raw)
		kt_raw_read(k, UINT64_MAX);
	else if (k->pipe >= 0)
		ktrace_read(k, emit, arg);
	kt_drain_queue(k, 1);
	remove_instance(k);
	active = NULL;
}

void
ktrace_free(struct ktrace *k)
{
	size_t i;

	for (i = 0; i < k->nsyms; i++) {
		free(k->syms[i].name);
		free(k->syms[i].module);
	}
	free(k->syms);
	u64map_free(&k->by_name, NULL);
	u64map_free(&k->stacks, NULL);
	u64map_free(&k->named, NULL);
	u64map_free(&k->tasks, NULL);
	u64map_free(&k->cmdlines, free);
	u64map_free(&k->comms, free);
	free(k->buf);
	free(k->q);
	free(k->got);
	free(k->last_of_cpu);
	free(k);
}
