/*
 * stacks.c: the dictionary of a stream (process names, stacks, symbols)
 * and what a stack id stands for: its frames by name, and the allocating
 * frame, the first outside the allocation API.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt.h"

/*
 * The allocation API: frames a stack goes through before the program's,
 * so that the allocating frame is the user's own function whatever the
 * language.  One anchored branch a family; a name must be the whole
 * function (a program's make_allocator or arena_of is its own).
 *
 * C: libc's entries and inner steps, glib's, OpenSSL's, SQLite's, the
 * wrappers that die on failure (libiberty's and git's xmalloc family, as
 * GCC and git link them) and obstacks, GCC's garbage-collected heap,
 * PostgreSQL's memory contexts, and the
 * allocators jemalloc (je_ and _rjem_ prefixes, its inlined steps),
 * tcmalloc and mimalloc.  The kernel's by pattern, as its names change
 * from release to release (6.18 allocates pages in
 * __alloc_frozen_pages_noprof): the tracepoint's own frames, every
 * *_noprof (the functions memory allocation profiling wraps), and the
 * slab, page and vmalloc allocators' entries and inner steps, whatever
 * their underscores and suffixes.
 */
#define API_C \
    "^(malloc|calloc|realloc|reallocarray|free|cfree|memalign|aligned_alloc|" \
    "posix_memalign|valloc|pvalloc|mmap|mmap64|munmap|mremap|mprotect|" \
    "strdup|strndup|__strdup|__libc_\\w+|__GI___libc_\\w+|__GI___(mmap|munmap|mremap)\\w*|" \
    "__(mmap|munmap|mremap)\\w*|__GI___strn?dup|_int_(malloc|realloc|free|memalign)\\w*|" \
    "sysmalloc\\w*|_mid_memalign|tcache_init|" \
    "g_(try_)?(malloc|realloc)(0)?(_n)?|g_(try_)?(new|renew)0?|g_slice_\\w+|" \
    "g_aligned_(alloc0?|free\\w*)|g_memdup2?|g_strn?dup|g_free(_sized)?|" \
    "CRYPTO_\\w*alloc\\w*|CRYPTO_(\\w+_)?free|CRYPTO_strn?dup|CRYPTO_memdup|" \
    "sqlite3(Db)?(Malloc|Realloc)\\w*|sqlite3_(malloc|realloc)(64)?|sqlite3_free|" \
    "sqlite3Mem(Malloc|Realloc|Free)|sqlite3(Db)?Free\\w*|sqlite3DbStrN?Dup|" \
    "sqlite3PageMalloc|pcache1Alloc|mallocWithAlarm|db(MallocRaw|Realloc)Finish|" \
    "x(malloc|calloc|realloc|zalloc|strdup|strndup|memdup|memdupz|mallocz|mallocz_gently)|" \
    "_obstack_(newchunk|begin\\w*)|" \
    "palloc0?|palloc_extended|repalloc\\w*|pfree|pstrdup|pnstrdup|MemoryContextAlloc\\w*|" \
    "MemoryContextStrdup|AllocSet(Alloc|Realloc|Free)\\w*|(Generation|Slab|Bump)(Alloc|Free)\\w*|" \
    "(_rjem_)?je_(malloc|calloc|realloc|free|posix_memalign|aligned_alloc|memalign|valloc|" \
    "(arena|tcache|extent|ecache|pa|pac|large|pages|ehooks|emap|edata|base|sec|hpa|bin|" \
    "malloc|sz|prof)_\\w+)|_rjem_\\w+|" \
    "(je_)?(mallocx|rallocx|xallocx|dallocx|sdallocx|nallocx)|imalloc\\w*|iallocztm|" \
    "ialloc\\w*|irealloc\\w*|ipalloc\\w*|arena_(malloc|ralloc|palloc|dalloc)\\w*|" \
    "tcache_(alloc|dalloc)\\w*|large_(malloc|palloc|ralloc|dalloc)\\w*|extent_alloc\\w*|" \
    "os_pages_map|pages_map|malloc_default|" \
    "tc_(malloc|calloc|realloc|free|cfree|memalign|posix_memalign|valloc|pvalloc|" \
    "new|newarray|delete|deletearray)\\w*|TCMallocInternal\\w+|TCMalloc_SystemAlloc|" \
    "_mi_\\w+|mi_(\\w+_)?(malloc|zalloc|calloc|realloc|rezalloc|recalloc|reallocf|alloc|new|" \
    "free|strn?dup|expand|usable_size)\\w*|mi_(page|segment|os|arena|heap|prim|unix)_\\w+|" \
    "__traceiter_\\w+|trace_event_raw_event_\\w+|perf_trace_\\w+|\\w+_noprof|" \
    "_*k[mvz]?[mc]?alloc(_\\w+)?|_*kmem_cache_(alloc|free)\\w*|_*kv?free(_\\w+)?|" \
    "_*v[mz]?alloc(_\\w+)?|_*vfree\\w*|" \
    "_*(alloc|free)_(frozen_)?pages\\w*|_*(folio|vma)_alloc\\w*|_*folio_alloc\\w*|" \
    "_*get_page_from_freelist|_*rmqueue\\w*|_*slab_(alloc|free)\\w*|allocate_slab|" \
    "new_slab|alloc_slab_page|_*free_(frozen_)?pages\\w*|_*free_unref_\\w+)(\\.\\w+)*$"

