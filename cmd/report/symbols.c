/*
 * symbols: the stacks' names for mt-report.  The input's
 * dictionary lines (proc, map, stack, sym, #task, the header) are kept;
 * when the input has no sym lines, mt-symbolize is started at its first
 * stack and fed them as they come, on the other core, a thread of ours
 * reading what it writes into the dictionary as it comes.
 * Once it runs, the lines of an input that can be read again are not
 * kept: should it fail, they are read from the input once more.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt.h"
#include "report.h"

struct rep_names {
	struct mt_out kept;	/* the dictionary's lines, as text, in a file if it can */
	const char *again;	/* the input, a regular file; else NULL */
	int symbolize, have_syms, partial;	/* partial: kept stopped at the start */
	const char *skip;	/* more API functions (mt-group -A) */
	char **symdirs;
	size_t nsymdirs;
	pid_t pid;		/* mt-symbolize, or 0 */
	struct mt_out to;	/* its standard input */
	int from;		/* its standard output */
	pthread_t thread;
	struct mt_dict *got;	/* what it wrote, read by the thread */
};

/* A dictionary of a symbolizer that failed: dropped, but held (no dict_free). */
static struct mt_dict *volatile failed;

/* mt-symbolize beside this program, or on the PATH. */
static void
exec_symbolize(char **extra, size_t nextra)
{
	char self[4096], *slash, **argv = emalloc((nextra + 3) * sizeof(*argv));
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 32);
	size_t i;

	/* Its output waits for the end: as a trace, far smaller than as text. */
	argv[0] = "mt-symbolize";
	argv[1] = "-b";
	for (i = 0; i < nextra; i++)
		argv[i + 2] = extra[i];
	argv[nextra + 2] = NULL;
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/'))) {
			strcpy(slash + 1, "mt-symbolize");
			execv(self, argv);
		}
	}
	execvp("mt-symbolize", argv);
	mt_note("mt-symbolize: %s", strerror(errno));
	_exit(127);
}

static void
read_reader(struct mt_dict *d, struct mt_reader *r)
{
	struct mt_event ev;

	reader_quiet(r);
	while (reader_next(r, &ev))
		dict_add(d, &ev);
	reader_close(r);
}

/* Its stacks read while the trace is; at the end only its names are left. */
static void *
drain(void *arg)
{
	struct rep_names *nm = arg;
	struct mt_reader *r = reader_open_fd(nm->from, "mt-symbolize");

	if (r)
		read_reader(nm->got, r);
	else
		close(nm->from);
	return NULL;
}

/* The lines kept so far, to mt-symbolize. */
static void
copy_kept(struct rep_names *nm)
{
	char buf[1 << 16];
	ssize_t n;
	off_t off = 0;

	if (nm->kept.fd < 0) {
		out_write(&nm->to, nm->kept.buf, nm->kept.len);
		return;
	}
	out_flush(&nm->kept);
	while ((n = pread(nm->kept.fd, buf, sizeof(buf), off)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0) {
			out_write(&nm->to, buf, (size_t)n);
			off += n;
		}
}

static void
start(struct rep_names *nm)
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
		mt_note("mt-symbolize: %s", strerror(errno));
		nm->symbolize = 0;
		return;
	}
	fflush(stdout);
	if ((nm->pid = fork()) == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		exec_symbolize(nm->symdirs, nm->nsymdirs);
	}
	close(in[0]);
	close(out[1]);
	if (nm->pid < 0) {
		mt_note("mt-symbolize: %s", strerror(errno));
		close(in[1]);
		close(out[0]);
		nm->pid = 0;
		nm->symbolize = 0;
		return;
	}
	/* A symbolizer that died is said at the end, not by a SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	out_init(&nm->to, in[1], 1 << 16);
	/* What was kept before: its header and processes. */
	copy_kept(nm);
	nm->from = out[0];
	nm->got = dict_new(nm->skip);
	if (pthread_create(&nm->thread, NULL, drain, nm)) {
		mt_err(1, "a thread");
	}
}

struct rep_names *
names_new(int symbolize, char **symdirs, size_t nsymdirs, const char *skip, const char *again)
{
	struct rep_names *nm = ecalloc(1, sizeof(*nm));

	nm->skip = skip;
	nm->again = again;
	/* Kept only for when mt-symbolize fails, or is not run: on disk. */
	out_init(&nm->kept, tmpfd("mt-report"), 1 << 16);
	nm->symbolize = symbolize;
	nm->symdirs = symdirs;
	nm->nsymdirs = nsymdirs;
	return nm;
}

void
names_add(struct rep_names *nm, const struct mt_event *ev)
{
	size_t n = event_format_size(ev), len;
	char *p;

	if (ev->type == MT_SYM)
		nm->have_syms = 1;
	if (nm->symbolize && !nm->have_syms && !nm->pid && ev->type == MT_STACK) {
		start(nm);
		nm->partial = nm->pid && nm->again;
	}
	if (nm->partial) {
		p = out_reserve(&nm->to, n);
		out_commit(&nm->to, event_format(ev, p, n));
		return;
	}
	p = out_reserve(&nm->kept, n);
	len = event_format(ev, p, n);
	if (nm->pid)
		out_write(&nm->to, p, len);
	out_commit(&nm->kept, len);
}

/* The dictionary read from the input again: mt-symbolize failed. */
static void
read_again(struct mt_dict *d, const char *path)
{
	struct mt_reader *r = reader_open(path);

	if (r)
		read_reader(d, r);
}

/* What o holds read into d: from its file, or through one made of it. */
static void
read_into(struct mt_dict *d, struct mt_out *o, const char *name)
{
	int fd = o->fd;
	struct mt_reader *r;

	if (fd >= 0) {
		if (out_flush(o))
			mt_warnx("the stacks' names: %s", strerror(o->error));
	} else if ((fd = memfd_create("mt-report", MFD_CLOEXEC)) >= 0 &&
	    writeall(fd, o->buf, o->len) != o->len) {
		close(fd);
		fd = -1;
	}
	o->fd = -1;
	if (fd < 0 || lseek(fd, 0, SEEK_SET)) {
		mt_warn("the stacks' names");
		if (fd >= 0)
			close(fd);
		return;
	}
	if ((r = reader_open_fd(fd, name)))
		read_reader(d, r);
}

/* Whichever of them is not read: its file closed. */
static void
drop(struct mt_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	out_free(o);
}

int
names_had_syms(const struct rep_names *nm)
{
	return nm->have_syms;
}

struct mt_dict *
names_finish(struct rep_names *nm)
{
	struct mt_dict *d;
	int st, ok = 1;

	if (nm->pid) {
		/* Its input ends; it writes the rest and ends. */
		ok = out_flush(&nm->to) == 0;
		out_free(&nm->to);
		close(nm->to.fd);
		pthread_join(nm->thread, NULL);
		if (waitpid(nm->pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
			ok = 0;
		signal(SIGPIPE, SIG_DFL);	/* ours again: a reader of ours that went */
	}
	if (nm->pid && ok && !nm->have_syms) {
		d = nm->got;
	} else {
		if (nm->pid && !nm->have_syms) {
			mt_warnx("mt-symbolize failed: stacks are addresses");
		}
		if (nm->pid)
			failed = nm->got;
		d = dict_new(nm->skip);
		if (nm->partial)
			read_again(d, nm->again);
		else
			read_into(d, &nm->kept, "the dictionary");
	}
	drop(&nm->kept);
	free(nm);
	return d;
}
