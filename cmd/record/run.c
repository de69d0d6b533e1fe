/*
 * run: mt-record's usual way, a command run with the library and
 * recorded, with its children, until nothing of it runs any more.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt.h"
#include "command.h"

/* The command as a shell says it, before anything is made: 0, or our status. */
static int
check_command(const char *cmd)
{
	struct stat st;
	char *path;

	if (!(path = find_command(cmd)) || stat(path, &st) < 0) {
		mt_warnx("%s: command not found", cmd);
		free(path);
		return 127;
	}
	if (S_ISDIR(st.st_mode) || access(path, X_OK) < 0) {
		mt_warnx("%s: %s", cmd, strerror(S_ISDIR(st.st_mode) ? EISDIR : errno));
		free(path);
		return 126;
	}
	if ((((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
	    ((st.st_mode & S_ISGID) && st.st_gid != getegid())))
		mt_warnx("%s is set-user-ID or set-group-ID: the dynamic linker ignores "
		    "LD_PRELOAD for it, so it is not traced", path);
	free(path);
	return 0;
}

/* The collector's loop, until the command and every descendant has ended. */
static void
collect(struct recorder *rc, int lfd, int pfd_path)
{
	uint64_t last_flush = 0, last_busy = 0, t;
	int busy;

	for (;;) {
		if (stop_signal)
			break;
		t = recorder_now(rc);
		busy = recorder_pass(rc, lfd, pfd_path, t, &last_flush);
		if (recorder_root_status(rc) != -1 && !recorder_children_left(rc)) {
			/*
			 * Nothing of ours runs any more (every living
			 * descendant would be a child of ours, the subreaper):
			 * what they sent is all there is, whoever still holds
			 * a connection or a ring.
			 */
			recorder_read_all(rc);
			break;
		}
		recorder_rest(rc, lfd, pfd_path, t, busy, &last_busy);
	}
}

int
run_command(struct recorder *rc, char **argv, const char *lib, const struct args *a)
{
	char sockname[96], *defname = NULL, *base;
	int lfd, fd, status, e, created = 0, pfd_path = -1, go_fd;
	pid_t root;

	if ((e = check_command(argv[0])) != 0)
		return e;
	if ((fd = start_collector(rc, sockname, sizeof(sockname), a->output, &lfd, &pfd_path,
	    &created)) < -1)
		return 2;
	if (fd >= 0)
		recorder_open(rc, fd);
	root = forward_to = spawn(argv, lib, sockname, a, fd == STDOUT_FILENO, &go_fd);
	recorder_set_root(rc, root, &forward_to);
	if (root < 0) {
		mt_warn("fork");
		return 2;
	}
	base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	if (fd < 0 && (fd = open_default(rc, base, root, &defname, &created)) < 0) {
		/* As a named trace that cannot be made: the command is not run. */
		run_spawned(go_fd, 0, &e);
		while (waitpid(root, &status, 0) < 0 && errno == EINTR)
			;
		unlink_path();
		free(defname);
		return 2;
	}
	/* The header on disk before the command runs. */
	if (!a->output)
		recorder_open(rc, fd);
	run_spawned(go_fd, 1, &e);
	if (e) {
		/* Found, yet not run: a bad interpreter, a wrong format. */
		mt_warnx("%s: %s", argv[0], strerror(e));
		if (created)
			unlink(defname ? defname : a->output);
		free(defname);
		while (waitpid(root, &status, 0) < 0 && errno == EINTR)
			;
		return e == ENOENT ? 127 : 126;
	}
	collect(rc, lfd, pfd_path);
	/* Counted, not looked up: the record of a process that has ended is let go of. */
	if (!recorder_traced(rc))
		mt_warnx("%s was not traced: LD_PRELOAD had no effect on it "
		    "(a static or set-user-ID program?)", argv[0]);
	end_trace(rc, fd, defname);
	if (stop_signal) {
		mt_note("stopped by %s%s", strsignal(stop_signal),
		    recorder_root_status(rc) == -1 ? ": the command runs on, untraced" : "");
		die_of(stop_signal);
	}
	status = recorder_root_status(rc);
	if (WIFSIGNALED(status))
		die_of(WTERMSIG(status));
	return WEXITSTATUS(status);
}
