/* A small program to record in `make demo`: a few allocations, a leak. */
#include <stdlib.h>
#include <string.h>

static char *
make_name(int i)
{
	char *s = malloc(32);

	memset(s, 'a' + i % 26, 31);
	s[31] = '\0';
	return s;
}

int
main(void)
{
	char *names[8];
	int i;

	for (i = 0; i < 8; i++)
		names[i] = make_name(i);
	for (i = 0; i < 8; i += 2)
		free(names[i]);
	names[0] = realloc(names[1], 100);
	free(names[0]);
	return 0;
}
