/*
 * mt: the one header of the library every mt program links with.
 * One concern a file under lib/; nothing here prints except the e*()
 * helpers that exit and the diagnostics in diag.c.
 */
#ifndef MT_H
#define MT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MT_EVENTS_VERSION 1	/* the text format, see mt-events(5) */
#define MT_TRACE_VERSION 3	/* the .mtr container; 1 and 2 are still read */
#define MT_VERSION "0.1.0"	/* the programs' --version */

/* diag.c */
extern const char *mt_progname;
extern int mt_status;		/* exit status the diagnostics asked for */
void mt_setprogname(const char *argv0);
/* --help (full: the synopsis and the options on stdout, exit 0) or a bad
   option (the synopsis on stderr, exit 2); --version. */
void mt_usage(int full, const char *synopsis, const char *options) __attribute__((noreturn));
void mt_version(void) __attribute__((noreturn));
const char *mt_shown(const char *s, size_t len);	/* a token fit for a message */
void mt_warn_at(const char *file, uint64_t line, const char *what,
    const char *token, size_t toklen);
void *emalloc(size_t n);
void *ecalloc(size_t n, size_t size);
void *erealloc(void *p, size_t n);
/* An array p of n elements with room for one more: cap doubles when full. */
void *egrow(void *p, size_t n, size_t *cap, size_t size);
void *etable_calloc(size_t n, size_t size);
void etable_free(void *p, size_t n, size_t size);
void *etable_grow(void *p, size_t n, size_t newn, size_t size);
char *estrdup(const char *s);
char *estrndup(const char *s, size_t n);
int mt_close_stdout(void);
/*
 * read(2) for a filter's input: when it would wait, standard output and
 * what mt_set_idle() names are flushed first (fn(arg); NULL: nothing).
 */
ssize_t mt_read_input(int fd, void *buf, size_t len);
void mt_set_idle(void (*fn)(void *), void *arg);
/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t mt_monotonic_ns(void);

/*
 * mt-record -p (lib/inject.c): loads lib into process pid and calls its
 * mt_attach(args) there (args: alen bytes).  0 once a thread of it is on
 * its way to; -1 with why said (wlen bytes at most) when refused.
 */
int mt_inject(pid_t pid, const char *lib, const char *args, size_t alen,
    char *why, size_t wlen);

/* units.c: "250ms", "1.5s", "2m" -> nanoseconds; "64K", "10MiB" -> bytes */
int parse_duration(const char *s, uint64_t *ns);	/* -2: a number without a unit */
int parse_size(const char *s, uint64_t *bytes);
uint64_t eduration(const char *opt, const char *s, int zero_ok);	/* parse_duration, or exit 2 */
uint64_t esize(const char *opt, const char *s);		/* parse_size, or exit 2 */

/*
 * Sums that never wrap.  A sum stops at +-(2^63-1), where every number
 * of the text format fits, and a column's struct mt_sat remembers which
 * way; sat_say() (diag.c) says it once and sets mt_status.  A sum whose
 * terms have both signs is kept wide (mt_wide) and narrowed only where
 * it is shown, for one stopped early would lose what the other sign
 * takes back.
 */
#define SAT_MAX INT64_MAX
#define SAT_UP 1		/* a sum stopped at SAT_MAX */
#define SAT_DOWN 2		/* at -SAT_MAX */
typedef __int128 mt_wide;
struct mt_sat {
	const char *column;	/* as the output names it: "Size" */
	unsigned hit, said;	/* SAT_UP, SAT_DOWN: reached, and said */
};
void sat_say(struct mt_sat *s);	/* what was hit and not said yet */

static inline int64_t
sat_narrow(mt_wide v, unsigned *hit)
{
	if (v > SAT_MAX) {
		*hit |= SAT_UP;
		return SAT_MAX;
	}
	if (v < -SAT_MAX) {
		*hit |= SAT_DOWN;
		return -SAT_MAX;
	}
	return (int64_t)v;
}

static inline int64_t
sat_add(int64_t a, int64_t b, unsigned *hit)
{
	return sat_narrow((mt_wide)a + b, hit);
}

