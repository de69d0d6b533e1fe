/*
 * procfs: /proc/PID/maps lines, a process's parent and thread group, and
 * its program's name, for the recorder and the injector alike.
 */

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exename.h"
#include "procfs.h"

/* "lo-hi perms off dev inode   path": hex, hex, 4 letters, hex, d:d, decimal. */
int
procmap_parse(char *line, struct procmap *m)
{
	char *s = line, *end;
	int i;

	line[strcspn(line, "\n")] = '\0';
	m->lo = strtoul(s, &end, 16);
	if (end == s || *end != '-')
		return -1;
	m->hi = strtoul(s = end + 1, &end, 16);
	if (end == s || *end != ' ' || strlen(end + 1) < 5 || end[5] != ' ')
		return -1;
	memcpy(m->perms, end + 1, 4);
	m->perms[4] = '\0';
	m->off = strtoul(s = end + 6, &end, 16);
	if (end == s || *end != ' ')
		return -1;
	/* The device, then the inode. */
	s = end + 1 + strcspn(end + 1, " ");
	m->inode = strtoul(s, &end, 10);
	if (end == s)
		return -1;
	for (i = 0; end[i] == ' '; i++)
		;
	m->path = end + i;
	return 0;
}

char *
proc_stat(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return (buf = strrchr(buf, ')')) ? buf + 1 : NULL;
}

pid_t
proc_ppid(pid_t pid)
{
	char buf[512], *s, *end;
	long ppid;

	/* " S 1234 ...": the state, then the parent. */
	if (!(s = proc_stat(pid, buf, sizeof(buf))) || strlen(s) < 3)
		return 0;
	ppid = strtol(s + 3, &end, 10);
	return end > s + 3 && ppid > 0 && ppid <= INT_MAX ? (pid_t)ppid : 0;
}

pid_t
proc_tgid(pid_t tid)
{
	char path[64], line[256];
	long tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "Tgid:", 5) == 0) {
			tgid = strtol(line + 5, NULL, 10);
			break;
		}
	fclose(f);
	return tgid > 0 && tgid <= INT_MAX ? (pid_t)tgid : 0;
}

/* The address of pid's AT_EXECFN string, from its auxiliary vector; 0 if none. */
static uint64_t
execfn_at(pid_t pid)
{
	char path[64];
	uint64_t av[128];
	ssize_t n;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, av, sizeof(av));
	close(fd);
	for (i = 0; n > 0 && i + 1 < (size_t)n / sizeof(av[0]) && av[i] != AT_NULL; i += 2)
		if (av[i] == AT_EXECFN)
			return av[i + 1];
	return 0;
}

/* Whether path names a file in pid's view of the file system (its root). */
static int
is_file_of(pid_t pid, const char *path)
{
	char rooted[PATH_MAX + 32];
	struct stat st;

	snprintf(rooted, sizeof(rooted), "/proc/%d/root%s", (int)pid, path);
	return stat(rooted, &st) == 0;
}

char *
proc_exe_name(pid_t pid, int attached, char *buf, size_t len)
{
	char path[64], execfn[PATH_MAX];
	uint64_t at = execfn_at(pid);
	size_t n = 0;
	ssize_t k = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if (at && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		/* Short where the stack ends, just past the string. */
		k = pread(fd, execfn, sizeof(execfn) - 1, (off_t)at);
		close(fd);
	}
	execfn[k > 0 ? k : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cwd", (int)pid);
	if (execfn[0] && execfn[0] != '/' && !attached && len > 1 &&
	    (k = readlink(path, buf, len - 1)) > 0)
		n = (size_t)k;
	if (exe_name_of(buf, len, n, execfn) > 0 && is_file_of(pid, buf))
		return buf;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (len < 2 || (k = readlink(path, buf, len - 1)) <= 0)
		return NULL;
	buf[k] = '\0';
	return buf;
}

char *
exe_name_run(const char *execfn, char *buf, size_t len)
{
	char real[PATH_MAX];
	struct stat st;
	size_t n = 0;

	if (execfn[0] != '/' && getcwd(buf, len))
		n = strlen(buf);
	if (exe_name_of(buf, len, n, execfn) > 0 && stat(buf, &st) == 0)
		return buf;
	if (!realpath(execfn, real) || strlen(real) >= len)
		return NULL;
	return strcpy(buf, real);
}
