/*
 * unnamed: the addresses that stayed without a name, counted by module,
 * and said once at the end: the five modules with the most, and how to
 * get their debug information (the package that holds each file, as
 * dpkg's file lists have it, with -dbgsym; libc6-dbg for the C library's).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * dpkg knows a file by the path its package installed it at: /lib or
 * /usr/lib, whichever, on a system whose /lib is a link to /usr/lib.
 * The other spelling into other; 0 when there is none.
 */
static int
other_spelling(const char *path, char *other, size_t cap)
{
	if (!strncmp(path, "/usr/lib/", 9))
		snprintf(other, cap, "%s", path + 4);
	else if (!strncmp(path, "/lib/", 5) || !strncmp(path, "/lib64/", 7) ||
	    !strncmp(path, "/bin/", 5) || !strncmp(path, "/sbin/", 6))
		snprintf(other, cap, "/usr%s", path);
	else
		return 0;
	return 1;
}

/* Whether a file list (a line a path) holds path as a line. */
static int
lists(const char *text, size_t len, const char *path)
{
	size_t n = strlen(path);
	const char *p = text, *end = text + len, *q;

	while ((q = memmem(p, (size_t)(end - p), path, n))) {
		if ((q == text || q[-1] == '\n') && (q + n == end || q[n] == '\n'))
			return 1;
		p = q + 1;
	}
	return 0;
}

/*
 * The package each of n paths is in, into pkg[i] ("" when none), as
 * dpkg-query -S says it, from dpkg's file lists read once: dpkg-query
 * takes 0.4 s a path, which mt-report waited for.
 */
static void
packages_of(const char *const *path, size_t n, char (*pkg)[128])
{
	const char *admin = getenv("DPKG_ADMINDIR");
	char dir[4096], file[4400], other[5][4096];
	int has_other[5];
	struct dirent *e;
	char *text = NULL;
	size_t cap = 0, len, i, left = n;
	ssize_t k;
	DIR *d;
	int fd;

	for (i = 0; i < n; i++) {
		pkg[i][0] = '\0';
		has_other[i] = other_spelling(path[i], other[i], sizeof(other[i]));
	}
	snprintf(dir, sizeof(dir), "%s/info", admin && *admin ? admin : "/var/lib/dpkg");
	if (!(d = opendir(dir)))
		return;
	while (left && (e = readdir(d))) {
		size_t nl = strlen(e->d_name);

		if (nl <= 5 || strcmp(e->d_name + nl - 5, ".list"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
		if ((fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
			continue;
		for (len = 0;;) {
			if (len + 65536 > cap)
				text = erealloc(text, cap = len + 65536 + cap);
			if ((k = read(fd, text + len, cap - len)) <= 0)
				break;
			len += (size_t)k;
		}
		close(fd);
		for (i = 0; i < n; i++) {
			if (pkg[i][0] || !(lists(text, len, path[i]) ||
			    (has_other[i] && lists(text, len, other[i]))))
				continue;
			/* "libc6:amd64.list", "libglib2.0-0.list": the name alone. */
			snprintf(pkg[i], sizeof(pkg[i]), "%.*s",
			    (int)(strcspn(e->d_name, ":") < nl - 5 ? strcspn(e->d_name, ":") : nl - 5),
			    e->d_name);
			left--;
		}
	}
	closedir(d);
	free(text);
}

void
unnamed_say(void)
{
	char where[1024], hint[1024], pkg[5][128];
	const char *path[5];
	size_t i, w = 0, h = 0;
	uint64_t total = 0;

	if (!nwith)
		return;
	qsort(with, nwith, sizeof(*with), most_first);
	for (i = 0; i < nwith; i++)
		total += with[i]->unnamed;
	for (i = 0; i < nwith && i < 5; i++)
		path[i] = with[i]->path;
	packages_of(path, i, pkg);
	where[0] = hint[0] = '\0';
	for (i = 0; i < nwith && i < 5; i++) {
		w += (size_t)snprintf(where + w, w < sizeof(where) ? sizeof(where) - w : 0,
		    "%s%s %llu", i ? ", " : "", with[i]->path,
		    (unsigned long long)with[i]->unnamed);
		if (w >= sizeof(where))
			w = sizeof(where) - 1;
		if (!pkg[i][0] || strstr(hint, pkg[i]))
			continue;
		h += (size_t)snprintf(hint + h, h < sizeof(hint) ? sizeof(hint) - h : 0, " %s%s",
		    pkg[i], !strcmp(pkg[i], "libc6") ? "-dbg" : "-dbgsym");
		if (h >= sizeof(hint))
			h = sizeof(hint) - 1;
	}
	mt_note("%llu address%s without a name, as module+offset: %s%s; their debug "
	    "information: %s%s%sDEBUGINFOD_URLS (a debuginfod server)",
	    (unsigned long long)total, total == 1 ? "" : "es", where, nwith > 5 ? ", ..." : "",
	    h ? "apt-get install" : "", hint, h ? " (Debian's debug archive), or " : "");
}