static inline int64_t
sat_sub(int64_t a, int64_t b, unsigned *hit)
{
	return sat_narrow((mt_wide)a - b, hit);
}

/* mt_human's, or past SAT_MAX ">=8.0 EiB" (and "<=-8.0 EiB"), hit said. */
const char *sat_human(mt_wide v, unsigned *hit, char *buf, size_t n);

/* A string that points into a buffer the reader owns. */
struct mt_str {
	const char *s;
	size_t len;
};

enum mt_type {
	MT_NONE,
	MT_COMMENT,	/* '#' lines, passed through by every tool */
	MT_PROC,
	MT_MAP,
	MT_STACK,
	MT_SYM,
	MT_ALLOC,
	MT_FREE,
	MT_LIFE,
	MT_EXIT,
	MT_LOST,
	MT_WINDOW,
	MT_SAMPLE,
	MT_POOL,
	MT_UNKNOWN,	/* a record name this version does not know */
	MT_NTYPES
};

/* flags of struct mt_event */
#define EV_TS_NONE	0x01	/* first time field is '-' */
#define EV_TS2_NONE	0x02	/* second time field is '-' */
#define EV_STACK_NONE	0x04
#define EV_TRUNCATED	0x08	/* a stack cut at --depth: ends in "..." */
#define EV_SIZE_NONE	0x10
#define EV_PID_NONE	0x20
#define EV_TID_NONE	0x40
#define EV_STACK2	0x80	/* life: the free's stack, in stack2 */
#define EV_TEMP		0x200	/* life: temporary (freed before its thread allocated again) */
#define EV_RANGE	0x100	/* sample: the step's most and least bytes in count[0], count[1] */
#define EV_INSTANTS	0x400	/* sample: the instants of those in ts2, count[2] */

/* Exit status in an exit record: a code 0..255, or a signal. */
#define MT_STATUS_NONE	(-1)
#define MT_STATUS_SIG(n)	(0x100 | (n))
#define MT_STATUS_ISSIG(s)	((s) >= 0x100)

/*
 * One record of the event format, text or binary.  Which fields mean
 * something depends on type; mt-events(5) is the authority.
 */
struct mt_event {
	enum mt_type type;
	unsigned flags;
	uint64_t ts;		/* alloc/free/exit/lost/proc/sample/pool; life alloc; window from */
	uint64_t ts2;		/* life free; window to; sample: its maximum's instant */
	int64_t pid, ppid, tid;
	uint64_t addr;		/* alloc/free/life; map lo; sym ip */
	uint64_t size;		/* alloc/life; map hi; sample bytes; lost events */
	uint64_t stack;		/* stack id; map file offset; sample count */
	uint64_t stack2;	/* life: the free's stack id, with EV_STACK2 */
	int64_t impact;		/* life */
	int status;		/* exit */
	uint64_t count[3];	/* pool allocs, frees, bytes; sample max, min bytes, min's instant */
	struct mt_str heap;	/* heap; pool tag */
	struct mt_str s1, s2, s3;	/* proc exe,argv; map build-id,path; sym function,file:line,module;
					   lost reason; life class; pool type; comment/unknown whole line */
	size_t nips;
	uint64_t *ips;		/* stack frames, innermost first */
};

extern const char *const mt_type_names[MT_NTYPES];

/* event.c: the text format */
struct mt_parser {
	char **field;
	size_t nfield, cap;
	uint64_t *ips;
	size_t ipcap;
	const char *what;	/* after a failed parse: what is wrong */
	const char *tok;	/* and the offending token */
	size_t toklen;
};
void parser_init(struct mt_parser *p);
void parser_free(struct mt_parser *p);
/*
 * Parses one line (without its newline, NUL-terminated, modified in
 * place).  Returns 0, or -1 with p->what and p->tok set.
 */
int event_parse(struct mt_parser *p, char *line, size_t len, struct mt_event *ev);
/* Formats ev as one line with its newline into buf; returns its length. */
size_t event_format(const struct mt_event *ev, char *buf, size_t bufsize);
size_t event_format_size(const struct mt_event *ev);
/*
 * Zeroes an event in 64-byte pieces: GCC makes a whole-struct memset a
 * `rep stos`, whose start-up cost was a tenth of mt-lifetime's time; the
 * pieces become plain vector stores.
 */
