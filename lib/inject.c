/*
 * mt-record -p: loading libmt-preload.so into a running process, and
 * calling its mt_attach() there.
 *
 * One thread of the process is stopped (ptrace) where it holds neither
 * the loader's lock nor an allocator's: in code of its own, or blocked
 * in a system call of libc's that waits (read, poll, nanosleep ...), not
 * in ld.so, libc's other code or an allocator's.  A small stub is
 * written into the unused end of the last page of a module's code (a
 * private copy of that page: nothing else ever runs there), the
 * thread's registers onto its stack below the red zone, and the thread
 * is let go at the stub, no longer traced: the stub saves the vector
 * state, calls dlopen, dlsym and mt_attach, puts every register back and
 * jumps to where the thread was, a system call that was interrupted
 * restarted as the kernel would have.  So the process is stopped for
 * a few system calls of ours, never left stopped or half changed: if
 * mt-record dies before the registers are set, the thread goes on as it
 * was; after, it runs the stub and goes on as it was.
 */

#include <cpuid.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mt.h"
#include "procfs.h"

#if defined(__x86_64__)

/*
 * The stub, position-independent: copied, not run here.  On entry rbx
 * is the 64-byte-aligned XSAVE area, r12 the library's path, r13
 * "mt_attach", r14 its argument, r15 the saved registers in the order
 * popped; its data after the code says where dlopen and dlsym are and
 * where the thread's rsp and rip were.
 */
__asm__(
	".pushsection .rodata\n"
	".balign 16\n"
	".globl mt_stub_code, mt_stub_dlopen, mt_stub_end\n"
	".hidden mt_stub_code, mt_stub_dlopen, mt_stub_end\n"
	"mt_stub_code:\n"
	"	mov $-1, %eax\n"
	"	mov $-1, %edx\n"
	"	xsave64 (%rbx)\n"
	"	mov %r12, %rdi\n"
	"	mov $2, %esi\n"		/* RTLD_NOW */
	"	call *mt_stub_dlopen(%rip)\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	mov %rax, %rdi\n"
	"	mov %r13, %rsi\n"
	"	call *mt_stub_dlsym(%rip)\n"
	"	test %rax, %rax\n"
	"	jz 1f\n"
	"	mov %r14, %rdi\n"
	"	call *%rax\n"
	"1:	mov $-1, %eax\n"
	"	mov $-1, %edx\n"
	"	xrstor64 (%rbx)\n"
	"	mov %r15, %rsp\n"
	"	pop %rax\n	pop %rbx\n	pop %rcx\n	pop %rdx\n"
	"	pop %rsi\n	pop %rdi\n	pop %rbp\n	pop %r8\n"
	"	pop %r9\n	pop %r10\n	pop %r11\n	pop %r12\n"
	"	pop %r13\n	pop %r14\n	pop %r15\n"
	"	popfq\n"
	"	mov mt_stub_rsp(%rip), %rsp\n"
	"	jmp *mt_stub_rip(%rip)\n"
	"	.balign 8\n"
	"mt_stub_dlopen: .quad 0\n"
	"mt_stub_dlsym: .quad 0\n"
	"mt_stub_rsp: .quad 0\n"
	"mt_stub_rip: .quad 0\n"
	"mt_stub_end:\n"
	".popsection\n");
extern const char mt_stub_code[], mt_stub_dlopen[], mt_stub_end[];
#define STUB_LEN ((size_t)(mt_stub_end - mt_stub_code))
#define STUB_DATA ((size_t)(mt_stub_dlopen - mt_stub_code))

#define RED_ZONE 128
#define UNSAFE_MAX 16
#define TRY_NS 3000000000ull

struct target {
	pid_t pid;
	char root[64];			/* /proc/PID/root */
	struct { uintptr_t lo, hi; } unsafe[UNSAFE_MAX];
	int nunsafe;
	char libc[PATH_MAX];
	uintptr_t libc_at0;		/* where libc's offset 0 is mapped */
	uintptr_t stub_at;
	uint64_t dlopen, dlsym;
};

static int
say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int
say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int
open_in(const struct target *t, const char *path)
{
	char full[PATH_MAX + 64];

	snprintf(full, sizeof(full), "%s%s", t->root, path);
	return open(full, O_RDONLY | O_CLOEXEC);
}

static int
read_ehdr(int fd, Elf64_Ehdr *eh)
{
	return pread(fd, eh, sizeof(*eh), 0) == (ssize_t)sizeof(*eh) &&
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh->e_phentsize == sizeof(Elf64_Phdr) && eh->e_shentsize == sizeof(Elf64_Shdr) &&
	    eh->e_phnum < 256 && eh->e_shnum < 65000 ? 0 : -1;
}

