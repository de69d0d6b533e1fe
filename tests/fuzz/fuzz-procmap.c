/*
 * libFuzzer: a line of /proc/PID/maps (lib/procfs.c), as the recorder
 * reads them of a traced process, whose file names are its own to
 * choose.  The line parsed is a NUL-terminated copy of the input; the
 * path found must lie within it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct procmap m;
	char *line = malloc(size + 1);

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (procmap_parse(line, &m) == 0 && (m.path < line || m.path > line + size ||
	    strlen(m.perms) != 4))
		abort();
	free(line);
	return 0;
}