static inline void
event_clear(struct mt_event *ev)
{
	char *p = (char *)ev;
	size_t i;

	for (i = 0; i + 64 <= sizeof(*ev); i += 64)
		memset(p + i, 0, 64);
	memset(p + i, 0, sizeof(*ev) - i);
}
/* Escapes a string for a text field: TAB, newline, backslash, controls. */
size_t str_escape(char *dst, const char *src, size_t len);
enum mt_type type_from_name(const char *s, size_t len);
int heap_known(const struct mt_str *heap);	/* 0 malloc, 1 mmap, 2 reserve, else -1 */
extern const struct mt_str mt_heap_names[3];
int format_status(char *buf, int status);

/* out.c: a buffered writer onto a file descriptor */
struct mt_out {
	int fd;
	int error;		/* errno of the first failed write */
	size_t len, cap;
	char *buf;
	uint64_t written;
};
void out_init(struct mt_out *o, int fd, size_t cap);	/* fd < 0: a buffer that grows */
char *out_reserve(struct mt_out *o, size_t n);
void out_commit(struct mt_out *o, size_t n);
void out_write(struct mt_out *o, const void *p, size_t n);
int out_flush(struct mt_out *o);
int out_finish(struct mt_out *o);	/* flush, say why not, free: 0 or 1 */
void out_free(struct mt_out *o);
void out_flush_idle(void *o);	/* out_flush, for mt_set_idle */
/* json.c */
size_t utf8_len(const unsigned char *s, size_t n);	/* 0: not a UTF-8 sequence */
void json_string(struct mt_out *o, const char *s, size_t n);

/* lines.c: a line reader that does not allocate per line */
struct mt_lines {
	int fd;
	int eof;
	int error;
	int cut;		/* the line returned last had no newline */
	char *buf;
	size_t cap, start, end;
	uint64_t lineno;
};
void lines_init(struct mt_lines *l, int fd);
/* Next line, NUL-terminated without its newline, or NULL at the end. */
char *lines_next(struct mt_lines *l, size_t *len);
void lines_free(struct mt_lines *l);

/* A 64-bit mixer (murmur3's finaliser) for the hash tables. */
static inline uint64_t
hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* Bytes hashed eight at a time (a group's key for every lifetime). */
static inline uint64_t
hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = n * 0x9e3779b97f4a7c15ULL, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	return hash64(h ^ w);
}

/* regex.c: PCRE2 patterns for the filters (programs link libpcre2-8) */
struct mt_regex;
struct mt_regex *re_compile(const char *pattern);	/* exits 2 when bad */
/* A pattern read from file:line (file NULL: none): NULL when bad, said. */
struct mt_regex *re_compile_at(const char *pattern, const char *file, uint64_t line);
int re_match(const struct mt_regex *re, const char *s, size_t len);

/* map.c: 64-bit keys to pointers (a NULL value is an empty slot) */
struct u64map_entry {
	uint64_t key;
	void *value;
};
struct u64map {
	struct u64map_entry *e;
	size_t n, cap;
};
/*
 * The value slot of key, or NULL when it is absent and insert is 0.  A
 * slot inserted must be given a value before the next call.
 */
void **u64map_get(struct u64map *m, uint64_t key, int insert);
void u64map_free(struct u64map *m, void (*free_value)(void *));

/* varint.h-like helpers, used by the trace codec and the recorder */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}
static inline uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* trace.c: the .mtr container */
#define MT_TRACE_MAGIC "\x89MTR\r\n\x1a\n"
#define MT_TRACE_MAGIC_LEN 8
#define MT_TRACE_HEADER_LEN 16	/* magic, u32 version, u32 flags */

struct trace_writer;
struct trace_writer *trace_writer_new(int fd, int level);
/* Appends one record; a frame is ended when it is big enough. */
void trace_write(struct trace_writer *w, const struct mt_event *ev);
/*
 * The recorder's fast way for an alloc or a free (type), of heap 0-2 of
 * mt_heap_names: what trace_write writes of an mt_event so made.
 */
