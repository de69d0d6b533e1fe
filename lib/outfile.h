/*
 * outfile: a file a program writes, never one of its inputs, and whole
 * or not at all: written beside under a temporary name, renamed over
 * the path at the end.
 */
#ifndef MT_OUTFILE_H
#define MT_OUTFILE_H

#include <stdio.h>

struct outfile {
	FILE *f;
	char *path;		/* where it goes (a symbolic link's target) */
	char *part;		/* the file written, or NULL: path itself */
};

/* 1 (said) when path is the input (its device and inode; "-": stdin). */
int outfile_is_input(const char *path, const char *input);
/* 0, or -1 (said): o->f open for writing. */
int outfile_open(struct outfile *o, const char *path);
/* 0 when written whole and in place; else -1, said, and nothing left. */
int outfile_close(struct outfile *o);

#endif