/* The value of a defined dynamic symbol, 0 when none. */
static uint64_t
elf_sym(int fd, const char *name)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL, *ds = NULL;
	Elf64_Sym sym;
	char *str = NULL;
	uint64_t v = 0, i;
	size_t n = strlen(name);
	int k;

	if (read_ehdr(fd, &eh) < 0 || !(sh = calloc(eh.e_shnum, sizeof(*sh))) ||
	    pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) !=
	    (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto out;
	for (k = 0; k < eh.e_shnum; k++)
		if (sh[k].sh_type == SHT_DYNSYM && sh[k].sh_link < eh.e_shnum)
			ds = &sh[k];
	if (!ds || sh[ds->sh_link].sh_size > (64u << 20) ||
	    !(str = malloc(sh[ds->sh_link].sh_size + 1)) ||
	    pread(fd, str, sh[ds->sh_link].sh_size, (off_t)sh[ds->sh_link].sh_offset) !=
	    (ssize_t)sh[ds->sh_link].sh_size)
		goto out;
	str[sh[ds->sh_link].sh_size] = '\0';
	for (i = 0; i < ds->sh_size / sizeof(sym); i++) {
		if (pread(fd, &sym, sizeof(sym), (off_t)(ds->sh_offset + i * sizeof(sym))) !=
		    (ssize_t)sizeof(sym))
			break;
		if (sym.st_shndx != SHN_UNDEF && sym.st_name < sh[ds->sh_link].sh_size &&
		    ELF64_ST_TYPE(sym.st_info) == STT_FUNC &&
		    strncmp(str + sym.st_name, name, n + 1) == 0) {
			v = sym.st_value;
			break;
		}
	}
out:
	free(sh);
	free(str);
	return v;
}

/*
 * The unused bytes after a module's code in its last page, mapped
 * [lo, hi) from file offset off: their address, or 0 when fewer than
 * need.
 */
static uintptr_t
code_tail(int fd, uintptr_t lo, uintptr_t hi, uint64_t off, size_t need)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	uintptr_t end;
	int k;

	if (read_ehdr(fd, &eh) < 0)
		return 0;
	for (k = 0; k < eh.e_phnum; k++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + k * sizeof(ph))) != (ssize_t)sizeof(ph))
			return 0;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    ph.p_offset + ph.p_filesz <= off || ph.p_offset + ph.p_filesz > off + (hi - lo))
			continue;
		end = (lo + (ph.p_offset + ph.p_filesz - off) + 15) & ~(uintptr_t)15;
		return end + need <= hi ? end : 0;
	}
	return 0;
}

/* The first loadable segment's address, page-aligned: libc's bias. */
static uint64_t
first_load(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int k;

	if (read_ehdr(fd, &eh) < 0)
		return 0;
	for (k = 0; k < eh.e_phnum; k++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + k * sizeof(ph))) == (ssize_t)sizeof(ph) &&
		    ph.p_type == PT_LOAD)
			return ph.p_vaddr & ~(uint64_t)4095;
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void
add_unsafe(struct target *t, uintptr_t lo, uintptr_t hi)
{
	int i;

	for (i = 0; i < t->nunsafe; i++)
		if (lo == t->unsafe[i].hi || hi == t->unsafe[i].lo) {
			t->unsafe[i].lo = lo < t->unsafe[i].lo ? lo : t->unsafe[i].lo;
			t->unsafe[i].hi = hi > t->unsafe[i].hi ? hi : t->unsafe[i].hi;
			return;
		}
	if (t->nunsafe < UNSAFE_MAX) {
		t->unsafe[t->nunsafe].lo = lo;
		t->unsafe[t->nunsafe++].hi = hi;
	}
}

static int not_permitted(const struct target *t, char *why, size_t wlen, int e);

