/*
 * JIT code that allocates: a stub written into anonymous memory, made
 * executable with mprotect, calls malloc(123).  Its return address lies
 * in no module, in an anonymous executable range.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int
main(void)
{
	/* sub rsp,8; mov edi,123; movabs rax,malloc; call rax; add rsp,8; ret */
	unsigned char code[] = { 0x48, 0x83, 0xec, 0x08, 0xbf, 0x7b, 0, 0, 0,
	    0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xd0, 0x48, 0x83, 0xc4, 0x08, 0xc3 };
	void *(*fn)(void);
	void *(*m)(size_t) = malloc;
	unsigned char *p;
	void *q;

	memcpy(code + 11, &m, sizeof(m));
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memcpy(p, code, sizeof(code));
	mprotect(p, 4096, PROT_READ | PROT_EXEC);
	fn = (void *(*)(void))(uintptr_t)p;
	q = fn();
	printf("jit at %p returned %p\n", (void *)p, q);
	free(q);
	return 0;
}
