/*
 * unnamed: the addresses that stayed without a name, counted by module,
 * and said once at the end: the five modules with the most, and how to
 * get their debug information (the package that holds each file, as
 * dpkg knows it, with -dbgsym; libc6-dbg for the C library's).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt.h"
#include "symbolize.h"

static struct dso **with;	/* the modules with an address unnamed, once each */
static size_t nwith, withcap;

void
unnamed_count(struct dso *d)
{
	size_t n = strlen(d->path);

	/* [vdso], [anon:exec], a deleted file: no file to have debug information. */
	if (d->path[0] != '/' || (n > 10 && !strcmp(d->path + n - 10, " (deleted)")))
		return;
	if (d->unnamed++ == 0) {
		with = egrow(with, nwith, &withcap, sizeof(*with));
		with[nwith++] = d;
	}
}

static int
most_first(const void *a, const void *b)
{
	const struct dso *x = *(struct dso *const *)a, *y = *(struct dso *const *)b;

	return x->unnamed < y->unnamed ? 1 : x->unnamed > y->unnamed ? -1 : 0;
}

/* The package dpkg says holds path, into pkg; 0 when none (no shell: the path is the trace's). */
static int
dpkg_owner(const char *path, char *pkg, size_t cap)
{
	int fd[2], status;
	ssize_t n = 0, k;
	pid_t pid;
	char *colon;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return 0;
	if ((pid = fork()) == 0) {
		dup2(fd[1], STDOUT_FILENO);
		if ((k = open("/dev/null", O_WRONLY)) >= 0)
			dup2((int)k, STDERR_FILENO);
		execlp("dpkg-query", "dpkg-query", "-S", "--", path, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (pid > 0 && (size_t)n < cap - 1 && (k = read(fd[0], pkg + n, cap - 1 - (size_t)n)) > 0)
		n += k;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return 0;
	pkg[n] = '\0';
	/* "git: /usr/bin/git"; "libc6:amd64: /lib/...": the name alone. */
	if (!(colon = strchr(pkg, ':')) || colon == pkg)
		return 0;
	*colon = '\0';
	return 1;
}

/*
 * dpkg knows a file by the path its package installed it at: /lib or
 * /usr/lib, whichever, on a system whose /lib is a link to /usr/lib.
 */
static int
package_of(const char *path, char *pkg, size_t cap)
{
	char other[4096];

	if (dpkg_owner(path, pkg, cap))
		return 1;
	if (!strncmp(path, "/usr/lib/", 9))
		snprintf(other, sizeof(other), "%s", path + 4);
	else if (!strncmp(path, "/lib/", 5) || !strncmp(path, "/lib64/", 7) ||
	    !strncmp(path, "/bin/", 5) || !strncmp(path, "/sbin/", 6))
		snprintf(other, sizeof(other), "/usr%s", path);
	else
		return 0;
	return dpkg_owner(other, pkg, cap);
}

void
unnamed_say(void)
{
	char where[1024], hint[1024], pkg[512];
	size_t i, w = 0, h = 0;
	uint64_t total = 0;

	if (!nwith)
		return;
	qsort(with, nwith, sizeof(*with), most_first);
	for (i = 0; i < nwith; i++)
		total += with[i]->unnamed;
	where[0] = hint[0] = '\0';
	for (i = 0; i < nwith && i < 5; i++) {
		w += (size_t)snprintf(where + w, w < sizeof(where) ? sizeof(where) - w : 0,
		    "%s%s %llu", i ? ", " : "", with[i]->path,
		    (unsigned long long)with[i]->unnamed);
		if (w >= sizeof(where))
			w = sizeof(where) - 1;
		if (!package_of(with[i]->path, pkg, sizeof(pkg)) || strstr(hint, pkg))
			continue;
		h += (size_t)snprintf(hint + h, h < sizeof(hint) ? sizeof(hint) - h : 0, " %s%s",
		    pkg, !strcmp(pkg, "libc6") ? "-dbg" : "-dbgsym");
		if (h >= sizeof(hint))
			h = sizeof(hint) - 1;
	}
	mt_note("%llu address%s without a name, as module+offset: %s%s; their debug "
	    "information: %s%s%sDEBUGINFOD_URLS (a debuginfod server)",
	    (unsigned long long)total, total == 1 ? "" : "es", where, nwith > 5 ? ", ..." : "",
	    h ? "apt-get install" : "", hint, h ? " (Debian's debug archive), or " : "");
}
