/*
 * Starting: the options, from the environment when preloaded or from
 * mt-record -p's words when attached; the connection, the stack table,
 * the hello and the modules; and, when attached, the GOTs pointed at the
 * interposed functions and put back at detach.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "attach.h"
#include "exename.h"
#include "preload.h"
#include "shadow.h"

__thread struct thread_state tls __attribute__((tls_model("initial-exec")));
volatile int *fork_canary;
volatile int recording;
int attached;
int init_state;
struct mt_stack_table *table;
uint32_t table_epoch;
uint32_t stack_words = MT_STACK_WORDS_MAX;
int depth = 64;
int free_stacks, no_follow;
int use_tsc;
int unwind = UNWIND_LIBUNWIND, unwind_check;
int (*libunwind_backtrace)(void **, int);
pid_t recorder_pid;
pthread_key_t thread_key;
uintptr_t unwinder_lo, unwinder_hi;

/*
 * The stack table's size: the most (272 MiB of address space, touched as
 * it fills) unless the program's address space is limited, when it takes
 * at most a sixteenth of the limit, and a program run under ulimit -v
 * does not fail for us.
 */
static uint32_t
table_words(void)
{
	struct rlimit rl;
	uint32_t w = MT_STACK_WORDS_MAX;

	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		while (w > MT_STACK_WORDS_MIN && MT_STACK_BYTES(w) > rl.rlim_cur / 16)
			w >>= 1;
	return w;
}

/* libunwind's module, that holds arg: its calls to us are ours (unwinder_lo). */
static int
find_unwinder(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t fn = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0, a;
	int k;

	(void)size;
	for (k = 0; k < info->dlpi_phnum; k++) {
		if (info->dlpi_phdr[k].p_type != PT_LOAD)
			continue;
		a = info->dlpi_addr + info->dlpi_phdr[k].p_vaddr;
		if (a < lo)
			lo = a;
		if (a + info->dlpi_phdr[k].p_memsz > hi)
			hi = a + info->dlpi_phdr[k].p_memsz;
	}
	if (fn >= lo && fn < hi) {
		unwinder_lo = lo;
		unwinder_hi = hi;
		return 1;
	}
	return 0;
}

/*
 * The path this image was executed by (exename.h), made absolute when the
 * image starts and kept for its forked children, which may chdir; the
 * file itself where that cannot be done (fexecve, a relative path once
 * attached).
 */
static char exe_name[4096];
static size_t exe_len;

static void
find_exe_name(void)
{
	const char *e = (const char *)getauxval(AT_EXECFN);
	size_t n = 0;
	struct stat st;
	ssize_t r;

	if (e && e[0] != '/' && !attached && getcwd(exe_name, sizeof(exe_name)))
		n = strlen(exe_name);
	if ((exe_len = exe_name_of(exe_name, sizeof(exe_name), n, e)) > 0 &&
	    stat(exe_name, &st) == 0)
		return;
	r = readlink("/proc/self/exe", exe_name, sizeof(exe_name) - 1);
	exe_len = r > 0 ? (size_t)r : 0;
}

void
start_process(int modules)
{
	static char buf[MT_MSG_MAX - sizeof(struct mt_msg)];
	struct mt_msg m = { .type = MSG_HELLO };
	ssize_t n;
	size_t len;
	void *p;
	int fd, tfd;

	sock = connect_recorder();
	if (sock < 0)
		return;
	stack_words = table_words();
	tfd = shared_map("mt-stacks", MT_STACK_BYTES(stack_words), &p);
	if (tfd < 0) {
		close(sock);
		sock = -1;
		return;
	}
	table = p;
	table_epoch++;
	table->used = 1;
	table->unwinder = unwind == UNWIND_SHADOW ? 's' : unwind == UNWIND_FP ? 'p' : 'l';
	m.pid = getpid();
	m.ppid = !modules && fork_parent ? fork_parent : getppid();
	m.ts = now();
	m.flags = (modules ? 0 : HELLO_FORKED) | (use_tsc ? HELLO_TSC : 0) |
	    (attached ? HELLO_ATTACHED : 0);
	m.lo = modules ? 0 : fork_ts;
	if (modules || !exe_len)
		find_exe_name();
	memcpy(buf, exe_name, exe_len);
	len = exe_len;
	buf[len++] = '\0';
	fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while ((n = read(fd, buf + len, sizeof(buf) - len)) > 0)
			len += (size_t)n;
		close(fd);
	}
	send_msg(&m, buf, len, tfd);
	close(tfd);
	if (other_allocator) {
		struct mt_msg a = { .type = MSG_ALLOCATOR, .pid = m.pid, .ts = now() };
		send_msg(&a, other_allocator, strlen(other_allocator), -1);
	}
	recording = sock >= 0;
	if (modules)
		send_modules(0);
}

/* With --no-follow, what this process runs is not traced. */
static void
forget_preload(void)
{
	char *v = getenv("LD_PRELOAD"), *s, *e;
	Dl_info self;
	size_t n;

	unsetenv(MT_ENV_SOCKET);
	if (!v || !dladdr((void *)forget_preload, &self) || !self.dli_fname)
		return;
	n = strlen(self.dli_fname);
	for (s = strstr(v, self.dli_fname); s; s = strstr(s + 1, self.dli_fname)) {
		if ((s == v || s[-1] == ' ' || s[-1] == ':') &&
		    (s[n] == '\0' || s[n] == ' ' || s[n] == ':')) {
			e = s + n + (s[n] ? 1 : 0);
			memmove(s, e, strlen(e) + 1);
			break;
		}
	}
	if (!*v)
		unsetenv("LD_PRELOAD");
}