/* What /proc/PID/maps says: libc, the unsafe code, room for the stub. */
static int
read_maps(struct target *t, char *why, size_t wlen)
{
	char path[64], line[PATH_MAX + 128];
	unsigned long lo, hi, off;
	struct procmap m;
	const char *file;
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)t->pid);
	if (!(f = fopen(path, "re")))
		return errno == EACCES || errno == EPERM ? not_permitted(t, why, wlen, errno) :
		    say(why, wlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (procmap_parse(line, &m) < 0)
			continue;
		lo = m.lo, hi = m.hi, off = m.off, file = m.path;
		if (*file != '/')
			continue;
		const char *b = base_name(file);
		if (strstr(b, "libmt-preload")) {
			fclose(f);
			return say(why, wlen, "%s is loaded in it already: it is recorded by mt-record, "
			    "or was attached to before (a process is attached to once)", b);
		}
		if (strncmp(b, "libc.so", 7) == 0 || strncmp(b, "libc-", 5) == 0) {
			snprintf(t->libc, sizeof(t->libc), "%s", file);
			if (off == 0)
				t->libc_at0 = lo;
		}
		if (m.perms[2] != 'x')
			continue;
		/* Code that may hold the loader's or an allocator's lock. */
		if (strncmp(b, "libc.so", 7) == 0 || strncmp(b, "libc-", 5) == 0 ||
		    strncmp(b, "ld-linux", 8) == 0 || strncmp(b, "ld-2.", 5) == 0 ||
		    strstr(b, "malloc"))
			add_unsafe(t, lo, hi);
		if (!t->stub_at && (fd = open_in(t, file)) >= 0) {
			t->stub_at = code_tail(fd, lo, hi, off, STUB_LEN);
			close(fd);
		}
	}
	fclose(f);
	if (!t->libc[0] || !t->libc_at0)
		return say(why, wlen, "it has no libc.so mapped (a static binary?)");
	if (!t->stub_at)
		return say(why, wlen, "no module of it has %zu bytes free after its code", STUB_LEN);
	return 0;
}

static int
find_loader(struct target *t, char *why, size_t wlen)
{
	int fd = open_in(t, t->libc);
	uint64_t bias;

	if (fd < 0)
		return say(why, wlen, "%s: %s", t->libc, strerror(errno));
	bias = t->libc_at0 - first_load(fd);
	t->dlopen = elf_sym(fd, "dlopen");
	t->dlsym = elf_sym(fd, "dlsym");
	close(fd);
	if (!t->dlopen || !t->dlsym)
		return say(why, wlen, "%s has no dlopen (glibc 2.34 or later is needed)", t->libc);
	t->dlopen += bias;
	t->dlsym += bias;
	return 0;
}

/*
 * The library as the process would open it: at the same path in its
 * root (not so in a container), and readable by its user, or its
 * dlopen fails and we would only wait.
 */
static int
library_reachable(const struct target *t, const char *lib, char *why, size_t wlen)
{
	char path[PATH_MAX + 64], line[256];
	struct stat ours, theirs;
	unsigned long uid = 0, gid = 0, u[4];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", t->root, lib);
	if (stat(lib, &ours) < 0 || stat(path, &theirs) < 0 ||
	    ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
		return say(why, wlen, "%s is not there in its root (another mount namespace: a container?)", lib);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)t->pid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) == 4)
			uid = u[1];
		else if (sscanf(line, "Gid: %lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) == 4)
			gid = u[1];
	}
	fclose(f);
	/* Its own bits only: a directory on the way may still shut it out. */
	if (uid != 0 && !(theirs.st_mode & S_IROTH) &&
	    !(theirs.st_uid == uid && (theirs.st_mode & S_IRUSR)) &&
	    !(theirs.st_gid == gid && (theirs.st_mode & S_IRGRP)))
		return say(why, wlen, "%s is not readable by its user (uid %lu)", lib, uid);
	return 0;
}

/* Blocked in one of these, in libc, a thread holds no lock of ours to fear. */
static int
waiting_call(long nr)
{
	switch (nr) {
	case SYS_read: case SYS_write: case SYS_readv: case SYS_writev:
	case SYS_poll: case SYS_ppoll: case SYS_select: case SYS_pselect6:
	case SYS_epoll_wait: case SYS_epoll_pwait: case SYS_pause:
	case SYS_nanosleep: case SYS_clock_nanosleep: case SYS_wait4: case SYS_waitid:
	case SYS_accept: case SYS_accept4: case SYS_recvfrom: case SYS_recvmsg:
	case SYS_sendto: case SYS_sendmsg: case SYS_connect:
	case SYS_rt_sigsuspend: case SYS_rt_sigtimedwait:
		return 1;
	}
	return 0;
}

static int
safe_point(const struct target *t, const struct user_regs_struct *r)
{
	int i, inside = 0;

	for (i = 0; i < t->nunsafe; i++)
		if (r->rip >= t->unsafe[i].lo && r->rip < t->unsafe[i].hi)
			inside = 1;
	if (!inside)
		return 1;
	/* In a system call: orig_rax its number. */
	return (long long)r->orig_rax >= 0 && waiting_call((long)r->orig_rax);
}

/*
 * The registers as the thread would go on with them: a system call the
 * stop interrupted is made again, as the kernel would on its way out.
 */
