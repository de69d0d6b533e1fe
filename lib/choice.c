/* choice.c: an option's word among a list of choices, or exit 2. */
#include <stdlib.h>
#include <string.h>

#include "mt.h"

int
echoice(const char *what, const char *s, const char *const *words, const char *choices)
{
	int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return i;
	mt_bad(what, s, choices);
	exit(2);
}
