/*
 * libFuzzer: the interpreter of call frame information (lib/ehframe.c)
 * on any bytes, as mt-record's collector runs it on the files a traced
 * process maps (not trusted).  The input: eight bytes of the address
 * asked, then the image, its .eh_frame_hdr at its start; then the same
 * image as an .eh_frame, indexed.  No read may leave the image, whatever
 * its offsets and lengths say.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ehframe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eh_image im;
	uint8_t *copy;
	uint64_t pc;
	uintptr_t i, n;

	if (size < 8)
		return 0;
	memcpy(&pc, data, 8);
	/* A copy of exactly its size: ASan sees a read past it. */
	if (!(copy = malloc(size - 8 ? size - 8 : 1)))
		return 0;
	memcpy(copy, data + 8, size - 8);
	memset(&im, 0, sizeof(im));
	im.hdr = copy;
	im.lo = copy;
	im.hi = copy + (size - 8);
	/* The image's bytes seen at a small address, as a file's are. */
	im.bias = (uintptr_t)0x1000 - (uintptr_t)copy;
	(void)eh_rule(&im, (uintptr_t)pc);
	(void)eh_rule(&im, (uintptr_t)(pc & 0xffff));
	n = eh_functions(&im);
	for (i = 0; i < n && i < 64; i++)
		(void)eh_rule(&im, eh_function(&im, i) + (pc & 0xff));
	/* The same bytes as an .eh_frame with no header: indexed. */
	im.hdr = NULL;
	n = eh_index(&im, copy, size - 8);
	for (i = 0; i < n && i < 64; i++)
		(void)eh_rule(&im, eh_function(&im, i) + (pc & 0xff));
	(void)eh_rule(&im, (uintptr_t)pc);
	free(im.tab);
	free(copy);
	return 0;
}
