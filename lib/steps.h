/* steps: Changes merged by step. */
#ifndef MT_STEPS_H
#define MT_STEPS_H

#include <stddef.h>
#include <stdint.h>

/*
 * steps.c: changes at the steps where something changed, merged by step;
 * two at one step where their sum would not fit in 63 bits.
 */
#define MT_STEP_VALUES 3
struct mt_step {
	uint64_t k;
	int64_t v[MT_STEP_VALUES];
};
struct mt_steps {
	struct mt_step *d;	/* sorted by step after steps_merge */
	size_t n, cap;
};
void steps_add(struct mt_steps *s, uint64_t k, int which, int64_t v);
void steps_merge(struct mt_steps *s);

#endif
