/*
 * Built twice (libframes-a.so, libframes-b.so): lib_call's code is the
 * same bytes in both but for the size of its frame, so a call made from
 * it returns to the same address in either, where the frame rules differ.
 * A module loaded where another was unloaded must not be walked by the
 * other's rules.  x86-64.
 */
#ifdef FRAMES_B
#define FRAME "0x1008"
#define CFA "4128"	/* the return address, two registers, the frame */
#else
#define FRAME "0x18"
#define CFA "48"
#endif

void lib_call(void (*cb)(int), int n);

__asm__(
	"	.text\n"
	"	.globl lib_call\n"
	"	.type lib_call, @function\n"
	"lib_call:\n"
	"	.cfi_startproc\n"
	"	push %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	push %r12\n"
	"	.cfi_def_cfa_offset 24\n"
	"	.cfi_offset %r12, -24\n"
	/* sub $FRAME, %rsp, with a 4-byte immediate whatever its size */
	"	.byte 0x48, 0x81, 0xec\n"
	"	.long " FRAME "\n"
	"	.cfi_def_cfa_offset " CFA "\n"
	"	mov %rdi, %rbx\n"
	"	mov %esi, %r12d\n"
	/* The frame filled with what no rule can take for an address. */
	"	mov %rsp, %rdi\n"
	"	.byte 0xb9\n"		/* mov $FRAME, %ecx */
	"	.long " FRAME "\n"
	"	mov $0x55, %eax\n"
	"	rep stosb\n"
	"	mov %r12d, %edi\n"
	"	call *%rbx\n"
	"	lea 1(%r12), %edi\n"
	"	call *%rbx\n"
	"	.byte 0x48, 0x81, 0xc4\n"
	"	.long " FRAME "\n"
	"	.cfi_def_cfa_offset 24\n"
	"	pop %r12\n"
	"	.cfi_def_cfa_offset 16\n"
	"	pop %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size lib_call, .-lib_call\n");
