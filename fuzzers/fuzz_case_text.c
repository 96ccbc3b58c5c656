/*
 * fuzz_case_text.c - the fuzz_case_text target, glue only: parse the bytes
 * as `.case` text; a valid case must print and re-parse to itself,
 * canonically (lctx_fuzz_case_text in harness/).
 * The engine contract (LCTX-FINDING, abort) is fuzz_glue.h's.
 */
#include "fuzz_glue.h"

LCTX_FUZZ_TARGET(lctx_fuzz_state, lctx_fuzz_case_text)
