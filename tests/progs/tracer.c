/*
 * tracer CMD [ARG ...]: runs CMD traced by ptrace, as a debugger would,
 * passing on every signal, and exits with its status.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	pid_t pid;
	int st, sig;

	if (argc < 2)
		return 2;
	if ((pid = fork()) == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	for (;;) {
		if (waitpid(pid, &st, 0) < 0)
			return 2;
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (WIFSIGNALED(st))
			return 128 + WTERMSIG(st);
		sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);
		ptrace(PTRACE_CONT, pid, 0, sig);
	}
}
