/*
 * What a shadow-stack unwinder must survive: frames that end some other
 * way than by returning, stacks that are not the thread's, and code that
 * reads its own return addresses.  Each case allocates deep in frames,
 * leaves them its way, allocates again, and prints what it computed: the
 * same with and without mt-record, whatever the unwinder.
 *
 *   unwind-cases longjmp|siglongjmp|swapcontext|sigaltstack|signal|
 *                backtrace|pthread_exit|cancel|fork|getattr|memo|all
 *
 * all is every case but fork (whose child valgrind counts from the start)
 * and getattr, which must come first.
 */
#include <execinfo.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static volatile long sink;
static long total;

/* Allocates on the way down and back up: every level's frame is walked. */
static __attribute__((noinline)) long
deep(int d, long (*bottom)(void *), void *arg)
{
	char *p = malloc(16 + (size_t)d);
	long r;

	p[0] = (char)d;
	r = d == 0 ? bottom(arg) : deep(d - 1, bottom, arg);
	free(p);
	sink++;
	return r + 1;
}

static __attribute__((noinline)) long
allocs(void *arg)
{
	(void)arg;
	free(malloc(24));
	return 0;
}

/* longjmp and siglongjmp out of 20 allocating frames, 500 times. */
static jmp_buf jb;
static sigjmp_buf sjb;

static __attribute__((noinline)) long
jump_out(void *arg)
{
	free(malloc(8));
	if (arg)
		siglongjmp(sjb, 1);
	longjmp(jb, 1);
}

static void
case_longjmp(int sig)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (sig ? sigsetjmp(sjb, 1) == 0 : setjmp(jb) == 0)
			deep(20, jump_out, sig ? "" : NULL);
		total += deep(i % 25, allocs, NULL);
	}
}

/* Coroutines on a heap stack and on one in this frame, 300 switches. */
static ucontext_t main_ctx, co_ctx;

static __attribute__((noinline)) long
yield_back(void *arg)
{
	(void)arg;
	free(malloc(32));
	swapcontext(&co_ctx, &main_ctx);
	free(malloc(40));
	return 0;
}

static void
coroutine(void)
{
	for (;;)
		total += deep(10, yield_back, NULL);
}

static void
case_swapcontext(void)
{
	char local[256 * 1024];
	char *heap = malloc(256 * 1024);
	int round, i;

	for (round = 0; round < 2; round++) {
		getcontext(&co_ctx);
		co_ctx.uc_stack.ss_sp = round ? local : heap;
		co_ctx.uc_stack.ss_size = 256 * 1024;
		co_ctx.uc_link = NULL;
		makecontext(&co_ctx, coroutine, 0);
		for (i = 0; i < 150; i++) {
			total += deep(i % 12, allocs, NULL);
			swapcontext(&main_ctx, &co_ctx);
		}
	}
	free(heap);
}

/* A handler that allocates in nested frames, on an alternate stack or not. */
static void
handler(int sig)
{
	(void)sig;
	sink += deep(6, allocs, NULL);
}

static __attribute__((noinline)) long
raise_usr1(void *arg)
{
	(void)arg;
	free(malloc(48));
	raise(SIGUSR1);
	free(malloc(56));
	return 0;
}

static void
case_signal(int alt)
{
	struct sigaction sa;
	stack_t ss;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	if (alt) {
		ss.ss_sp = malloc(256 * 1024);
		ss.ss_size = 256 * 1024;
		ss.ss_flags = 0;
		sigaltstack(&ss, NULL);
		sa.sa_flags = SA_ONSTACK;
	}
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < 300; i++)
		total += deep(i % 15, raise_usr1, NULL);
	signal(SIGUSR1, SIG_DFL);
	if (alt) {
		ss.ss_flags = SS_DISABLE;
		sigaltstack(&ss, NULL);
	}
}

/* backtrace(3) after allocating: no frame of ours, the same count. */
static int bt_frames, bt_foreign;

static __attribute__((noinline)) long
take_backtrace(void *arg)
{
	void *f[64];
	int n, i;
	char **names;

	(void)arg;
	free(malloc(16));
	n = backtrace(f, 64);
	bt_frames += n;
	names = backtrace_symbols(f, n);
	for (i = 0; names && i < n; i++)
		if (strstr(names[i], "mt-preload") || !strchr(names[i], '('))
			bt_foreign++;
	free(names);
	return 0;
}

static void
case_backtrace(void)
{
	int i;

	for (i = 0; i < 200; i++)
		total += deep(i % 10, take_backtrace, NULL);
	printf("backtrace: %d frames, %d not the program's or libc's\n", bt_frames, bt_foreign);
}

/* Threads that end in pthread_exit deep down, or are cancelled there. */
static __attribute__((noinline)) long
exit_thread(void *arg)
{
	free(malloc(64));
	pthread_exit(arg);
}

static void
cleanup(void *p)
{
	free(p);
	__atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
}

static int cancel_pipe[2];

static __attribute__((noinline)) long
wait_cancel(void *arg)
{
	char c, *p = malloc(72);

	(void)arg;
	pthread_cleanup_push(cleanup, p);
	for (;;)
		if (read(cancel_pipe[0], &c, 1) <= 0)	/* a cancellation point */
			break;
	pthread_cleanup_pop(1);
	return 0;
}