/*
 * C++: operator new and delete, and the standard library's containers,
 * strings, smart pointers and their allocation helpers (libstdc++'s and
 * libc++'s __1), after the return type a template's name carries: the
 * user's function calling push_back is named, not vector's
 * _M_realloc_insert.  The rest of std (iostreams, locales, threads)
 * stays named: what it allocates is its own.  GCC's garbage-collected
 * heap (ggc_*alloc, C++ since GCC 4.8); tcmalloc's and Python's
 * allocators, by their namespaces and prefixes.
 */
#define API_CXX \
    "|^(operator new|operator delete).*" \
    "|^((std|__gnu_cxx)::[\\w:]+<.*?>[*&]* |((const|unsigned|signed|long|short) )*" \
    "[\\w:]+[*&]* )?" \
    "(std|__gnu_cxx)::(__cxx11::|__1::|__debug::|__cxx1998::|pmr::)?" \
    "(vector|_Vector_base|_Bvector_base|basic_string|__basic_string|__sso_string|" \
    "deque|_Deque_base|list|_List_base|forward_list|_Fwd_list_base|map|multimap|set|" \
    "multiset|_Rb_tree|unordered_(map|set|multimap|multiset)|_Hashtable|__detail|" \
    "__hash_table|__tree|__split_buffer|queue|priority_queue|stack|" \
    "__allocated_ptr|_Sp_\\w+|__shared_count|__shared_ptr|shared_ptr|__allocate_shared|" \
    "allocate_shared|make_shared|__make_shared|make_unique|unique_ptr|function|" \
    "_Function_base|_Function_handler|__function|basic_stringbuf|basic_ostringstream|" \
    "basic_istringstream|basic_stringstream|__uninitialized\\w*|uninitialized_\\w+|" \
    "__do_uninit\\w*|_Construct|construct_at|__construct_at|_Temporary_buffer|" \
    "get_temporary_buffer|__get_temporary_buffer|__new_allocator|new_allocator|" \
    "allocator|allocator_traits|__alloc_traits|__aligned_membuf|__aligned_buffer|" \
    "__libcpp_\\w+|__allocate_at_least|__pool_alloc\\w*|__mt_alloc\\w*|bitmap_allocator|" \
    "polymorphic_allocator|memory_resource|synchronized_pool_resource|" \
    "unsynchronized_pool_resource|monotonic_buffer_resource)\\b.*" \
    "|^(ggc_(internal_)?(cleared_)?alloc\\w*|ggc_realloc\\w*)(\\(.*)?$" \
    "|^(tcmalloc|\\(anonymous namespace\\)::do_(malloc|calloc|realloc|memalign|" \
    "free)\\w*)\\b.*" \
    "|^(PyMem_\\w+|_PyMem_\\w+|PyObject_Malloc|PyObject_Realloc|" \
    "_PyObject_\\w*(Malloc|Alloc)\\w*)(\\.\\w+)*$"

