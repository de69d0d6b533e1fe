/*
 * gzip: a pprof profile written out, a gzipped profile.proto, the format
 * of github.com/google/pprof (proto/profile.proto) that go tool pprof,
 * speedscope and Pyroscope read: its tables encoded in the order of
 * their field numbers, into deflate as they are encoded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "mt.h"
#include "profile.h"
#include "proto.h"

static void
value_type(struct pbuf *p, struct pbuf *sub, unsigned field, uint32_t type, uint32_t unit)
{
	pb_uint(sub, VALUE_TYPE_TYPE, type);
	pb_uint(sub, VALUE_TYPE_UNIT, unit);
	pb_message(p, field, sub);
}

static void
label(struct pbuf *p, struct pbuf *sub, uint32_t key, uint32_t str, int64_t num)
{
	pb_uint(sub, LABEL_KEY, key);
	pb_uint(sub, LABEL_STR, str);
	pb_uint(sub, LABEL_NUM, (uint64_t)num);
	pb_message(p, SAMPLE_LABEL, sub);
}

/*
 * The gzip stream (what pprof reads and writes): the profile's bytes go
 * through deflate as they are encoded, a top-level field at a time, so
 * that the whole encoding is never held.
 */
struct gz {
	z_stream z;
	FILE *out;
	int failed;
	struct pbuf in;		/* encoded, not yet deflated */
};

static void
gz_deflate(struct gz *g, int flush)
{
	unsigned char chunk[65536];
	int ret;

	if (g->failed) {
		g->in.n = 0;
		return;
	}
	g->z.next_in = g->in.b;
	g->z.avail_in = (unsigned)g->in.n;
	do {
		g->z.next_out = chunk;
		g->z.avail_out = sizeof(chunk);
		ret = deflate(&g->z, flush);
		if (ret == Z_STREAM_ERROR) {
			mt_warnx("zlib: %s", g->z.msg ? g->z.msg : "stream error");
			g->failed = 1;
			break;
		}
		fwrite(chunk, 1, sizeof(chunk) - g->z.avail_out, g->out);
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && ret != Z_STREAM_END));
	g->in.n = 0;
}

/* After each top-level field: past 64 KiB, into deflate. */
static void
gz_field_done(struct gz *g)
{
	if (g->in.n >= 65536)
		gz_deflate(g, Z_NO_FLUSH);
}

