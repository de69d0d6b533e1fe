/* procfs: what mt reads of /proc about a process, parsed in one place. */
#ifndef MT_PROCFS_H
#define MT_PROCFS_H

#include <sys/types.h>

/* One line of /proc/PID/maps. */
struct procmap {
	unsigned long lo, hi, off, inode;
	char perms[5];		/* "r-xp" */
	const char *path;	/* into the line: "" for an anonymous mapping */
};

/* line (its newline cut here) into m: 0, or -1 when it is not a mapping. */
int procmap_parse(char *line, struct procmap *m);
/* A process's /proc/PID/stat from just after its name (" state ppid ..."),
   in buf; NULL when it is gone.  The name may hold anything: the last ')' ends it. */
char *proc_stat(pid_t pid, char *buf, size_t len);
/* Its parent's pid, its thread group's (a thread's process); 0 if unknown. */
pid_t proc_ppid(pid_t pid);
pid_t proc_tgid(pid_t tid);
/*
 * pid's program named from outside as the preload library names its own
 * from inside (exename.h): by its AT_EXECFN, read from its memory, made
 * absolute with its working directory unless attached (a process
 * running before we came, which may have changed directory since); else
 * the file /proc/PID/exe links to.  In buf; NULL when it is gone.
 */
char *proc_exe_name(pid_t pid, int attached, char *buf, size_t len);
/* The same name for a program about to be run from here by the path
   execfn (as execvp found it); NULL when it is not a file. */
char *exe_name_run(const char *execfn, char *buf, size_t len);

#endif
