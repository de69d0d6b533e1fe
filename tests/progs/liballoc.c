/* A library that allocates, for dlopen. */
#include <stdlib.h>

void *lib_allocate(size_t n);

void *
lib_allocate(size_t n)
{
	return malloc(n);
}
