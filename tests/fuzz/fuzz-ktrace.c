/* libFuzzer: the kernel trace parser on any trace_pipe text, with stacks. */
#include <stdint.h>
#include <stdlib.h>

#include "mt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	const char *ks = getenv("MT_FUZZ_KALLSYMS");
	struct ktrace *k = ktrace_text(&o, ks ? ks : "tests/fixtures/mt-record/kallsyms");

	ktrace_feed(k, (const char *)data, size, sink, NULL);
	ktrace_close(k, sink, NULL);
	ktrace_free(k);
	return 0;
}
