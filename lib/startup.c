/*
 * startup.c: the frames a stack goes through before the program's own
 * code, which mt-group --from-main folds into one: the C runtime's above
 * main, a thread's start, Rust's lang_start and Python's interpreter up
 * to its eval loop.
 */
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "mt.h"

/* Always the runtime's. */
static const char startup_re[] =
    "^(_start|__libc_start_main(_impl|_alias_\\d+)?|__libc_start_call_main|"
    "start_thread|__?clone3?|"
    "std::rt::lang_start(_internal)?\\b.*|std::sys(_common)?::backtrace::__rust_begin_short_backtrace\\b.*|"
    "core::ops::function::FnOnce::call_once\\b.*|std::sys::.*::thread_start\\b.*|"
    "_PyEval_EvalFrameDefault|_PyEval_EvalFrame|_PyEval_Vector|PyEval_EvalCode(Ex)?|"
    "Py_RunMain|Py_BytesMain|Py_Main|pymain_\\w+|_?PyRun_\\w+|run_mod|run_eval_code_obj)"
    "(\\.\\w+)*$";
/* The runtime's when between two of those: main under lang_start, the
   calls from one Python frame to the next. */
static const char glue_re[] =
    "^(main|__rust_try|std::(panicking|panic|rt|thread|sys)::.*|"
    "<.* as core::ops::function::FnOnce<.*>>::call_once.*|core::ops::function::.*|"
    "_?Py\\w+|method_vectorcall\\w*|cfunction_\\w+|\\w*_vectorcall\\w*|slot_tp_\\w+|"
    "call_\\w+|object_vacall|builtin_\\w+)(\\.\\w+)*$";

/*
 * How many of si's outermost frames are start-up: up to the innermost
 * start-up frame reached through start-up and glue frames alone; never
 * the allocating frame or those under it.
 */
uint32_t
startup_frames(const struct mt_stackinfo *si)
{
	static struct mt_regex *startup, *glue;
	uint32_t i, fold = 0;
	const char *f;

	if (!startup) {
		startup = re_compile(startup_re);
		glue = re_compile(glue_re);
	}
	for (i = si->n; i-- > si->alloc_frame + 1;) {
		f = si->frame[i]->function;
		if (re_match(startup, f, strlen(f)))
			fold = si->n - i;
		else if (!re_match(glue, f, strlen(f)))
			break;
	}
	return fold;
}