struct mt_heap_rec {
	uint64_t ts, addr, size, stack;
	int64_t pid, tid;
	unsigned flags;		/* EV_STACK_NONE */
};
void trace_write_heap(struct trace_writer *w, enum mt_type type, int heap,
    const struct mt_heap_rec *r);
/* Times from now on in units of ns nanoseconds, rounded down (1: exact). */
void trace_writer_time_unit(struct trace_writer *w, uint64_t ns);
/* The record at addr comes soon: a hint, nothing is written. */
void trace_writer_prefetch(const struct trace_writer *w, uint64_t addr);
/* The pairer's lifetime, class cls (0-3: aifi aifo aofi aofo), as trace_write would. */
struct mt_life;
void trace_write_life(struct trace_writer *w, const struct mt_life *l, unsigned cls, int64_t impact);
void life_event(const struct mt_life *l, unsigned cls, int64_t impact, struct mt_event *ev);
/* Ends the current frame and writes it out; 0 or an errno. */
int trace_flush(struct trace_writer *w);
/* Writes the end record and flushes: the trace is whole.  0 or an errno. */
int trace_end(struct trace_writer *w);
int trace_writer_error(const struct trace_writer *w);
uint64_t trace_writer_bytes(const struct trace_writer *w);
uint64_t trace_writer_events(const struct trace_writer *w);
int trace_writer_free(struct trace_writer *w);	/* flushes; 0 or an errno */
/* For bounded recording: frames under the caller's control. */
int trace_writer_full(const struct trace_writer *w, const struct mt_event *ev);
size_t trace_writer_pending(const struct trace_writer *w);	/* raw bytes not yet a frame */
void trace_writer_frame_max(struct trace_writer *w, size_t raw);
/* Each frame to fn instead of the file (the header is not written). */
void trace_writer_on_frame(struct trace_writer *w, void (*fn)(void *, const void *, size_t),
    void *arg);

/* regions.c: disjoint address ranges, sorted, in chunks (mt-record's mappings) */
struct mt_range {
	uint64_t lo, hi;
	uint8_t heap;
};
struct reg_chunk;
struct mt_ranges {
	struct reg_chunk **c;
	size_t nc, cap, n;	/* chunks, and ranges in all */
};
struct mt_rpos {
	size_t c, i;		/* chunk, index in it */
};
/* The first range that ends after addr (the end when none does). */
struct mt_rpos ranges_seek(const struct mt_ranges *s, uint64_t addr);
struct mt_range *ranges_at(const struct mt_ranges *s, struct mt_rpos at);	/* NULL: the end */
void ranges_next(const struct mt_ranges *s, struct mt_rpos *at);
/* Before *at, which then points at the new range; the caller keeps them disjoint. */
void ranges_insert(struct mt_ranges *s, struct mt_rpos *at, struct mt_range r);
/* Removes the range at *at, which then points at the one after. */
void ranges_delete(struct mt_ranges *s, struct mt_rpos *at);
void ranges_copy(struct mt_ranges *dst, const struct mt_ranges *src);
void ranges_free(struct mt_ranges *s);

/* bound.c: a trace kept within a size, sequential or circular */
struct trace_bound;
struct trace_bound *bound_new(struct trace_writer *w, int fd, uint64_t max, int circular);
/* Before each trace_write: 0 when the record is not to be written. */
int bound_admit(struct trace_bound *b, const struct mt_event *ev);
/* Before trace_end: the lost records and, circular, the frames kept. */
int bound_finish(struct trace_bound *b);
uint64_t bound_lost(const struct trace_bound *b);	/* events not kept */
void bound_free(struct trace_bound *b);