static void *
thread_main(void *arg)
{
	deep(15, arg ? wait_cancel : exit_thread, (void *)7);
	return NULL;
}

static void
case_threads(int cancel)
{
	pthread_t t[8];
	void *ret;
	long got = 0;
	int i;

	if (cancel && pipe(cancel_pipe) < 0)
		exit(3);
	for (i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, thread_main, cancel ? "" : NULL);
	if (cancel) {
		usleep(100000);
		for (i = 0; i < 8; i++)
			pthread_cancel(t[i]);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], &ret);
		got += ret == PTHREAD_CANCELED ? 100 : (long)ret;
	}
	total += got + deep(5, allocs, NULL);
}

/* A fork deep in allocating frames: both sides return up through them. */
static __attribute__((noinline)) long
fork_here(void *arg)
{
	pid_t pid;
	int st;

	(void)arg;
	free(malloc(80));
	pid = fork();
	if (pid == 0)
		return 1000;	/* the child returns up, then exits */
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * A walk the shadow remembers (a thread that only walks: its frames
 * return before its next event) starts from the return address and stack
 * pointer of the frame that called malloc.  The same start is reached
 * here by other ways: through memo_a or memo_b (the same frame, another
 * return address above it), and through memo_h1 or memo_h2 into
 * memo_fp, which keeps a frame pointer and puts its stack pointer at one
 * place whatever its caller's frame: the same stack pointer, another
 * frame pointer, so that only the frame pointer tells the callers apart
 * (memo_leaf, memo_a and memo_b keep none: the walk takes memo_fp's
 * frame from the frame pointer malloc was called with).
 */
static uintptr_t memo_anchor;

static __attribute__((noinline, optimize("omit-frame-pointer"))) void *
memo_leaf(size_t n)
{
	void *p = malloc(n);

	sink++;
	return p;
}

#define MEMO_VIA(name) static __attribute__((noinline, optimize("omit-frame-pointer"))) void * \
name(size_t n) { void *p = memo_leaf(n); sink++; return p; }
MEMO_VIA(memo_a)
MEMO_VIA(memo_b)

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void *
memo_fp(size_t n, int which)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	volatile char *room = __builtin_alloca(here - memo_anchor);
	void *p;

	room[0] = 0;
	p = which ? memo_a(n) : memo_b(n);
	sink += room[0];
	return p;
}

static __attribute__((noinline)) void *
memo_h1(size_t n, int which)
{
	void *p = memo_fp(n, which);

	sink++;
	return p;
}

static __attribute__((noinline)) void *
memo_h2(size_t n, int which)
{
	volatile char big[200];
	void *p;

	big[0] = 1;
	p = memo_fp(n, which);
	sink += big[0];
	return p;
}

static void
case_memo(void)
{
	unsigned seed = 7, i, k;
	void *p;

	memo_anchor = ((uintptr_t)__builtin_frame_address(0) - 8192) & ~(uintptr_t)15;
	for (i = 0; i < 200000; i++) {
		seed = seed * 1103515245u + 12345u;
		k = seed >> 16;
		p = k & 1 ? memo_h1(16 + (k >> 2) % 64, k & 2) : memo_h2(16 + (k >> 2) % 64, k & 2);
		total += (long)(k & 3);
		free(p);
	}
}

static void
case_fork(void)
{
	long r = deep(12, fork_here, NULL);

	if (r > 1000) {		/* the child, at the top */
		fflush(stdout);
		_exit((int)(r - 1000));
	}
	total += r;
}

/*
 * A thread whose first allocation is made inside pthread_getattr_np,
 * which holds the thread's lock while it allocates (Rust's runtime and
 * the JVM begin so): a recorder that asks it for the stack deadlocks.
 */
static void *
getattr_first(void *arg)
{
	pthread_attr_t a;
	size_t size = 0;

	(void)arg;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getstacksize(&a, &size);
		pthread_attr_destroy(&a);
	}
	return (void *)(uintptr_t)(size > 0);
}

static void
case_getattr(void)
{
	pthread_t t[4];
	void *r;
	int i;

	total += (long)getattr_first(NULL);	/* the main thread's, first */
	for (i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, getattr_first, NULL);
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], &r);
		total += (long)r;
	}
}

int
main(int argc, char *argv[])
{
	const char *c = argc > 1 ? argv[1] : "all";
	int all = !strcmp(c, "all");

	if (!strcmp(c, "getattr"))
		case_getattr();

	if (all || !strcmp(c, "longjmp"))
		case_longjmp(0);
	if (all || !strcmp(c, "siglongjmp"))
		case_longjmp(1);
	if (all || !strcmp(c, "swapcontext"))
		case_swapcontext();
	if (all || !strcmp(c, "signal"))
		case_signal(0);
	if (all || !strcmp(c, "sigaltstack"))
		case_signal(1);
	if (all || !strcmp(c, "backtrace"))
		case_backtrace();
	if (all || !strcmp(c, "pthread_exit"))
		case_threads(0);
	if (all || !strcmp(c, "cancel"))
		case_threads(1);
	if (!strcmp(c, "fork"))
		case_fork();
	if (all || !strcmp(c, "memo"))
		case_memo();
	printf("%s: %ld\n", c, total);
	return 0;
}
