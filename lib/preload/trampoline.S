/*
 * The shadow stack's trampoline (shadow.c): a function whose return
 * address a capture replaced returns here, and goes on where it would
 * have gone, which mt_shadow_pop takes from the shadow.  Registers are
 * kept whole: a caller compiled with -fipa-ra may keep values in
 * call-clobbered registers across a call to a function it knows.
 *
 * mt_trampoline_points: where a signal may stop it, what the stack
 * pointer lacks of its value at the trampoline's entry; after each
 * instruction, its address and that, ended by a pair of zeros.
 */
#if defined(__x86_64__) && !defined(MT_GENERIC)

#define POINT(n, below) .Ltp##n: ; \
	.pushsection .data.rel.ro ; \
	.quad .Ltp##n, below ; \
	.popsection

	.pushsection .data.rel.ro
	.p2align 3
	.globl mt_trampoline_points
	.hidden mt_trampoline_points
mt_trampoline_points:
	.popsection

	.text
	.p2align 4
	.globl mt_trampoline_start
	.hidden mt_trampoline_start
	.globl mt_trampoline
	.hidden mt_trampoline
	.globl mt_trampoline_end
	.hidden mt_trampoline_end
mt_trampoline_start:
	nop
mt_trampoline:
	POINT(0, 0)
	sub $8, %rsp		/* the slot again: the address goes there */
	POINT(1, 8)
	push %rax
	POINT(2, 16)
	push %rcx
	POINT(3, 24)
	push %rdx
	POINT(4, 32)
	push %rsi
	POINT(5, 40)
	push %rdi
	POINT(6, 48)
	push %r8
	POINT(7, 56)
	push %r9
	POINT(8, 64)
	push %r10
	POINT(9, 72)
	push %r11
	POINT(10, 80)
	lea 80(%rsp), %rdi	/* the stack pointer after the return */
	call mt_shadow_pop
	mov %rax, 72(%rsp)
	pop %r11
	POINT(11, 72)
	pop %r10
	POINT(12, 64)
	pop %r9
	POINT(13, 56)
	pop %r8
	POINT(14, 48)
	pop %rdi
	POINT(15, 40)
	pop %rsi
	POINT(16, 32)
	pop %rdx
	POINT(17, 24)
	pop %rcx
	POINT(18, 16)
	pop %rax
	POINT(19, 8)
	/* Not ret: the return stack buffer stays in step with the calls. */
	lea 8(%rsp), %rsp
	POINT(20, 0)
	jmp *-8(%rsp)
mt_trampoline_end:

	.pushsection .data.rel.ro
	.quad 0, 0
	.popsection

#endif

	.section .note.GNU-stack,"",%progbits
