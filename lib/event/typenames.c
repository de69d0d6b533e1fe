/* typenames: the event format's names of records, heaps and signals. */
#include <string.h>

#include "mt.h"

const char *const mt_type_names[MT_NTYPES] = {
	[MT_NONE] = "", [MT_COMMENT] = "#", [MT_PROC] = "proc",
	[MT_MAP] = "map", [MT_STACK] = "stack", [MT_SYM] = "sym",
	[MT_ALLOC] = "alloc", [MT_FREE] = "free", [MT_LIFE] = "life",
	[MT_EXIT] = "exit", [MT_LOST] = "lost", [MT_WINDOW] = "window",
	[MT_SAMPLE] = "sample", [MT_POOL] = "pool", [MT_UNKNOWN] = "",
};

const struct mt_str mt_heap_names[3] = {
	{ "malloc", 6 }, { "mmap", 4 }, { "reserve", 7 },
};

const char *const mt_signal_names[MT_NSIGNALS] = {
	[1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [4] = "SIGILL",
	[5] = "SIGTRAP", [6] = "SIGABRT", [7] = "SIGBUS", [8] = "SIGFPE",
	[9] = "SIGKILL", [10] = "SIGUSR1", [11] = "SIGSEGV", [12] = "SIGUSR2",
	[13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM", [16] = "SIGSTKFLT",
	[17] = "SIGCHLD", [18] = "SIGCONT", [19] = "SIGSTOP", [20] = "SIGTSTP",
	[21] = "SIGTTIN", [22] = "SIGTTOU", [23] = "SIGURG", [24] = "SIGXCPU",
	[25] = "SIGXFSZ", [26] = "SIGVTALRM", [27] = "SIGPROF", [28] = "SIGWINCH",
	[29] = "SIGIO", [30] = "SIGPWR", [31] = "SIGSYS",
};

enum mt_type
type_from_name(const char *s, size_t len)
{
	switch (len) {
	case 3:
		if (!memcmp(s, "map", 3)) return MT_MAP;
		if (!memcmp(s, "sym", 3)) return MT_SYM;
		break;
	case 4:
		if (!memcmp(s, "proc", 4)) return MT_PROC;
		if (!memcmp(s, "free", 4)) return MT_FREE;
		if (!memcmp(s, "life", 4)) return MT_LIFE;
		if (!memcmp(s, "exit", 4)) return MT_EXIT;
		if (!memcmp(s, "lost", 4)) return MT_LOST;
		if (!memcmp(s, "pool", 4)) return MT_POOL;
		break;
	case 5:
		if (!memcmp(s, "alloc", 5)) return MT_ALLOC;
		if (!memcmp(s, "stack", 5)) return MT_STACK;
		break;
	case 6:
		if (!memcmp(s, "window", 6)) return MT_WINDOW;
		if (!memcmp(s, "sample", 6)) return MT_SAMPLE;
		break;
	}
	return MT_UNKNOWN;
}

int
heap_known(const struct mt_str *heap)
{
	int i;

	/* The recorder passes our own names: no need to read them. */
	for (i = 0; i < 3; i++)
		if (heap->s == mt_heap_names[i].s)
			return i;
	for (i = 0; i < 3; i++)
		if (heap->len == mt_heap_names[i].len &&
		    !memcmp(heap->s, mt_heap_names[i].s, heap->len))
			return i;
	return -1;
}
