/* WPA's lifetime classes: their names and types (WPA-SEMANTICS.md). */
#include "mt.h"

const char *const life_class_names[4] = { "aifi", "aifo", "aofi", "aofo" };

/* By the letters: a call a record costs. */
int
life_class_parse(const char *s, size_t len)
{
	if (len != 4 || s[0] != 'a' || s[2] != 'f' ||
	    (s[1] != 'i' && s[1] != 'o') || (s[3] != 'i' && s[3] != 'o'))
		return -1;
	return (s[1] == 'o') << 1 | (s[3] == 'o');
}

const char *
life_type(int cls, int exited)
{
	if (cls == LC_AIFI)
		return "transient";
	if (exited && (cls == LC_AIFO || cls == LC_AOFO))
		return "leaked";
	if (cls == LC_AOFO)
		return "outstanding";
	return "impacting";
}
