/* pipepeer: whether standard output goes to mt's own filters alone. */
#ifndef MT_PIPEPEER_H
#define MT_PIPEPEER_H

/*
 * 1 when standard output is a pipe whose reading end only mt's filters
 * hold (so a .mtr stream may go down it), 0 otherwise or with
 * MT_PIPE=text.  A sibling process still running a shell is waited for
 * up to 50 ms: it may be one about to exec the next filter.
 */
int mt_stdout_to_mt(void);

#endif