/*
 * Rust: the global allocator's shims (__rust_alloc, __rdl_alloc, and
 * their __rustc:: spellings since 1.88), GlobalAlloc and Allocator
 * impls, the alloc crate (Vec, String, Box, RawVec, the collections:
 * every allocation of a Vec goes through several of them), hashbrown
 * (HashMap's table) and std::collections over it, std's PathBuf and
 * OsString (a String's kin), and core's generic plumbing between them
 * and the caller (fmt, iter, closures' call_once): core never allocates
 * itself.  v0 names an inherent impl <alloc::vec::Vec<u8>>::push, a
 * trait impl <u8 as ...>::from_elem.
 * std's runtime (std::rt, std::io, std::thread) stays named.
 */
#define RUST_ALLOC "alloc::(alloc|raw_vec|vec|string|boxed|fmt|collections|rc|sync|str|" \
    "slice|borrow|ffi|vec_deque)::"
#define RUST_CORE "core::(alloc|fmt|iter|ops::function|option|result|convert|clone|array|" \
    "slice|str)::"
#define API_RUST \
    "|^(__rustc::)?(__rust_(alloc|alloc_zeroed|realloc|dealloc|alloc_error_handler|" \
    "no_alloc_shim_is_unstable)\\w*|__rdl_\\w+|__rg_\\w+)$" \
    "|^<*(" RUST_ALLOC "|" RUST_CORE "|hashbrown::|std::(collections|path|ffi)::|" \
    "std::alloc::|std::sys::(\\w+::)*alloc::)" \
    "|^<.+ as (" RUST_ALLOC "|core::alloc::)"

static const char api_default[] = API_C API_CXX API_RUST;

/*
 * The C library, the C++ runtime and the known allocators, by their
 * files' names: a frame in one of them that has no name (a stripped
 * build: module+0xOFFSET, or an address) is the API's all the same.
 */
static const char api_modules[] = "(^|/)(libc\\.so|libc-[0-9.]+\\.so|libstdc\\+\\+\\.so|"
    "libc\\+\\+(abi)?\\.so|libjemalloc\\.so|libtcmalloc(_minimal)?(_debug)?\\.so|"
    "libmimalloc(-\\w+)?\\.so)(\\.[0-9]+)*$";
static const char unnamed_fn[] = "^(.*\\+0x[0-9a-f]+|0x[0-9a-f]+|\\?\\?)$";

/*
 * An address's frames, parsed from its sym lines at its first use: a
 * compiler's 80,000 stacks name the same few thousand addresses 3
 * million times.  Stale: a sym line for it came since.
 */
struct ipframes {
	uint32_t n, stale;
	const struct mt_frame *f[];
};

struct mt_dict {
	/*
	 * id -> the stack line's ips until its first use (tagged: low bit
	 * set; uint64_t[n+1]: n with bit 63 for a stack cut at --depth, then
	 * the ips), its struct mt_stackinfo from then on.
	 */
	struct u64map stacks;
	struct u64map frames;	/* hash -> struct iframe chain: each frame held once */
	struct mt_stackinfo **retired;	/* resolved, then defined again: still */
	size_t nretired, retiredcap;	/* pointed to by what used them */
	struct u64map syms;	/* address -> "function\tfile\tmodule\n"... */
	struct u64map ipframes;	/* address -> struct ipframes, once used */
	struct u64map procs;	/* pid -> executable's base name */
	struct u64map tasks;	/* tid + 1 -> comm, from #task lines (kernel traces) */
	struct u64map strs;	/* hash -> struct istr chain: each name held once */
	struct mt_regex *api, *skip, *api_modules, *unnamed;
	int keep_ips;		/* dict_keep_ips() */
};