static void
as_restarted(struct user_regs_struct *r)
{
	long long ret = (long long)r->rax;

	if ((long long)r->orig_rax < 0)
		return;
	if (ret == -512 || ret == -513 || ret == -514) {	/* -ERESTARTSYS, NOINTR, NOHAND */
		r->rax = r->orig_rax;
		r->rip -= 2;
	} else if (ret == -516) {		/* -ERESTART_RESTARTBLOCK */
		r->rax = SYS_restart_syscall;
		r->rip -= 2;
	}
}

static size_t
xsave_size(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d) || b < 576)
		return 4096;
	return ((size_t)b + 63) & ~(size_t)63;
}

static int
not_permitted(const struct target *t, char *why, size_t wlen, int e)
{
	char path[64];
	struct stat st;
	int scope = -1;
	FILE *f;

	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re"))) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = -1;
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)t->pid);
	if (stat(path, &st) == 0 && st.st_uid != geteuid() && geteuid() != 0)
		return say(why, wlen, "not permitted: it belongs to uid %u, and we are not root",
		    (unsigned)st.st_uid);
	if (scope >= 1)
		return say(why, wlen, "not permitted: kernel.yama.ptrace_scope is %d "
		    "(%s); run as root, or with CAP_SYS_PTRACE", scope,
		    scope == 1 ? "only a parent may trace" : scope == 2 ? "only root may trace" :
		    "no process may trace");
	return say(why, wlen, "not permitted: %s (no CAP_SYS_PTRACE, or the process is not dumpable)",
	    strerror(e));
}