/* ktrace.c: kernel allocations through tracefs (root only) */
#define KT_KMALLOC 1	/* kmalloc/kfree: heap kmalloc */
#define KT_CACHE 2	/* kmem_cache_alloc/free: heap cache:NAME */
#define KT_PAGE 4	/* mm_page_alloc/free of order >= min_order: heap page */
struct ktrace_opts {
	unsigned events;
	int min_order;
	int stacks;		/* kernel stacks (else the call site alone) */
	int buffer_kb;		/* per CPU; 0: a default */
	uint64_t start_ns;	/* CLOCK_MONOTONIC of time 0 */
};
struct ktrace;
/* NULL with err filled when tracing cannot be set up. */
struct ktrace *ktrace_open(const struct ktrace_opts *o, char *err, size_t errlen);
int ktrace_fd(const struct ktrace *k);	/* poll it for input */
/* Hands every record read so far to emit; 1 when anything was read. */
int ktrace_read(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg);
/* Without tracefs: trace_pipe text fed by the caller (tests, fuzzing). */
struct ktrace *ktrace_text(const struct ktrace_opts *o, const char *kallsyms);
/* root holds events/ (format files) and per_cpu/cpuN/trace_pipe_raw pages. */
struct ktrace *ktrace_raw_files(const struct ktrace_opts *o, const char *kallsyms,
    const char *root);
void ktrace_feed(struct ktrace *k, const char *data, size_t n,
    void (*emit)(struct mt_event *, void *), void *arg);
uint64_t ktrace_lost(const struct ktrace *k);
uint64_t ktrace_unresolved(const struct ktrace *k);
/* Stops tracing, hands over what is left, leaves tracefs as it was. */
void ktrace_close(struct ktrace *k, void (*emit)(struct mt_event *, void *), void *arg);
void ktrace_free(struct ktrace *k);

struct trace_reader;
/* data/len: bytes already read from fd (the sniffed magic, say) */
struct trace_reader *trace_reader_new(int fd, const void *data, size_t len);
/*
 * Next record: 1, 0 at a clean end, -1 on damage (trace_reader_error()
 * says what; everything before it was returned).
 */
int trace_read(struct trace_reader *r, struct mt_event *ev);
const char *trace_reader_error(const struct trace_reader *r);
uint64_t trace_reader_frames(const struct trace_reader *r);
void trace_reader_free(struct trace_reader *r);

/* reader.c: one event reader for every program: text or .mtr, path or stdin */
struct mt_reader;
struct mt_reader *reader_open(const char *path);	/* NULL or "-": stdin; NULL return: warned */
/* An open descriptor, closed by reader_close(); messages name it name. */
struct mt_reader *reader_open_fd(int fd, const char *name);
/* Standard input copied to fd: 0, or 1 when it is no input, 2 on an I/O error (said). */
int reader_spool(int fd);
/* The named inputs that cannot be read, said once each and dropped from
   argv; 0 when some were named and none is left. */
int reader_inputs(int *argc, char **argv);
/*
 * Next record: 1 with ev filled, 0 at the end.  A bad text line is
 * warned about (prog: file:line: what 'token'), counted and skipped;
 * damage in a binary trace is warned about and ends the input.
 * The record stays valid until the next call.
 */
int reader_next(struct mt_reader *r, struct mt_event *ev);
/*
 * Appends the record as a text line with its newline to o: the line as it
 * came, or for a trace formatted from the caller's event as reader_next()
 * left it (change it first and the line changes too).
 */
void reader_write(struct mt_reader *r, struct mt_out *o);
/* Lines that are not records come back as MT_UNKNOWN, unwarned (logs). */
void reader_keep_bad(struct mt_reader *r);
void reader_quiet(struct mt_reader *r);	/* a first pass: bad input not said */
const char *reader_name(const struct mt_reader *r);
int reader_binary(const struct mt_reader *r);	/* 1: a .mtr stream */
uint64_t reader_lineno(const struct mt_reader *r);
int reader_close(struct mt_reader *r);	/* 0, or 1 if anything was wrong */

/* sink.c: a filter's output, event text or (binary) a .mtr stream */
struct sink_queue;
struct mt_sink {
	struct mt_out out;
	struct trace_writer *w;
	struct sink_queue *q;	/* sink_thread(): the records waiting for it */
};
void sink_init(struct mt_sink *s, int fd, int binary);
/*
 * From now on the records are formatted or encoded, compressed and
 * written by a thread of the sink's own, in their order, while the
 * caller makes the next ones.  0, or -1 (no thread: the caller does it).
 */
