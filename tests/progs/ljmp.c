/*
 * A pool whose allocation function is left by longjmp one call in ten:
 * the recording through uprobes sees those calls' entries and never
 * their returns, and must go on recording the calls after them.
 * "gets N puts N jumps N": what the program did.
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;

__attribute__((noinline, used)) void *
my_get(size_t n)
{
	if (n == 13)
		longjmp(env, 1);
	return malloc(n);
}

__attribute__((noinline, used)) void
my_put(void *p)
{
	free(p);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

int
main(void)
{
	volatile int gets = 0, puts = 0, jumps = 0, i;

	for (i = 0; i < 100; i++) {
		if (setjmp(env)) {
			jumps++;
			continue;
		}
		void *p = my_get(i % 10 == 0 ? 13 : 32);
		gets++;
		my_put(p);
		puts++;
	}
	printf("gets %d puts %d jumps %d\n", gets, puts, jumps);
	return 0;
}
