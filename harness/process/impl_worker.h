/*
 * impl_worker.h - the plugin worker's records and the memory it shares
 * with lctx: what impl_worker.c (the worker, in the child) and
 * impl_plugin.c (lctx's side) agree on. Records are in native endianness
 * (same program, same machine):
 *   request: u32 size (| CAREFUL) | u32 case number | size bytes of the
 *            case (lctx_case_pack), or
 *            u32 size | IN_SHARED (| CAREFUL) | u32 case number | u32 its
 *            offset in the request area
 *   info:    u32 INFO_MAGIC | u32 status(0 ok) | text name | text version |
 *            u32 operations (status != 0: text error)
 *   result:  u32 RESULT_MAGIC | u32 case number | u32 status (0 ok, 1 the
 *            plugin failed) | u32 n_ops | n_ops x (i32 kind, i32 class,
 *            i32 origin, i32 registration, text, text module) |
 *            (status 1: text detail)
 * where a text is a u32 length and its bytes.
 */
#ifndef LCTX_DRIVE_IMPL_WORKER_H
#define LCTX_DRIVE_IMPL_WORKER_H

#include "case.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The marks that start the worker's records. */
#define RESULT_MAGIC 0x5258434cu /* "LCXR" */
#define INFO_MAGIC 0x4958434cu   /* "LCXI" */
/* The longest text of an info record, and of a failure's detail. */
#define INFO_TEXT_MAX 1024u
#define DETAIL_MAX 1024u

/* The largest result record: every operation with its text and module. */
#define RECORD_MAX                                                             \
  (16 +                                                                        \
   LCTX_CASE_MAX_OPS *                                                         \
       (LCTX_OUTCOME_TEXT_MAX + 32 + LCTX_CASE_IMPL_MLIR_CAPACITY) +           \
   256)

/* What the worker stages in memory it shares with lctx: whole result
 * records, `committed` bytes of them, that it has not yet written to its
 * pipe, and the case it began last. A worker that dies leaves there the
 * results it had not sent; lctx reads them once it is gone, so that only
 * the case it died in is marked (impl_plugin.c's salvage_results). */
typedef struct shared_results {
  _Atomic uint64_t committed;    /* bytes of whole records in data */
  _Atomic int64_t serving_since; /* when it began, CLOCK_MONOTONIC ns */
  _Atomic uint32_t serving;      /* the number of the case begun last */
  uint8_t data[];
} shared_results;

/* The worker writes what it staged to its pipe when no more cases came yet
 * (before it waits for them), and between cases once it staged FLUSH_BYTES
 * or FLUSH_SECONDS passed since it last wrote. */
#define FLUSH_BYTES (256u << 10)
#define FLUSH_SECONDS 0.005
/* The mark of a request whose result is written as soon as it is built. */
#define CAREFUL 0x80000000u
#define SHARED_DATA (FLUSH_BYTES + RECORD_MAX)
/* After the stage: the cases lctx queued, packed (lctx_case_pack); a
 * request then carries only where its case is. Written by lctx only while
 * the worker has no case to read (every queued case answered), so that one
 * area serves every batch. */
#define REQUEST_AREA (32u << 20)
#define SHARED_SIZE (sizeof(shared_results) + SHARED_DATA + REQUEST_AREA)
/* The mark of a request whose case is in the request area, at the offset
 * the u32 after its case number gives. */
#define IN_SHARED 0x40000000u

static inline uint8_t *request_area(shared_results *sh) {
  return sh->data + SHARED_DATA;
}

/* The worker: loads the plugin at `path`, reports its table, serves the
 * cases it reads from `in_fd` until its end, its results staged in
 * `shared` (SHARED_SIZE bytes) and written to `out_fd` many at a time.
 * Never returns. */
_Noreturn void lctx_impl_worker(const char *path, int in_fd, int out_fd,
                                shared_results *shared);

#endif /* LCTX_DRIVE_IMPL_WORKER_H */