/*
 * Sets up what the options say and connects: from the environment when
 * preloaded, from mt-record's words when attached.
 */
static void
start(const char *sockname, const char *depth_s, const char *flags_s)
{
	char *end;
	long v;

	if (!sockname || strlen(sockname) >= sizeof(socket_name) - 1)
		return;
	tls.busy = 2;
	strcpy(socket_name, sockname);
	if (depth_s && (v = strtol(depth_s, &end, 10)) >= 0 && !*end && v <= MAX_DEPTH)
		depth = (int)v;
	if (flags_s) {
		free_stacks = strchr(flags_s, 'f') != NULL;
		no_follow = strchr(flags_s, 'n') != NULL;
		if (strchr(flags_s, 's') && !attached && shadow_usable())
			unwind = UNWIND_SHADOW;
		else if (strchr(flags_s, 'p'))
			unwind = UNWIND_FP;
		unwind_check = unwind == UNWIND_SHADOW && strchr(flags_s, 'c') != NULL;
		use_tsc = strchr(flags_s, 't') != NULL;
	}
	if ((sockname = strrchr(socket_name, '-')))
		recorder_pid = (pid_t)strtol(sockname + 1, NULL, 10);
	/*
	 * Before libunwind starts, which makes its pipe (see pipe2).  Ours
	 * is after us also when attached: libunwind is our dependency.
	 */
	RESOLVE(libunwind_backtrace, "unw_backtrace");
	if (!libunwind_backtrace)
		libunwind_backtrace = unw_backtrace;
	dl_iterate_phdr(find_unwinder, (void *)(uintptr_t)libunwind_backtrace);
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	alloc_resolve();
	modules_resolve();
	process_resolve();
	pthread_key_create(&thread_key, thread_end);
	pthread_atfork(before_fork, NULL, after_fork_child);
	fork_canary = (void *)syscall(SYS_mmap, NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fork_canary == MAP_FAILED ||
	    syscall(SYS_madvise, fork_canary, 4096, MADV_WIPEONFORK) < 0) {
		if (fork_canary != MAP_FAILED)
			syscall(SYS_munmap, fork_canary, 4096);
		fork_canary = NULL;	/* a kernel before 4.14: not detected */
	} else {
		*fork_canary = 1;
	}
	if (no_follow && !attached)
		forget_preload();
	if (!next_found)
		find_next_alloc();
	start_process(1);
	tls.busy = 0;
}

__attribute__((constructor)) void
init(void)
{
	if (init_state)
		return;
	init_state = 1;
	start(getenv(MT_ENV_SOCKET), getenv(MT_ENV_DEPTH), getenv(MT_ENV_FLAGS));
}

/* What we interpose, as attaching points the modules' GOTs at it. */
#define HOOK(fn) { #fn, (void *)fn }
static const struct got_hook got_hooks[] = {
	HOOK(malloc), HOOK(free), HOOK(cfree), HOOK(calloc), HOOK(realloc),
	HOOK(reallocarray), HOOK(memalign), HOOK(valloc), HOOK(pvalloc),
	HOOK(aligned_alloc), HOOK(posix_memalign), HOOK(mmap), HOOK(mmap64),
	HOOK(munmap), HOOK(mremap), HOOK(mprotect), HOOK(pipe2), HOOK(dlopen),
	HOOK(dlclose), HOOK(waitpid), HOOK(wait), HOOK(wait3), HOOK(wait4),
	HOOK(waitid),
};

uintptr_t
self_base(void)
{
	struct link_map *lm = NULL;
	Dl_info info;

	if (!dladdr1((void *)self_base, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return 0;
	return lm->l_addr;
}

void
patch_gots(void)
{
	got_patch(got_hooks, sizeof(got_hooks) / sizeof(got_hooks[0]), self_base());
}

/*
 * Stops recording, once, when mt-record says so (or is gone): every GOT
 * slot back as it was, our functions pass-throughs for whoever still
 * holds one (a pointer taken meanwhile, a thread inside one).
 */
void
detach(void)
{
	static int once;

	if (__atomic_exchange_n(&once, 1, __ATOMIC_ACQ_REL))
		return;
	recording = 0;
	got_restore();
	if (table)
		__atomic_store_n(&table->detached, 1, __ATOMIC_RELEASE);
}

/*
 * mt-record -p: called in the process once dlopen loaded us, with three
 * strings, each ended by a NUL: the socket's name, the depth, the flags.
 * The constructor found no MT_RECORD_SOCKET and did nothing.  Returns 0
 * once recording, -1 if not (a preloaded library is already here).
 */
EXPORT int
mt_attach(const char *args)
{
	const char *d, *f;

	if (recording || attached)
		return -1;
	d = args + strlen(args) + 1;
	f = d + strlen(d) + 1;
	attached = 1;
	next_found = 0;
	start(args, d, f);
	if (!recording)
		return -1;
	patch_gots();
	return 0;
}
