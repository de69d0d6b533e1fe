/*
 * exename: the rule that names a process's program, shared by the
 * preload library (built into it -fPIC) and the recorder.
 */

#include <string.h>

#include "exename.h"

size_t
exe_name_of(char *buf, size_t len, size_t cwdlen, const char *execfn)
{
	size_t n = 0, elen;

	if (!execfn || !*execfn || strncmp(execfn, "/dev/fd/", 8) == 0 ||
	    strncmp(execfn, "/proc/", 6) == 0)
		return 0;
	if (execfn[0] != '/') {
		if (cwdlen == 0 || cwdlen >= len)
			return 0;
		n = cwdlen;
		if (n > 1)
			buf[n++] = '/';
		while (execfn[0] == '.' && execfn[1] == '/')
			execfn += 2;
	}
	elen = strlen(execfn);
	if (n + elen >= len)
		return 0;
	memcpy(buf + n, execfn, elen + 1);
	return n + elen;
}