struct mt_dict *
dict_new(const char *skip)
{
	struct mt_dict *d = ecalloc(1, sizeof(*d));

	d->api = re_compile(api_default);
	d->api_modules = re_compile(api_modules);
	d->unnamed = re_compile(unnamed_fn);
	if (skip)
		d->skip = re_compile(skip);
	return d;
}

void
dict_keep_ips(struct mt_dict *d)
{
	d->keep_ips = 1;
}

#define STACK_CUT (UINT64_C(1) << 63)

static struct mt_stackinfo empty;	/* a stack no line defines */

/* A stack's old definition: its addresses freed, its frames kept. */
static void
stack_drop(struct mt_dict *d, void *v)
{
	if ((uintptr_t)v & 1) {
		free((void *)((uintptr_t)v & ~(uintptr_t)1));
	} else if (v) {
		d->retired = egrow(d->retired, d->nretired, &d->retiredcap, sizeof(*d->retired));
		d->retired[d->nretired++] = v;
	}
}

int
dict_add(struct mt_dict *d, const struct mt_event *ev)
{
	void **v;
	uint64_t *ips;
	const char *base;
	char *old, *s;
	size_t olen, n;
	int redefined;

	switch (ev->type) {
	case MT_PROC:
		v = u64map_get(&d->procs, (uint64_t)ev->pid, 1);
		free(*v);
		base = proc_name(ev->s1.s, ev->s1.len, &n);
		*v = estrndup(base, n);
		return 1;
	case MT_STACK:
		v = u64map_get(&d->stacks, ev->stack, 1);
		ips = emalloc((ev->nips + 1) * sizeof(*ips));
		ips[0] = ev->nips | (ev->flags & EV_TRUNCATED ? STACK_CUT : 0);
		memcpy(ips + 1, ev->ips, ev->nips * sizeof(*ips));
		redefined = *v && *v;
		stack_drop(d, *v);
		*v = (void *)((uintptr_t)ips | 1);
		return redefined ? 2 : 1;
	case MT_SYM:
		n = ev->s1.len + ev->s2.len + ev->s3.len + 4;
		v = u64map_get(&d->syms, ev->addr, 1);
		old = *v;
		olen = old ? strlen(old) : 0;
		s = erealloc(old, olen + n);
		sprintf(s + olen, "%.*s\t%.*s\t%.*s\n", (int)ev->s1.len, ev->s1.s,
		    (int)ev->s2.len, ev->s2.s, (int)ev->s3.len, ev->s3.s);
		*v = s;
		if ((v = u64map_get(&d->ipframes, ev->addr, 0)) && *v)
			((struct ipframes *)*v)->stale = 1;
		return 1;
	case MT_COMMENT:
		/* "#task\ttid\tcomm": a kernel event's task (mt-events(5)). */
		if (ev->s1.len > 6 && !memcmp(ev->s1.s, "#task\t", 6)) {
			const char *p = ev->s1.s + 6, *end = ev->s1.s + ev->s1.len;
			const char *tab = memchr(p, '\t', (size_t)(end - p));
			uint64_t tid = 0;

			if (!tab || tab == p || strspn(p, "0123456789") != (size_t)(tab - p) ||
			    tab - p > 9)
				return 0;
			for (; p < tab; p++)
				tid = tid * 10 + (uint64_t)(*p - '0');
			v = u64map_get(&d->tasks, tid + 1, 1);
			free(*v);
			*v = estrndup(tab + 1, (size_t)(end - tab - 1));
			return 1;
		}
		return 0;
	default:
		return 0;
	}
}

/* The comm of a kernel event's task, or NULL when no #task line named it. */
const char *
dict_task(struct mt_dict *d, int64_t tid)
{
	void **v = tid >= 0 ? u64map_get(&d->tasks, (uint64_t)tid + 1, 0) : NULL;

	return v ? *v : NULL;
}

/* A process's name: its executable's base name. */
const char *
proc_name(const char *path, size_t len, size_t *n)
{
	const char *base = memrchr(path, '/', len);

	base = base ? base + 1 : path;
	*n = len - (size_t)(base - path);
	return base;
}

