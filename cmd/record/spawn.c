/*
 * spawn: the command started with the preload library, the signals we
 * pass on to it, and our end the way it ended.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mt.h"
#include "proto.h"
#include "command.h"

#ifndef LIBDIR
#define LIBDIR "/usr/local/lib/mt"
#endif

volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t signals_seen;
pid_t forward_to;		/* the command, while it runs */
static void on_signal(int sig);

/*
 * A Ctrl-C at the terminal reaches the command too: it is ignored while
 * the command runs, and stops us once it has ended (when a process that
 * lied to us could otherwise keep us waiting).  One sent by kill(1) is
 * as a SIGTERM.
 */
static void
on_sigint(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code == SI_USER || si->si_code == SI_QUEUE || forward_to <= 0)
		on_signal(sig);
}

/* What the command is to start with: what we were given, not ours. */
static const int passed_signals[] = { SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP };
static struct sigaction given[sizeof(passed_signals) / sizeof(passed_signals[0])];
static struct rlimit nofile = { RLIM_INFINITY, RLIM_INFINITY };	/* as given */

static void
on_signal(int sig)
{
	/*
	 * The first goes to the command; a second, or one when the command
	 * has ended, stops us: the trace written, whatever else still runs
	 * (untraced from then on).  Killable in every state.
	 */
	if (forward_to > 0 && !signals_seen++)
		kill(forward_to, sig);
	else
		stop_signal = sig;
}

/* The preload library: beside us in the build tree, or where installed. */
char *
find_library(void)
{
	static const char *const rel[] = { "/../lib/mt/libmt-preload.so",
	    "/../lib/libmt-preload.so", NULL };
	char self[PATH_MAX], *path, *slash;
	const char *env = getenv("MT_PRELOAD");
	ssize_t n;
	size_t i;

	if (env && *env)
		return realpath(env, NULL);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')))
			*slash = '\0';
		for (i = 0; rel[i]; i++) {
			path = emalloc(strlen(self) + strlen(rel[i]) + 1);
			strcpy(path, self);
			strcat(path, rel[i]);
			if (access(path, R_OK) == 0) {
				char *real = realpath(path, NULL);
				free(path);
				return real;
			}
			free(path);
		}
	}
	path = LIBDIR "/libmt-preload.so";
	return access(path, R_OK) == 0 ? estrdup(path) : NULL;
}

/* Where execvp would find the command, for the set-user-ID check. */
char *
find_command(const char *cmd)
{
	const char *pathvar = getenv("PATH"), *s, *e;
	char *path;

	if (strchr(cmd, '/'))
		return estrdup(cmd);
	for (s = pathvar ? pathvar : "/usr/bin:/bin"; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, ':');
		path = emalloc((size_t)(e - s) + strlen(cmd) + 2);
		memcpy(path, s, (size_t)(e - s));
		path[e - s] = '\0';
		strcat(path, "/");
		strcat(path, cmd);
		if (access(path, X_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

/*
 * The command died of a signal: so does mt-record, the trace written, so
 * that a shell loop stops at a Ctrl-C as it would without us.  No core of
 * ours for a SIGSEGV or SIGABRT of the command's.
 */
void
die_of(int sig)
{
	struct rlimit none = { 0, 0 };
	sigset_t set;

	fflush(stdout);
	fflush(stderr);
	setrlimit(RLIMIT_CORE, &none);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	exit(128 + sig);	/* a signal that does not kill */
}

/* The environment that has the command load the library and find us. */
static void
preload_env(const char *lib, const char *sockname, const struct args *a)
{
	char buf[64], *preload, *old;

	old = getenv("LD_PRELOAD");
	preload = emalloc(strlen(lib) + (old ? strlen(old) : 0) + 2);
	strcpy(preload, lib);
	if (old && *old) {
		strcat(preload, " ");
		strcat(preload, old);
	}
	setenv("LD_PRELOAD", preload, 1);
	setenv(MT_ENV_SOCKET, sockname, 1);
	snprintf(buf, sizeof(buf), "%d", a->depth);
	setenv(MT_ENV_DEPTH, buf, 1);
	setenv(MT_ENV_FLAGS, a->flags, 1);
}

/*
 * The command runs in a child, which waits for run_spawned() before it
 * does (the default trace's name holds its pid, and the file must be
 * made before the command runs); *go_fd is our end of the socket that
 * tells it.
 */
pid_t
spawn(char **cmd, const char *lib, const char *sockname, const struct args *a,
    int out_is_stdout, int *go_fd)
{
	char go = 0;
	int p[2], e;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) < 0)
		return -1;
	if ((pid = fork()) != 0) {
		close(p[1]);
		if (pid > 0)
			*go_fd = p[0];
		else
			close(p[0]);
		return pid;
	}
	close(p[0]);
	if (nofile.rlim_cur != RLIM_INFINITY)
		setrlimit(RLIMIT_NOFILE, &nofile);
	/* Ignored when we were started so (nohup, a script's background job). */
	for (e = 0; e < (int)(sizeof(passed_signals) / sizeof(passed_signals[0])); e++)
		signal(passed_signals[e], given[e].sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL);
	if (out_is_stdout)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	/* Without a library (--uprobes): the command as it is, held all the same. */
	if (lib)
		preload_env(lib, sockname, a);
	while (read(p[1], &go, 1) < 0 && errno == EINTR)
		;
	if (go != 'y')
		_exit(126);	/* not to be run */
	execvp(cmd[0], cmd);
	e = errno;
	if (write(p[1], &e, sizeof(e)) < 0)
		mt_warnx("%s: %s", cmd[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

/*
 * The spawned child runs its command, or ends without; *exec_errno is 0
 * once it has exec'd, or why it could not (told through the socket, which
 * the exec closes).
 */
void
run_spawned(int go_fd, int run, int *exec_errno)
{
	ssize_t n;
	int e;

	*exec_errno = 0;
	if (run && send(go_fd, "y", 1, MSG_NOSIGNAL) == 1) {
		while ((n = read(go_fd, &e, sizeof(e))) < 0 && errno == EINTR)
			;
		if (n == (ssize_t)sizeof(e))
			*exec_errno = e;
	}
	close(go_fd);
}

/*
 * Ours to be: the subreaper, our signals caught, and descriptors as many
 * as we may, one a traced process image; the command gets the limit and
 * the dispositions it would have had.
 */
void
collector_setup(void)
{
	struct sigaction sa;
	size_t i;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	for (i = 0; i < sizeof(passed_signals) / sizeof(passed_signals[0]); i++)
		sigaction(passed_signals[i], NULL, &given[i]);
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sa.sa_sigaction = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0) {
		struct rlimit more = { nofile.rlim_max, nofile.rlim_max };
		setrlimit(RLIMIT_NOFILE, &more);
	}
}
