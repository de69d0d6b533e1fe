/*
 * mt-report's page: the template of share/report/ (its HTML, CSS, script
 * and d3, made into two C strings by the Makefile) around the report's
 * JSON.  The JSON sits in a script element, where the HTML parser ends
 * the element at the first "</script" and may be thrown off by "<!--":
 * so every "</" is written "<\/" and every "<!--" "\u003c!--", both the
 * same string to JSON.  A '<' is only ever inside a JSON string.
 */
#include <sys/types.h>

#include <stdio.h>
#include <string.h>

#include "mt.h"
#include "report.h"
#include "report-page.h"

/* JSON in a script element, escaped as above. */
static void
put_data(FILE *f, const char *id, const char *json, size_t len)
{
	size_t i, from = 0;

	fprintf(f, "<script id=\"%s\" type=\"application/json\">", id);
	for (i = 0; i < len; i++) {
		if (json[i] != '<')
			continue;
		if (i + 1 < len && json[i + 1] == '/') {
			fwrite(json + from, 1, i + 1 - from, f);
			fputs("\\", f);
			from = i + 1;
		} else if (len - i >= 4 && !memcmp(json + i, "<!--", 4)) {
			fwrite(json + from, 1, i - from, f);
			fputs("\\u003c", f);
			from = i + 1;
		}
	}
	fwrite(json + from, 1, len - from, f);
	fputs("</script>\n", f);
}

/* The page of json; with old (a run before, or NULL), of the changes too. */
void
report_page_write(FILE *f, const char *json, size_t len, const char *old, size_t oldlen)
{
	fwrite(report_page_head, 1, sizeof(report_page_head) - 1, f);
	put_data(f, "mt-data", json, len);
	if (old)
		put_data(f, "mt-data-old", old, oldlen);
	fwrite(report_page_tail, 1, sizeof(report_page_tail) - 1, f);
}
