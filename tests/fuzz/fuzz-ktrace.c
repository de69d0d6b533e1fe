/*
 * libFuzzer: both kernel trace parsers on any bytes: as trace_pipe text
 * (with kallsyms), and as the ring buffer pages of one CPU (with the
 * format files of tests/fixtures/mt-record/raw.tar.xz, unpacked once
 * into a scratch directory).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void
sink(struct mt_event *ev, void *arg)
{
	char buf[1 << 16];
	size_t n = event_format_size(ev);

	if (n <= sizeof(buf))
		event_format(ev, buf, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ktrace_opts o = { .events = KT_KMALLOC | KT_CACHE | KT_PAGE, .stacks = (size & 1) };
	char cmd[256], path[128], ks[128];
	struct ktrace *k;
	FILE *f;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-ktrace.%d", (int)getpid());
		snprintf(cmd, sizeof(cmd), "mkdir -p %s && tar -xJf tests/fixtures/mt-record/raw.tar.xz "
		    "-C %s && rm -f %s/per_cpu/cpu1/trace_pipe_raw", dir, dir, dir);
		if (system(cmd) != 0)
			abort();
	}
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	k = ktrace_text(&o, ks);
	ktrace_feed(k, (const char *)data, size, sink, NULL);
	ktrace_close(k, sink, NULL);
	ktrace_free(k);

	snprintf(path, sizeof(path), "%s/per_cpu/cpu0/trace_pipe_raw", dir);
	if (!(f = fopen(path, "w")))
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	if ((k = ktrace_raw_files(&o, ks, dir))) {
		ktrace_close(k, sink, NULL);
		ktrace_free(k);
	}
	return 0;
}
