/*
 * pipepeer: whether standard output is a pipe that mt's own filters
 * alone read.  Then a filter writes a .mtr stream down it rather than
 * text the next one would only parse again; grep, awk, a pager, a shell
 * loop or a file get text, as ever.  Found in /proc: the processes of
 * this process group that hold the pipe's reading end, by the program
 * each runs.
 */
#include <ctype.h>
#include <stdint.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mt.h"
#include "procfs.h"

/* Programs that read a .mtr stream as well as text. */
static const char *const readers[] = { "mt-lifetime", "mt-symbolize", "mt-window",
	"mt-group", "mt-report", "mt-pooldiff", "mt-decode", NULL };
/* Programs a pipeline's next process runs until it has exec'd its own. */
static const char *const shells[] = { "bash", "sh", "dash", "zsh", "ksh", "mksh",
	"busybox", NULL };

static int
named(const char *base, const char *const *names)
{
	size_t i;

	for (i = 0; names[i]; i++)
		if (!strcmp(base, names[i]))
			return 1;
	return 0;
}

/* How pid's descriptor fd is open: O_RDONLY, O_WRONLY or O_RDWR (its fdinfo's flags), or -1. */
static int
mode(const char *pid, const char *fd)
{
	char path[64], buf[256], *p;
	unsigned long flags;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	if ((f = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!(p = strstr(buf, "flags:")))
		return -1;
	flags = strtoul(p + 6, NULL, 8);
	return (int)(flags & O_ACCMODE);
}

/* How pid holds the pipe `link`: bit 0 to read it, bit 1 to write it. */
static int
holds(const char *pid, const char *link)
{
	char path[64], got[64];
	struct dirent *e;
	ssize_t n;
	DIR *d;
	int found = 0, m;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	if (!(d = opendir(path)))
		return 0;
	while (found != 3 && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, e->d_name);
		n = readlink(path, got, sizeof(got) - 1);
		if (n <= 0)
			continue;
		got[n] = '\0';
		if (strcmp(got, link) || (m = mode(pid, e->d_name)) < 0)
			continue;
		found |= m == O_WRONLY ? 2 : m == O_RDWR ? 3 : 1;
	}
	closedir(d);
	return found;
}

enum { NONE, MT, WAIT, OTHER };

/*
 * What reads the pipe `link` in our process group: mt alone, another, or
 * a shell yet to exec.  Another writer (a `{ ...; }` group, `cat - x`)
 * may write text after ours: another, then.
 */
static int
readers_of(const char *link)
{
	char path[64], buf[512], exe[4096], *base;
	pid_t self = getpid(), parent = getppid(), pgrp = getpgrp();
	struct dirent *e;
	int what = NONE;
	ssize_t n;
	DIR *d;

	if (!(d = opendir("/proc")))
		return OTHER;
	while (what != OTHER && (e = readdir(d))) {
		long ppid, grp;
		pid_t pid;
		char state, *st;
		int how;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atoi(e->d_name);
		if (pid == self || !(st = proc_stat(pid, buf, sizeof(buf))))
			continue;
		/* " S ppid pgrp ...": our process group's only. */
		if (sscanf(st, " %c %ld %ld", &state, &ppid, &grp) != 3 || grp != (long)pgrp)
			continue;
		if (!(how = holds(e->d_name, link)))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/exe", e->d_name);
		if ((how & 2) || (n = readlink(path, exe, sizeof(exe) - 1)) <= 0) {
			what = OTHER;	/* another writer, or a reader we cannot name */
			continue;
		}
		exe[n] = '\0';
		base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		if (named(base, readers))
			what = what == NONE ? MT : what;
		else if (named(base, shells) && pid != parent)
			what = WAIT;	/* forked, maybe not yet exec'd */
		else
			what = OTHER;
	}
	closedir(d);
	return what;
}

int
mt_stdout_to_mt(void)
{
	const char *env = getenv("MT_PIPE");
	struct timespec ms = { 0, 1000000 };
	struct stat st, err;
	char link[64];
	uint64_t start = mt_monotonic_ns();
	int what = NONE;

	if (env && !strcmp(env, "text"))
		return 0;
	if (fstat(STDOUT_FILENO, &st) || !S_ISFIFO(st.st_mode))
		return 0;
	/* 2>&1: our own messages would land inside the stream. */
	if (!fstat(STDERR_FILENO, &err) && err.st_dev == st.st_dev && err.st_ino == st.st_ino)
		return 0;
	snprintf(link, sizeof(link), "pipe:[%lu]", (unsigned long)st.st_ino);
	/* A shell still a shell after 50 ms is one (a loop reading us): text. */
	while ((what = readers_of(link)) == WAIT || what == NONE) {
		if (mt_monotonic_ns() - start > 50000000)
			break;
		nanosleep(&ms, NULL);
	}
	return what == MT;
}
