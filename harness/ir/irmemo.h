/*
 * irmemo.h - verdicts on modules kept by what decides them.
 *
 * Owns a bounded cache of lctx_ir_judge verdicts keyed by the whole
 * expectation a module is judged against (its platforms, dispatches,
 * intended and JAX rule paths and defects, not the storage it points into)
 * and the whole module text, both compared byte for byte. The verdict is a
 * function of those two alone, and an implementation lowers the same module
 * under the same expectation for many cases of a run, so most modules of a
 * large run are judged once. The cache is direct-mapped (a slot keeps the
 * last key that hashed to it), holds keys up to LCTX_IR_MEMO_KEY_MAX bytes
 * and LCTX_IR_MEMO_SLOTS of them at most.
 */
#ifndef LCTX_HARNESS_IRMEMO_H
#define LCTX_HARNESS_IRMEMO_H

#include "irexpect.h"

#define LCTX_IR_MEMO_SLOTS 4096
#define LCTX_IR_MEMO_KEY_MAX (8u << 10)

typedef struct lctx_ir_memo lctx_ir_memo;

/// An empty cache; NULL when out of memory.
lctx_ir_memo *lctx_ir_memo_new(void);

/// Frees the cache and its keys. NULL is ignored.
void lctx_ir_memo_free(lctx_ir_memo *m);

/// As lctx_ir_judge, except that a module judged before under an equal
/// expectation gets the verdict kept then, `report` being left empty
/// (count 0, parse_ok and verified true) since nothing was checked again.
/// Returns verdict->ok.
bool lctx_ir_memo_judge(lctx_ir_memo *m, lctx_ircheck *ck, lctx_str mlir_text,
                        const lctx_ir_expect_store *store,
                        lctx_ir_report *report, lctx_ir_verdict *verdict);

/// How many lctx_ir_memo_judge calls were answered from the cache.
size_t lctx_ir_memo_hits(const lctx_ir_memo *m);

#endif
