/*
 * mt-group's state shared by its files: the options main.c sets, the
 * keys, the groups the lifetimes are summed in, and how sums are shown.
 */
#ifndef MT_GROUP_H
#define MT_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "mt.h"

enum key { K_PROCESS, K_PID, K_HEAP, K_TYPE, K_CLASS, K_FUNCTION, K_STACK, K_MODULE,
	K_FILE, K_FREE_FUNCTION, K_FREE_STACK, K_TASK, K_LINE, K_TEMPORARY, K_SIZE_CLASS,
	K_ORDER, K_COMMIT_TIME, K_DECOMMIT_TIME, K_NKEYS };
enum format { F_TABLE, F_TSV, F_JSON, F_FOLDED, F_PPROF };
enum sort { S_IMPACT, S_SIZE, S_COUNT, S_KEY };

/* The options: main() reads them and hands them to the others. */
struct group_opts {
	enum key keys[K_NKEYS];	/* --by, or the tree's levels */
	size_t nkeys;
	int by_given;		/* --by */
	int uncached;	/* a key beyond (process, heap, class, stack): no kept groups */
	enum format format;
	enum sort sort_by;
	long top;
	int tree, bottom_up, weight_impact;
	int shorten;		/* C++ templates: -1 collapsed in the table only */
	int from_main;		/* --from-main */
	long max_depth;		/* --depth: the stack levels drawn */
	size_t nlevels;		/* --tree: the levels above the stacks */
	int with_lines;		/* a line key: frames as "function\tfile:line" */
	struct mt_suppress *suppress;
	int no_suppress;
	const char *diff_path;	/* --diff: an earlier run's --format tsv */
	int histogram;		/* --histogram */
	const char *skip_pattern;	/* --skip */
};

extern struct mt_dict *dict;	/* processes, stacks and symbols */
extern struct mt_pprof *pprof;	/* --format pprof: the profile made */
extern uint64_t nlife, nraw;	/* what the input held */

/* Wide: a sum of 63-bit terms never wraps, and is narrowed where shown. */
struct sums {
	mt_wide count, size;	/* Size: what was allocated inside the window */
	mt_wide impact;
};
struct group {
	char *key;		/* the key fields, TAB-separated */
	size_t klen;
	struct sums s;
	struct sums old;	/* --diff: the earlier run's */
	int in;			/* --diff: 1 in this run, 2 in the earlier, 3 both */
	struct group *next;
};
extern struct group **all;
extern size_t nall;

/* The columns whose sums saturated where shown, said at the end. */
enum { SAT_COUNT, SAT_SIZE, SAT_IMPACT, SAT_COUNT_CHANGE, SAT_SIZE_CHANGE,
	SAT_IMPACT_CHANGE, SAT_SUPPRESSED, SAT_PPROF, SAT_NCOLUMNS = SAT_PPROF + PPROF_VALUES };
extern struct mt_sat sat[SAT_NCOLUMNS];

/* keys.c */
extern const char *const key_names[K_NKEYS];
const char *key_heading(enum key k);
void parse_keys(struct group_opts *o, const char *s);
void header_resolution(const struct mt_header *h);
uint32_t startup_of(const struct group_opts *o, struct mt_stackinfo *si);
void folded(const struct group_opts *o, struct mt_stackinfo *si, char **p, size_t *len,
    size_t *cap);
const char *key_value(const struct group_opts *o, enum key k, const struct mt_event *ev,
    struct mt_stackinfo *si, struct mt_stackinfo *fsi, size_t *len);

/* groups.c */
struct group *group_of(const char *key, size_t klen);
void sums_add(const struct group_opts *o, struct sums *to, const struct sums *s);
int group_file(struct group_opts *o, const char *path);

/* show.c */
int64_t sum_shown(mt_wide v, int column);
const char *sum_human(mt_wide v, int column, char *buf, size_t n);
void say_saturated(void);
int sums_cmp(const struct group_opts *o, const struct sums *x, const char *xname,
    const struct sums *y, const char *yname);
void json_str(const char *s, size_t n);
char *ctl_shown(const char *s);
char *shown_name(const struct group_opts *o, const char *s);
void put_cell(const char *s, size_t w, int name);
size_t split(char *s, char **f, size_t max);
size_t sort_top(const struct group_opts *o, struct group **v, size_t n,
    int (*cmp)(const void *, const void *, void *));
void tsv_header(const struct group_opts *o, const char *tail);
void json_keys(const struct group_opts *o, char **f);
int64_t per_alloc(const struct sums *s);
#define TABLE_WIDTH 120		/* the key columns give way past it */

/* table.c */
void write_groups(const struct group_opts *o);
void write_folded(const struct group_opts *o);

/* tree.c */
void tree_names(void);
struct sums *path_sums(const struct group_opts *o, const struct mt_event *ev);
void write_tree(const struct group_opts *o);

/* diff.c */
int read_old(const struct group_opts *o, const char *path);
int write_diff(const struct group_opts *o);

#endif
