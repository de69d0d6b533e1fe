/* mt-record's own: what its files share. */
#ifndef MT_RECORD_CMD_H
#define MT_RECORD_CMD_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "recorder/recorder.h"

struct ktrace_opts;

/* --alloc-fn ALLOC[@N]:FREE[@N]: a pool's functions, and the argument
   (1 to 6) holding the size and the block. */
struct pool_fn {
	char *alloc, *free;
	int alloc_arg, free_arg;
};
#define MAX_POOLS 16

/* What the command line asked beyond the recording's options. */
struct args {
	struct record_opts opts;
	const char *output;	/* -o, or NULL */
	int depth;		/* -D */
	uint64_t duration;	/* -d, or 0 */
	char flags[8];		/* for the library: see main.c */
	int uprobes;		/* --uprobes */
	const char *unwind_named;	/* --unwind's argument, or NULL */
	char uunwind;		/* with -u: 'p' fp, 'd' dwarf, 'a' by how each program is built */
	unsigned copy_size;	/* --unwind dwarf:SIZE */
	const char *blind;	/* why LD_PRELOAD cannot see the command, or NULL */
	struct pool_fn pools[MAX_POOLS];
	int npools;
};

/* spawn.c */
extern volatile sig_atomic_t stop_signal;
extern pid_t forward_to;
char *find_library(void);
char *find_command(const char *cmd);
pid_t spawn(char **cmd, const char *lib, const char *sockname, const struct args *a,
    int out_is_stdout, int *go_fd);
void run_spawned(int go_fd, int run, int *exec_errno);
void die_of(int sig) __attribute__((noreturn));
void collector_setup(void);

/* trace.c */
const char *open_error(int e);
int open_trace(const char *path, int exclusive, int *created);
int start_collector(struct recorder *rc, char *sockname, size_t cap, const char *output,
    int *lfd, int *pfd_path, int *created);
int open_default(struct recorder *rc, const char *base, pid_t pid, char **defname,
    int *created);
int open_output(struct recorder *rc, const char *output, const char *base, pid_t pid,
    char **defname, int *created);
void unlink_path(void);
void end_trace(struct recorder *rc, int fd, char *defname);

/* run.c, attach.c, kernel.c, uprobes.c: the ways to record */
int run_command(struct recorder *rc, char **argv, const char *lib, const struct args *a);
int attach(struct recorder *rc, pid_t pid, const char *lib, const struct args *a);
int parse_events(const char *s, unsigned *events);
int record_uprobes(struct recorder *rc, char **argv, const struct args *a);
int attach_uprobes(struct recorder *rc, pid_t pid, const struct args *a);
const char *preload_blind(const char *path, char *why, size_t n);
int uprobes_possible(void);
int record_kernel(struct recorder *rc, const char *output, struct ktrace_opts *ko,
    uint64_t duration);

#endif
