/* A preloaded library whose constructor allocates, maybe before ours runs. */
#include <stdlib.h>
#include <string.h>

void *volatile early_sink;

__attribute__((constructor)) static void
early(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		free(early_sink);
		early_sink = malloc(4000 + i);
		memset(early_sink, 1, 16);
	}
}