const char *
dict_process(struct mt_dict *d, int64_t pid)
{
	void **v = u64map_get(&d->procs, (uint64_t)pid, 0);

	return v ? *v : "?";
}

/*
 * A frame's function, file or module, held once for every stack that has
 * it: a copy a frame a stack made a million stacks take 600 MB.
 */
struct istr {
	struct istr *next;
	size_t len;
	char s[];
};

const char *
dict_intern(struct mt_dict *d, const char *s, size_t len)
{
	void **v = u64map_get(&d->strs, hash_bytes(s, len) | 1, 1);
	struct istr *x;

	for (x = *v; x; x = x->next)
		if (x->len == len && !memcmp(x->s, s, len))
			return x->s;
	x = emalloc(sizeof(*x) + len + 1);
	x->len = len;
	memcpy(x->s, s, len);
	x->s[len] = '\0';
	x->next = *v;
	*v = x;
	return x->s;
}

/*
 * A frame (function, file, module), held once for every stack that has it:
 * a stack is then its frames' pointers, 8 bytes a frame.
 */
struct iframe {
	struct iframe *next;
	int api;		/* is_api(): -1 until asked */
	struct mt_frame f;
};

static const struct mt_frame *
frame_of(struct mt_dict *d, const char *fn, size_t fnlen, const char *line, size_t linelen,
    size_t filelen, const char *mod, size_t modlen)
{
	struct mt_frame f = { dict_intern(d, fn, fnlen), dict_intern(d, line, filelen),
	    dict_intern(d, mod, modlen), dict_intern(d, line, linelen) };
	void **v = u64map_get(&d->frames, hash_bytes(&f, sizeof(f)) | 1, 1);
	struct iframe *x;

	for (x = *v; x; x = x->next)
		if (!memcmp(&x->f, &f, sizeof(f)))
			return &x->f;
	x = emalloc(sizeof(*x));
	x->f = f;
	x->api = -1;
	x->next = *v;
	*v = x;
	return &x->f;
}

/* An address's frames: its sym lines', one a line, or the bare address. */
static const char *
sym_text(struct mt_dict *d, uint64_t ip, char *buf, size_t size)
{
	void **sv = u64map_get(&d->syms, ip, 0);

	if (sv && *sv)
		return *sv;
	snprintf(buf, size, "0x%" PRIx64, ip);
	return buf;
}

const char *
dict_sym(struct mt_dict *d, uint64_t addr)
{
	void **sv = u64map_get(&d->syms, addr, 0);

	return sv ? *sv : NULL;
}

static const struct ipframes *
ip_frames(struct mt_dict *d, uint64_t ip)
{
	void **v = u64map_get(&d->ipframes, ip, 1);
	struct ipframes *x = *v;
	char buf[64];
	const char *p, *e, *t1, *t2, *text;
	size_t n;

	if (x && !x->stale)
		return x;
	free(x);
	text = sym_text(d, ip, buf, sizeof(buf));
	/* Inlined frames make an address several: count them first. */
	for (p = text, n = 0; *p; p = *e ? e + 1 : e, n++)
		e = p + strcspn(p, "\n");
	x = emalloc(sizeof(*x) + n * sizeof(x->f[0]));
	x->n = 0;
	x->stale = 0;
	/* One frame a line; a line without tabs is a bare address. */
	for (p = text; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "\n");
		t1 = memchr(p, '\t', (size_t)(e - p));
		t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(e - t1 - 1)) : NULL;
		if (t1 && t2) {
			const char *colon = t2;
			while (colon > t1 + 1 && colon[-1] != ':')
				colon--;
			x->f[x->n++] = frame_of(d, p, (size_t)(t1 - p), t1 + 1,
			    (size_t)(t2 - t1 - 1),
			    (size_t)((colon > t1 + 1 ? colon - 1 : t2) - t1 - 1), t2 + 1,
			    (size_t)(e - t2 - 1));
		} else {
			x->f[x->n++] = frame_of(d, p, (size_t)(e - p), "-", 1, 1, "-", 1);
		}
	}
	return *v = x;
}

