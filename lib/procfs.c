/*
 * procfs: /proc/PID/maps lines, and a process's parent and thread group,
 * for the recorder and the injector alike.
 */

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
