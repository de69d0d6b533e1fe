/* table: Aligned tables for people. */
#ifndef MT_TABLE_H
#define MT_TABLE_H

#include <stddef.h>
#include <stdio.h>

/*
 * table.c: an aligned table for people; cells in characters, a column
 * that may give way (min > 0) cut in its middle with "...".
 */
struct mt_table;
struct mt_table *table_new(size_t ncols);
void table_column(struct mt_table *t, size_t c, int left, size_t gap, size_t min);
void table_hide(struct mt_table *t, size_t c);
void table_row(struct mt_table *t, const char *const cells[]);
void table_print(struct mt_table *t, FILE *f, size_t width);	/* and frees it */

#endif
