/* report_page.c: placeholder until the page's template lands. */
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"

void
report_page_write(FILE *f, const char *json, size_t len)
{
	fputs("<!DOCTYPE html><html><body><script id=\"mt-data\" type=\"application/json\">", f);
	fwrite(json, 1, len, f);
	fputs("</script></body></html>\n", f);
}
