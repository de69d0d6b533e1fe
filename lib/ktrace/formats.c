/*
 * formats: where the fields of the events read raw are, from their
 * format files, and the layout of a ring-buffer page.
 */
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt.h"
#include "state.h"

static const char *const fmt_paths[K_NFMT] = {
	"kmem/kmalloc", "kmem/kfree", "kmem/kmem_cache_alloc", "kmem/kmem_cache_free",
	"kmem/mm_page_alloc", "kmem/mm_page_free", "kmem/mm_page_free_batched",
	"ftrace/kernel_stack", "task/task_newtask", "task/task_rename",
};
static const char *const field_names[F_NFIELDS] = {
	"call_site", "ptr", "bytes_alloc", "name", "pfn", "order", "size", "caller", "pid",
	"comm", "newcomm",
};

/* "field:const void * ptr;	offset:16;	size:8;	signed:0;" lines of a format file. */
static void
read_format(const char *root, const char *path, struct kfmt *f)
{
	char file[600], line[512], *semi, *name;
	int i, off, size;
	FILE *fp;

	f->id = -1;
	for (i = 0; i < F_NFIELDS; i++)
		f->off[i] = f->size[i] = -1;
	snprintf(file, sizeof(file), "%s/events/%s/format", root, path);
	if (!(fp = fopen(file, "re")))
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "ID: %d", &i) == 1) {
			f->id = i;
			continue;
		}
		if (!strstr(line, "field:") || !(semi = strchr(line, ';')) ||
		    sscanf(semi, "; offset:%d; size:%d;", &off, &size) != 2)
			continue;
		*semi = '\0';
		/* The last word is the name, an array's with its length. */
		name = strrchr(line, ' ');
		name = name ? name + 1 : line;
		name[strcspn(name, "[")] = '\0';
		for (i = 0; i < F_NFIELDS; i++)
			if (!strcmp(name, field_names[i])) {
				f->off[i] = off;
				f->size[i] = size;
			}
	}
	fclose(fp);
}

/* root: where events/ is; cpus: where per_cpu/ is (the instance). */
int
kt_raw_setup(struct ktrace *k, const char *root, const char *cpus)
{
	char path[600], line[256];
	int i, off, size;
	FILE *fp;

	for (i = 0; i < K_NFMT; i++)
		read_format(root, fmt_paths[i], &k->fmt[i]);
	/* Where a page's events begin and how long a page is. */
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if (!(fp = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, " field: char data; offset:%d; size:%d;", &off, &size) == 2) {
			k->data_off = (size_t)off;
			k->page_size = (size_t)(off + size);
		}
	fclose(fp);
	if (!k->page_size || k->data_off != 16 || k->fmt[K_KMALLOC].id < 0 ||
	    k->fmt[K_STACK].id < 0)
		return -1;
	for (k->ncpus = 0;; k->ncpus++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", cpus, k->ncpus);
		if (access(path, F_OK) < 0)
			break;
	}
	if (!k->ncpus)
		return -1;
	k->cpufd = emalloc((size_t)k->ncpus * sizeof(*k->cpufd));
	k->last_of_cpu = emalloc((size_t)k->ncpus * sizeof(*k->last_of_cpu));
	for (i = 0; i < k->ncpus; i++)
		k->last_of_cpu[i] = -1;
	for (i = 0; i < k->ncpus; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", cpus, i);
		if ((k->cpufd[i] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			while (i-- > 0)
				close(k->cpufd[i]);
			free(k->cpufd);
			k->cpufd = NULL;
			return -1;
		}
	}
	k->raw = 1;
	return 0;
}
