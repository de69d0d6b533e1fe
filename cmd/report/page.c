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

static const char data_open[] = "<script id=\"mt-data\" type=\"application/json\">";
static const char data_close[] = "</script>\n";

void
report_page_write(FILE *f, const char *json, size_t len)
{
	size_t i, from = 0;

	fwrite(report_page_head, 1, sizeof(report_page_head) - 1, f);
	fwrite(data_open, 1, sizeof(data_open) - 1, f);
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
	fwrite(data_close, 1, sizeof(data_close) - 1, f);
	fwrite(report_page_tail, 1, sizeof(report_page_tail) - 1, f);
}
