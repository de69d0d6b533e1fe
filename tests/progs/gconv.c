/*
 * iconv to ISO-2022-JP: the C library loads that converter's module by
 * its own dlopen (no dlopen of the program's), whose gconv_init
 * allocates its state.  Prints the module's path as /proc has it.
 */
#include <iconv.h>
#include <stdio.h>
#include <string.h>

int
main(void)
{
	char in[] = "hello", out[64], *ip = in, *op = out, line[4096];
	size_t il = strlen(in), ol = sizeof(out);
	iconv_t cd = iconv_open("ISO-2022-JP", "UTF-8");
	FILE *maps;

	if (cd == (iconv_t)-1) {
		perror("iconv_open");
		return 1;
	}
	if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1)
		perror("iconv");
	if ((maps = fopen("/proc/self/maps", "r"))) {
		while (fgets(line, sizeof(line), maps))
			if (strstr(line, "ISO-2022-JP") && strstr(line, "r-xp"))
				fputs(strchr(line, '/'), stdout);
		fclose(maps);
	}
	iconv_close(cd);
	return 0;
}
