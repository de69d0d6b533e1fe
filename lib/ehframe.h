/*
 * The interpreter of a module's .eh_frame call frame information
 * (x86-64's registers): for a code address, how to find its caller's
 * frame (the CFA, the return address, rbp), packed in a word.  The
 * preload library runs it on the modules loaded in its process;
 * mt-record's collector on the files another process mapped, which are
 * not trusted: every byte it reads is checked to be in the image.
 */
#ifndef MT_EHFRAME_H
#define MT_EHFRAME_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* What a frame is: one the walk can follow, the outermost, a signal
   handler's (the context saved at the CFA), or one it cannot follow. */
enum { K_NORMAL, K_END, K_SIGNAL, K_UNSUP };

/* A packed rule: */
#define V_KIND		3u	/* K_* */
#define V_CFA_BP	4u	/* the CFA is rbp + V_CFA_OFF, else rsp + it */
#define V_BP_SAVED	8u	/* the caller's rbp is at CFA + V_BP_OFF */
#define V_BP_LOST	16u	/* the caller's rbp is not known */
#define V_BP_OFF(v)	((int16_t)(uint16_t)((v) >> 16))
#define V_CFA_OFF(v)	((int32_t)(uint32_t)((v) >> 32))

/*
 * A module's frame information as some bytes hold it: its .eh_frame_hdr
 * at hdr, every byte read within [lo, hi), and bias added to a byte's
 * address to give the address the module's code sees it at (0 in the
 * process that loaded it; a file's segment mapped elsewhere otherwise).
 */
struct eh_entry {
	uintptr_t pc;		/* the function's start */
	const uint8_t *fde;
};
struct eh_image {
	const uint8_t *hdr, *lo, *hi;
	uintptr_t bias;
	struct eh_entry *tab;	/* with no .eh_frame_hdr (a static program): eh_index's */
	uintptr_t ntab;
};

/*
 * A module with no .eh_frame_hdr (ld -static makes none): an index of the
 * FDEs of its .eh_frame, at [p, p + len) in the image, made into im->tab
 * (malloc'ed, the caller's to free), sorted.  How many it holds.
 */
uintptr_t eh_index(struct eh_image *im, const uint8_t *p, uintptr_t len);

/* The packed rule of the frame at pc (the module's own address). */
uint64_t eh_rule(const struct eh_image *im, uintptr_t pc);

/* How many functions the image's table covers; the start of the i-th,
   ascending (0 past the last). */
uintptr_t eh_functions(const struct eh_image *im);
uintptr_t eh_function(const struct eh_image *im, uintptr_t i);

#pragma GCC visibility pop

#endif