/* Stops tid: 1 stopped (traced), 0 gone or let go, -1 not permitted. */
static int
stop_thread(pid_t tid, int *e)
{
	int st;

	if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0) {
		*e = errno;
		return errno == EPERM || errno == EACCES ? -1 : 0;
	}
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0) {
		ptrace(PTRACE_DETACH, tid, 0, 0);
		return 0;
	}
	for (;;) {
		if (waitpid(tid, &st, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (!WIFSTOPPED(st))
			return 0;	/* gone */
		if (st >> 16 == PTRACE_EVENT_STOP)
			break;
		/* A signal on its way: let it go on, with it. */
		ptrace(PTRACE_DETACH, tid, 0, WSTOPSIG(st));
		return 0;
	}
	if (WSTOPSIG(st) != SIGTRAP) {
		/* A group stop: the process is stopped (SIGSTOP, Ctrl-Z). */
		ptrace(PTRACE_DETACH, tid, 0, 0);
		*e = ESRCH;
		return 2;
	}
	return 1;
}

/* The stub, the saved registers and the strings, written; the thread sent. */
static int
send_thread(struct target *t, int mem, pid_t tid, struct user_regs_struct *r,
    const char *lib, const char *args, size_t alen, char *why, size_t wlen)
{
	static const char sym[] = "mt_attach";
	size_t xs = xsave_size(), llen = strlen(lib) + 1, total, i;
	struct user_regs_struct go = *r;
	uint64_t saved[16], data[4];
	uintptr_t top, area, strs, blk, rsp;
	char *buf;

	as_restarted(r);
	top = (r->rsp - RED_ZONE - 256) & ~(uintptr_t)63;
	area = (top - xs) & ~(uintptr_t)63;
	strs = (area - llen - sizeof(sym) - alen) & ~(uintptr_t)15;
	blk = (strs - sizeof(saved)) & ~(uintptr_t)15;
	rsp = blk - 64;
	total = top - blk;
	if (!(buf = calloc(1, total)))
		return say(why, wlen, "out of memory");
	saved[0] = r->rax; saved[1] = r->rbx; saved[2] = r->rcx; saved[3] = r->rdx;
	saved[4] = r->rsi; saved[5] = r->rdi; saved[6] = r->rbp; saved[7] = r->r8;
	saved[8] = r->r9; saved[9] = r->r10; saved[10] = r->r11; saved[11] = r->r12;
	saved[12] = r->r13; saved[13] = r->r14; saved[14] = r->r15; saved[15] = r->eflags;
	memcpy(buf, saved, sizeof(saved));
	memcpy(buf + (strs - blk), lib, llen);
	memcpy(buf + (strs - blk) + llen, sym, sizeof(sym));
	memcpy(buf + (strs - blk) + llen + sizeof(sym), args, alen);
	/* buf from area on stays zero: XRSTOR wants the header's zeros. */
	data[0] = t->dlopen;
	data[1] = t->dlsym;
	data[2] = r->rsp;
	data[3] = r->rip;
	i = (size_t)pwrite(mem, buf, total, (off_t)blk);
	free(buf);
	if (i != total ||
	    pwrite(mem, mt_stub_code, STUB_DATA, (off_t)t->stub_at) != (ssize_t)STUB_DATA ||
	    pwrite(mem, data, sizeof(data), (off_t)(t->stub_at + STUB_DATA)) != (ssize_t)sizeof(data))
		return say(why, wlen, "writing its memory: %s", strerror(errno));
	go.rip = t->stub_at;
	go.rsp = rsp;
	go.rbx = area;
	go.r12 = strs;
	go.r13 = strs + llen;
	go.r14 = strs + llen + sizeof(sym);
	go.r15 = blk;
	go.rax = 0;
	go.orig_rax = (unsigned long long)-1;	/* no restart of the call it was in */
	if (ptrace(PTRACE_SETREGS, tid, 0, &go) < 0)
		return say(why, wlen, "setting thread %d's registers: %s", (int)tid, strerror(errno));
	return 0;
}

int
mt_inject(pid_t pid, const char *lib, const char *args, size_t alen, char *why, size_t wlen)
{
	struct target t = { .pid = pid };
	struct user_regs_struct r;
	char path[64], line[256];
	uint64_t until;
	pid_t tid;
	DIR *d;
	struct dirent *de;
	FILE *f;
	int mem, e = 0, s, sent = -1;
	long tracer = 0;

	why[0] = '\0';
	snprintf(t.root, sizeof(t.root), "/proc/%d/root", (int)pid);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(f = fopen(path, "re")))
		return say(why, wlen, "no such process");
	while (fgets(line, sizeof(line), f)) {
		unsigned long u[4];
		if (sscanf(line, "TracerPid: %ld", &tracer) == 1 && tracer) {
			fclose(f);
			return say(why, wlen, "it is already traced by pid %ld (a debugger?)", tracer);
		}
		if ((sscanf(line, "Uid: %lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) == 4 ||
		    sscanf(line, "Gid: %lu %lu %lu %lu", &u[0], &u[1], &u[2], &u[3]) == 4) &&
		    (u[0] != u[1] || u[0] != u[2])) {
			fclose(f);
			return say(why, wlen, "it runs set-user-ID or set-group-ID (real and effective ids differ)");
		}
		if (strncmp(line, "State:", 6) == 0 && strchr(line, 'T')) {
			fclose(f);
			return say(why, wlen, "it is stopped");
		}
	}
	fclose(f);
	if (read_maps(&t, why, wlen) < 0 || find_loader(&t, why, wlen) < 0 ||
	    library_reachable(&t, lib, why, wlen) < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	if ((mem = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return errno == EACCES || errno == EPERM ? not_permitted(&t, why, wlen, errno) :
		    say(why, wlen, "%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	until = mt_monotonic_ns() + TRY_NS;
	while (sent < 0 && mt_monotonic_ns() < until) {
		if (!(d = opendir(path))) {
			close(mem);
			return say(why, wlen, "no such process");
		}
		while (sent < 0 && (de = readdir(d))) {
			if ((tid = (pid_t)atoi(de->d_name)) <= 0)
				continue;
			if ((s = stop_thread(tid, &e)) < 0) {
				closedir(d);
				close(mem);
				return not_permitted(&t, why, wlen, e);
			}
			if (s == 2) {
				closedir(d);
				close(mem);
				return say(why, wlen, "it is stopped");
			}
			if (s == 0)
				continue;
			if (ptrace(PTRACE_GETREGS, tid, 0, &r) == 0 && safe_point(&t, &r))
				sent = send_thread(&t, mem, tid, &r, lib, args, alen, why, wlen);
			ptrace(PTRACE_DETACH, tid, 0, 0);
			if (sent < 0 && why[0]) {
				closedir(d);
				close(mem);
				return -1;
			}
		}
		closedir(d);
		if (sent < 0) {
			struct timespec nap = { 0, 2000000 };
			nanosleep(&nap, NULL);
		}
	}
	close(mem);
	if (sent < 0)
		return say(why, wlen, "no thread of it was at a safe point in %llu s "
		    "(each inside libc, the loader or an allocator)",
		    (unsigned long long)(TRY_NS / 1000000000u));
	return 0;
}

#else

int
mt_inject(pid_t pid, const char *lib, const char *args, size_t alen, char *why, size_t wlen)
{
	(void)pid; (void)lib; (void)args; (void)alen;
	snprintf(why, wlen, "attaching is only made for x86-64");
	return -1;
}

#endif