/* The profile, encoded into g; the values past 2^63-1 saturated, in sat[]. */
static void
encode(struct mt_pprof *p, struct gz *g, struct mt_sat sat[PPROF_VALUES])
{
	struct pbuf *out = &g->in, sub = { 0 }, sub2 = { 0 }, packed = { 0 };
	uint64_t first = p->windowed ? p->from : p->first;
	uint64_t last = p->windowed ? p->to : p->last;
	uint32_t *id = ecalloc(p->nmap + 1, sizeof(*id)), nid = 0;
	size_t i, k;

	for (k = 0; k < PPROF_VALUES; k++) {
		value_type(out, &sub, PROFILE_SAMPLE_TYPE, p->svalue[k][0], p->svalue[k][1]);
		sat[k].hit |= p->hit[k];
	}
	for (i = 0; i < p->nsample; i++) {
		const struct psample *s = &p->sample[i];
		const struct pstack *st = &p->stack[s->stack];

		/* A lifetime allocated before the window and freed in it: none. */
		if (!s->v[0] && !s->v[1] && !s->v[2] && !s->v[3])
			continue;
		for (k = 0; k < st->nlocs; k++)
			pb_varint(&packed, st->loc[k]);
		pb_message(&sub, SAMPLE_LOCATION_ID, &packed);
		for (k = 0; k < PPROF_VALUES; k++)
			pb_varint(&packed, (uint64_t)s->v[k]);
		pb_message(&sub, SAMPLE_VALUE, &packed);
		label(&sub, &sub2, p->sprocess, s->process, 0);
		label(&sub, &sub2, p->spid, 0, s->pid);
		label(&sub, &sub2, p->sheap, s->heap, 0);
		pb_message(out, PROFILE_SAMPLE, &sub);
		gz_field_done(g);
	}
	/* The mappings of the locations, numbered anew: not every map line's. */
	for (i = 0; i < p->nloc; i++)
		if (p->loc[i].mapping && !id[p->loc[i].mapping])
			id[p->loc[i].mapping] = ++nid;
	for (i = 0; i < p->nmap; i++) {
		const struct pmapping *m = &p->map[i];

		if (!id[i + 1])
			continue;
		pb_uint(&sub, MAPPING_ID, id[i + 1]);
		pb_uint(&sub, MAPPING_MEMORY_START, m->lo);
		pb_uint(&sub, MAPPING_MEMORY_LIMIT, m->hi);
		pb_uint(&sub, MAPPING_FILE_OFFSET, m->offset);
		pb_uint(&sub, MAPPING_FILENAME, m->sfile);
		pb_uint(&sub, MAPPING_BUILD_ID, m->sbuild);
		/* Unnamed throughout: pprof may look its addresses up itself. */
		pb_uint(&sub, MAPPING_HAS_FUNCTIONS, !!(m->has & HAS_FUNCTIONS));
		pb_uint(&sub, MAPPING_HAS_FILENAMES, !!(m->has & HAS_FILENAMES));
		pb_uint(&sub, MAPPING_HAS_LINE_NUMBERS, !!(m->has & HAS_LINE_NUMBERS));
		pb_uint(&sub, MAPPING_HAS_INLINE_FRAMES, !!(m->has & HAS_FUNCTIONS));
		pb_message(out, PROFILE_MAPPING, &sub);
		gz_field_done(g);
	}
	for (i = 0; i < p->nloc; i++) {
		const struct plocation *l = &p->loc[i];

		pb_uint(&sub, LOCATION_ID, i + 1);
		pb_uint(&sub, LOCATION_MAPPING_ID, id[l->mapping]);
		pb_uint(&sub, LOCATION_ADDRESS, l->address);
		for (k = 0; k < l->nlines; k++) {
			pb_uint(&sub2, LINE_FUNCTION_ID, l->function[k]);
			pb_uint(&sub2, LINE_LINE, (uint64_t)l->line[k]);
			pb_message(&sub, LOCATION_LINE, &sub2);
		}
		pb_message(out, PROFILE_LOCATION, &sub);
		gz_field_done(g);
	}
	for (i = 0; i < p->nfn; i++) {
		pb_uint(&sub, FUNCTION_ID, i + 1);
		pb_uint(&sub, FUNCTION_NAME, p->fn[i].sname);
		pb_uint(&sub, FUNCTION_SYSTEM_NAME, p->fn[i].sname);
		pb_uint(&sub, FUNCTION_FILENAME, p->fn[i].sfile);
		pb_message(out, PROFILE_FUNCTION, &sub);
		gz_field_done(g);
	}
	for (i = 0; i < p->nstr; i++) {
		pb_bytes(out, PROFILE_STRING_TABLE, p->str[i].s, p->str[i].len);
		gz_field_done(g);
	}
	if (first <= last) {
		pb_uint(out, PROFILE_TIME_NANOS, p->start ? p->start + first : 0);
		pb_uint(out, PROFILE_DURATION_NANOS, last - first);
	}
	value_type(out, &sub, PROFILE_PERIOD_TYPE, p->sspace, p->sbytes);
	pb_uint(out, PROFILE_PERIOD, 1);
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, p->svalue[DEFAULT_TYPE][0]);
	free(sub.b);
	free(sub2.b);
	free(packed.b);
	free(id);
}

/*
 * The profile, gzipped, to out.  0, or 1 when zlib failed, said; a
 * failed write is out's error.
 */
int
pprof_write(struct mt_pprof *p, FILE *out, struct mt_sat sat[PPROF_VALUES])
{
	struct gz g;

	memset(&g, 0, sizeof(g));
	g.out = out;
	/* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
	if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		mt_warnx("zlib: %s", g.z.msg ? g.z.msg : "cannot start");
		return 1;
	}
	encode(p, &g, sat);
	gz_deflate(&g, Z_FINISH);
	deflateEnd(&g.z);
	free(g.in.b);
	return g.failed;
}
