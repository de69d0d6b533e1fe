/*
 * mt-pooldiff's snapshot logs: a log's headers and rows (PoolMon's
 * columns), and the pool records of an event stream, each time a
 * snapshot.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pooldiff.h"

static int skipping;	/* the rows of a snapshot in a format not ours */

/* A log's snapshot header, until its first row. */
static struct {
	int on;
	int64_t t;
	char *host;
	const char *file;
	uint64_t lineno;
} pending;

/*
 * The header before has had no row: a snapshot whose source failed (an
 * older mt-pooldiff wrote its header anyway).  Taken in, its tags would
 * have vanished and --growth said they stopped: left out, and said.
 */
void
log_done(void)
{
	if (!pending.on)
		return;
	pending.on = 0;
	bad_line(pending.file, pending.lineno, "snapshot without rows left out", "#mt-pool");
}

void
log_header(const char *file, uint64_t lineno, char *line)
{
	char *w, *save, *host = NULL;
	int64_t t = NONE;
	int said = 0;

	log_done();
	skipping = 0;
	w = strtok_r(line, " \t", &save);
	if (!w || strcmp(w, "1")) {
		/* A later format: its rows may not mean ours. */
		bad_line(file, lineno, "snapshot format this mt-pooldiff does not read",
		    w ? w : "#mt-pool");
		skipping = 1;
		return;
	}
	for (w = strtok_r(NULL, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!strncmp(w, "time=", 5) && parse_time(w + 5, &t) < 0) {
			bad_line(file, lineno, "bad snapshot time", w);
			said = 1;
		} else if (!strncmp(w, "host=", 5)) {
			host = w + 5;
		}
	}
	if (t == NONE) {
		if (!said)
			bad_line(file, lineno, "snapshot without a time", "#mt-pool");
		t = nsnaps ? snaps[nsnaps - 1].t : 0;
	}
	if (nsnaps && t < snaps[nsnaps - 1].t)
		bad_line(file, lineno, "snapshot older than the one before", line);
	saw_log = 1;
	/* Begun at its first row: a header alone is a snapshot that failed. */
	pending.t = t;
	free(pending.host);
	pending.host = estrdup(host ? host : "-");
	pending.file = file;
	pending.lineno = lineno;
	pending.on = 1;
}

void
log_row(const char *file, uint64_t lineno, const char *line, size_t len)
{
	char buf[4096], *f[8], *save;
	int64_t v;
	mt_wide c[NCOUNTERS];
	size_t n = 0, i;
	struct tag *t;

	if (len >= sizeof(buf)) {
		bad_line(file, lineno, "snapshot row too long", "...");
		return;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	/* Eight fields say too many: the array holds no ninth. */
	while (n < 8 && (f[n] = strtok_r(n ? NULL : buf, " \t", &save)))
		n++;
	if (n != 7) {
		char tmp[4096];
		memcpy(tmp, line, len);
		tmp[len] = '\0';
		bad_line(file, lineno, "bad snapshot row", tmp);
		return;
	}
	if (skipping)
		return;
	if (!nsnaps && !pending.on) {
		bad_line(file, lineno, "row before any snapshot header", f[0]);
		return;
	}
	for (i = 0; i < NCOUNTERS; i++) {
		if (!strcmp(f[2 + i], "-"))
			c[i] = NONE_W;
		else if (parse_i64(f[2 + i], &v) < 0) {
			bad_line(file, lineno, "bad counter", f[2 + i]);
			return;
		} else
			c[i] = v;
	}
	if (pending.on) {
		pending.on = 0;
		snapshot_begin(pending.t, pending.host);
	}
	t = tag_get(f[0], strlen(f[0]), f[1], strlen(f[1]));
	if (t->in_cur) {
		bad_line(file, lineno, "tag twice in one snapshot", f[0]);
		return;
	}
	snapshot_row(t, c);
}

/* A pool record of mt-events(5): the records of one time make a snapshot. */
void
pool_record(const struct mt_event *ev)
{
	static int64_t cur = NONE;
	int64_t t = (trace_start == NONE ? 0 : trace_start) + (int64_t)ev->ts;
	mt_wide c[NCOUNTERS];
	char tag[4096];

	if (t != cur || !nsnaps) {
		snapshot_begin(t, trace_host);
		cur = t;
	}
	saw_log = 1;
	c[C_ALLOCS] = ev->count[0];
	c[C_FREES] = ev->count[1];
	c[C_DIFF] = c[C_ALLOCS] - c[C_FREES];
	c[C_BYTES] = ev->count[2];
	tag_escape(ev->heap.s, ev->heap.len, tag, sizeof(tag));
	snapshot_row(tag_get(tag, strlen(tag), ev->s1.s, ev->s1.len), c);
}
