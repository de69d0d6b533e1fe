/*
 * Test tool: a report's JSON (report-schema.md) in, mt-report's page out,
 * through report_page_write(): the page's tests without mt-report.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "mt.h"

int
main(int argc, char *argv[])
{
	FILE *f;
	char *json = NULL;
	size_t len = 0, cap = 0, n;

	if (argc != 2)
		errx(2, "usage: report-page file.json");
	if (!(f = fopen(argv[1], "rb")))
		err(1, "%s", argv[1]);
	do {
		if (len == cap && !(json = realloc(json, cap = cap ? 2 * cap : 65536)))
			err(1, NULL);
		len += n = fread(json + len, 1, cap - len, f);
	} while (n);
	if (ferror(f))
		err(1, "%s", argv[1]);
	fclose(f);
	report_page_write(stdout, json, len);
	if (fclose(stdout))
		err(1, "stdout");
	free(json);
	return 0;
}