int sink_thread(struct mt_sink *s);
void sink_put(struct mt_sink *s, const struct mt_event *ev);	/* a record made */
/* A record read from r, unchanged (its own line when text). */
void sink_pass(struct mt_sink *s, struct mt_reader *r, const struct mt_event *ev);
/* The pairer's lifetime, class cls (0-3), as a life record. */
void sink_life(struct mt_sink *s, const struct mt_life *l, unsigned cls, int64_t impact);
int sink_finish(struct mt_sink *s);	/* 0, or 1 with the error said */

/* stacks.c: a stream's processes, stacks and symbols (links libpcre2-8) */
struct mt_frame {
	const char *function, *file, *module;	/* file without its :line */
	const char *line;	/* file:line as the sym line has it */
};
struct mt_stackinfo {
	uint32_t n;		/* frames, innermost first, inlines included */
	uint32_t alloc_frame;	/* the first frame outside the allocation API */
	int cut;		/* cut at the recorder's depth: callers missing */
	/*
	 * With dict_keep_ips(), the stack line's addresses, and for each its
	 * first frame: address k has frames first[k] to first[k + 1] - 1
	 * (several when inlined); else NULL.
	 */
	uint32_t nips;
	const uint64_t *ips;
	const uint32_t *first;	/* nips + 1 of them */
	const struct mt_frame *frame[];	/* each held once by the dictionary */
};
struct mt_dict;
struct mt_dict *dict_new(const char *skip_regex);	/* more API frames, or NULL */
/* Stacks resolved from now on keep their addresses (pprof: 12 bytes an address). */
void dict_keep_ips(struct mt_dict *d);
/* 1: a proc, stack or sym, kept; 2: a stack that redefines an id */
int dict_add(struct mt_dict *d, const struct mt_event *ev);
const char *dict_process(struct mt_dict *d, int64_t pid);	/* base name, or "?" */
const char *proc_name(const char *path, size_t len, size_t *n);
const char *dict_task(struct mt_dict *d, int64_t tid);	/* a #task comm, or NULL */
const char *mt_human(int64_t v, char *buf, size_t n);	/* units.c: "1.5 MiB" */
/* names.c: a function's name for a person: templates as <>, cut to w bytes */
char *name_shortened(const char *s);
char *name_cut(const char *s, size_t w);
void name_middle_cut(const char *s, size_t w, char *out);	/* out: w + 1 bytes */
/* startup.c: the outermost frames of a stack that are the runtime's start-up */
uint32_t startup_frames(const struct mt_stackinfo *si);
/* groupkey.c: key values mt-group and mt-report both show */
void stack_frame_add(char **p, size_t *len, size_t *cap, const char *f);
void stack_folded(const struct mt_stackinfo *si, uint32_t startup, char **p, size_t *len,
    size_t *cap);
size_t size_class(uint64_t size, char *buf, size_t n);
size_t task_name(struct mt_dict *d, int64_t pid, int64_t tid, char *buf, size_t n);

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
/* The stack of an id, never NULL; valid as long as the dictionary. */
struct mt_stackinfo *dict_stack(struct mt_dict *d, uint64_t id);
/* The string held once: equal strings, one pointer. */
const char *dict_intern(struct mt_dict *d, const char *s, size_t len);

/*
 * pair.c: allocations paired with their frees per (pid, heap, address)
 * into lifetimes, handed to emit when they end; mt-lifetime(1) says how.
 */
