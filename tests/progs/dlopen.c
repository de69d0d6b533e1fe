/* dlopen of an allocating library, calls into it, dlclose. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	void *h, *p;
	void *(*fn)(size_t);

	h = dlopen(argc > 1 ? argv[1] : "./liballoc.so", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	fn = (void *(*)(size_t))dlsym(h, "lib_allocate");
	p = fn(4242);
	free(p);
	dlclose(h);
	printf("ok\n");
	return 0;
}