/* Whether a frame is the allocation API's: asked once a frame. */
static int
is_api(const struct mt_dict *d, const struct mt_frame *f)
{
	struct iframe *x = (struct iframe *)(uintptr_t)((const char *)f - offsetof(struct iframe, f));
	const char *fn = f->function;

	if (x->api < 0)
		x->api = re_match(d->api, fn, strlen(fn)) ||
		    (d->skip && re_match(d->skip, fn, strlen(fn))) ||
		    (re_match(d->unnamed, fn, strlen(fn)) &&
		    re_match(d->api_modules, f->module, strlen(f->module)));
	return x->api;
}

/* The stack of an id, resolved at its first use; never NULL. */
struct mt_stackinfo *
dict_stack(struct mt_dict *d, uint64_t id)
{
	void **v = u64map_get(&d->stacks, id, 0);
	const struct ipframes *few[128], **xs;
	struct mt_stackinfo *si;
	uint64_t *ips, nips, *keep;
	uint32_t *first;
	size_t i, n;

	if (!v)
		return &empty;
	if (!((uintptr_t)*v & 1))
		return *v;
	ips = (uint64_t *)((uintptr_t)*v & ~(uintptr_t)1);
	nips = ips[0] & ~STACK_CUT;
	xs = nips <= sizeof(few) / sizeof(few[0]) ? few : emalloc(nips * sizeof(*xs));
	for (i = n = 0; i < nips; i++)
		n += (xs[i] = ip_frames(d, ips[i + 1]))->n;
	si = emalloc(sizeof(*si) + n * sizeof(si->frame[0]));
	si->n = 0;
	si->cut = !!(ips[0] & STACK_CUT);
	si->nips = 0;
	si->ips = keep = NULL;
	si->first = first = NULL;
	if (d->keep_ips) {
		/* One block: the addresses, then where each one's frames begin. */
		keep = emalloc(nips * sizeof(*keep) + (nips + 1) * sizeof(*first));
		memcpy(keep, ips + 1, nips * sizeof(*keep));
		first = (uint32_t *)(keep + nips);
		si->nips = (uint32_t)nips;
		si->ips = keep;
		si->first = first;
	}
	for (i = 0; i < nips; i++) {
		if (first)
			first[i] = si->n;
		memcpy(&si->frame[si->n], xs[i]->f, xs[i]->n * sizeof(xs[i]->f[0]));
		si->n += xs[i]->n;
	}
	if (first)
		first[nips] = si->n;
	if (xs != few)
		free(xs);
	free(ips);
	*v = si;
	for (si->alloc_frame = 0; si->alloc_frame < si->n &&
	    is_api(d, si->frame[si->alloc_frame]); si->alloc_frame++)
		;
	if (si->alloc_frame == si->n && si->n)
		si->alloc_frame = si->n - 1;
	return si;
}

/*
 * A stack's frame outside the allocation API, as dict_stack's
 * alloc_frame, without resolving the whole stack: most of a deep stack's
 * frames lie past it.  NULL for an empty or unknown stack.
 */
const struct mt_frame *
dict_alloc_frame(struct mt_dict *d, uint64_t id)
{
	void **v = u64map_get(&d->stacks, id, 0);
	const struct mt_stackinfo *si;
	const struct ipframes *x;
	const struct mt_frame *last = NULL;
	const uint64_t *ips;
	uint64_t i, nips;
	uint32_t j;

	if (!v)
		return NULL;
	if (!((uintptr_t)*v & 1)) {
		si = *v;
		return si->n ? si->frame[si->alloc_frame] : NULL;
	}
	ips = (const uint64_t *)((uintptr_t)*v & ~(uintptr_t)1);
	nips = ips[0] & ~STACK_CUT;
	for (i = 0; i < nips; i++) {
		x = ip_frames(d, ips[i + 1]);
		for (j = 0; j < x->n; j++) {
			if (!is_api(d, x->f[j]))
				return x->f[j];
			last = x->f[j];
		}
	}
	return last;
}