struct mt_life {
	uint64_t ta, tf;	/* UINT64_MAX: before recording / never freed */
	int32_t pid, tid;	/* tid < 0: unknown */
	struct mt_str heap;
	uint64_t addr, size, stack;	/* size, stack UINT64_MAX: unknown */
	const char *fate;	/* survivors: "exit" or "end"; else NULL */
	uint64_t free_stack;	/* the free's stack (mt-record -F); UINT64_MAX: none */
	int temporary;		/* freed by its thread before it allocated again */
};
struct mt_pair_stats {
	uint64_t lives, exit, live, before, doubles;
	uint64_t unseen;	/* blocks allocated again: their free was not seen */
};
struct mt_pairer;
struct mt_pairer *pairer_new(void (*emit)(const struct mt_life *, void *), void *arg);
void pairer_input(struct mt_pairer *p, struct mt_reader *r);	/* names warnings */
void pairer_alloc(struct mt_pairer *p, const struct mt_event *ev);
/* Before pairer_alloc or pairer_free of ev, some records ahead: its probe's memory. */
void pairer_prefetch(struct mt_pairer *p, const struct mt_event *ev);
void pairer_free(struct mt_pairer *p, const struct mt_event *ev);
/* A proc line at ts: an exec ends the old image. */
void pairer_proc(struct mt_pairer *p, int64_t pid, uint64_t ts);
/* pid's image ended at ts (UINT64_MAX: still running as the trace ended):
   its survivors end there, with the fate. */
void pairer_image_end(struct mt_pairer *p, int64_t pid, const char *fate, uint64_t ts);
void pairer_finish(struct mt_pairer *p);	/* the survivors at the end */
const struct mt_pair_stats *pairer_stats(const struct mt_pairer *p);
void pairer_free_all(struct mt_pairer *p);
/* pairrun.c: an input through the pairer; other records to other(). */
struct pair_hooks {
	void (*alloc)(const struct mt_event *ev, void *arg);	/* before the pairer's */
	void (*free)(const struct mt_event *ev, void *arg);	/* before the pairer's */
	void (*other)(struct mt_reader *r, struct mt_event *ev, void *arg);
	void *arg;
};
int pairer_run(struct mt_pairer *p, struct mt_reader *r, const struct pair_hooks *h);

/*
 * pprof.c: lifetimes as a gzipped profile.proto (mt-group -F pprof), for
 * go tool pprof.  Values: alloc_objects, alloc_space, inuse_objects,
 * inuse_space.  pprof_new() makes d keep its stacks' addresses.
 */
#define PPROF_VALUES 4
struct mt_pprof;
struct mt_pprof *pprof_new(struct mt_dict *d);
void pprof_event(struct mt_pprof *p, const struct mt_event *ev);	/* every record */
/* A lifetime of stack si (NULL: none), its outermost fold frames the start-up's. */
void pprof_life(struct mt_pprof *p, const struct mt_event *ev, const struct mt_stackinfo *si,
    uint32_t fold);
int pprof_write(struct mt_pprof *p, FILE *out, struct mt_sat sat[PPROF_VALUES]);
void pprof_free(struct mt_pprof *p);

/*
 * suppress.c: rules (share/mt-suppress built in, --suppress FILE) on the
 * stacks of lifetimes never freed that are no leak of the program.
 */
struct mt_suppress;
struct mt_suppress *suppress_new(void);
int suppress_parse(struct mt_suppress *s, const char *text, const char *name);	/* 1: bad, said */
int suppress_builtin(struct mt_suppress *s);
int suppress_read(struct mt_suppress *s, const char *path);
void suppress_none(struct mt_suppress *s);
void suppress_forget(struct mt_suppress *s);	/* a stack id redefined */
long suppress_match(struct mt_suppress *s, struct mt_dict *dict, uint64_t stack);
void suppress_count(struct mt_suppress *s, long rule, uint64_t bytes);
void suppress_say(const struct mt_suppress *s, struct mt_sat *sat);

/*
 * table.c: an aligned table for people; cells in characters, a column
 * that may give way (min > 0) cut in its middle with "...".
 */
struct mt_table;
struct mt_table *table_new(size_t ncols);
void table_column(struct mt_table *t, size_t c, int left, size_t gap, size_t min);
void table_hide(struct mt_table *t, size_t c);
void table_row(struct mt_table *t, const char *const cells[]);
void table_print(struct mt_table *t, size_t width);	/* and frees it */

/*
 * report_page.c: mt-report's page (share/report/, built in) around the
 * data: the template's head, json in <script id="mt-data">, its tail.
 * Write errors are the caller's to see, with ferror or fclose.
 */
void report_page_write(FILE *f, const char *json, size_t len);

#endif
