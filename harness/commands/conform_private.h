/*
 * conform_private.h - what conform.c (the cases offered, batched, judged
 * and reported) and conform_setup.c (the options checked, the spec, the
 * verdicts' judge, the implementation or its jobs, the report folder and
 * results.jsonl set up and torn down) share: the state of one conform
 * run. Private to the conform run (conform.h is its interface).
 */
#ifndef LCTX_COMMANDS_CONFORM_PRIVATE_H
#define LCTX_COMMANDS_CONFORM_PRIVATE_H

#include "conform.h"
#include "conform_jobs.h"
#include "impl.h"
#include "irjudge.h"
#include "report_write.h"
#include "verdict.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define MAX_BATCH LCTX_CONFORM_MAX_BATCH
_Static_assert(MAX_BATCH == LCTX_CONFORM_BATCH_MAX, "one batch size");
_Static_assert(LCTX_CONFORM_MAX_JOBS == LCTX_CONFORM_JOBS_MAX, "one job count");

/* The longest path a report folder's file may have, with its NUL. */
#define PATH_CAP 4200

/* A batch of cases, their names and their results (conform_jobs.h). */
typedef lctx_conform_batch batch_slot;

/* One run: everything lctx_conform_run works with, passed down to every
 * step. Heap-allocated: the batches and the judge's scratch are large. */
typedef struct run {
  lctx_conform_options o;
  lctx_report *report; /* the counts: the caller's, or `own` */
  lctx_report own;
  lctx_spec spec;
  lctx_impl *impl;         /* one job */
  lctx_conform_jobs *jobs; /* several jobs (then no `impl`) */
  size_t judge_kills;      /* several jobs: modules that killed a judge */
  const lctx_impl_info *info;
  lctx_impl_info info_kept; /* `info` once the implementation is closed */
  lctx_report_xfail xfail;
  /* What judges the operations into verdicts, and its rerun lines. */
  lctx_report_judge judge_v;
  size_t global_index; /* cases offered so far, for the shard */
  size_t domain_seen;  /* domain cases visited (--case domain:INDEX) */
  /* The conformance case files ("DIR/NAME") in name order (the source
   * "cases"), from lctx_dirlist_read. */
  char **case_names;
  size_t case_count;
  /* Three batches (see flush_batch): the one being filled; the one in
   * flight (NULL: none), handed to the implementation; and the one ready
   * (NULL: none), whose results are in and whose modules the judge has. */
  batch_slot slots[3];
  batch_slot *fill, *flight, *ready;
  FILE *stream;            /* results.jsonl */
  const int *stream_error; /* the errno of its first failed write, or 0 */
  struct lctx_seal_writer *sealed; /* its writer: checked at the end */
  bool results_checked;            /* found as written at the end */
  bool stream_failed;
  char stream_path[PATH_CAP], judge_log[PATH_CAP], impl_log[PATH_CAP];
  char run_id[64]; /* in results.jsonl's first line and report.json */
  FILE *out;
  FILE *err;
  size_t error_shown; /* bytes of report->error printed */
  int lock_fd;        /* REPORT_DIR/.lock, held for the run */
  double begin;       /* lctx_conform_run started */
  double start;       /* the cases started */
  /* The live progress line on a terminal's stderr: shown, cases offered
   * in all (the domain's counted at the start), last shown. */
  bool progress;
  size_t progress_total;
  double progress_shown;
  /* The judge of the modules of lower_per_platform operations (created on
   * first use). */
  lctx_irjudge *judge;
  /* The reference model at the release judged as: the modules' expected
   * structure (the IR judge). */
  const lctx_release *model_release;
  lctx_case scratch; /* a case read or generated */
} run;

/// Adds a problem to report->error: "lctx conform: " and the text (printed
/// in one place, each on a line of its own).
void lctx_conform_problem(run *r, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/// A report file could not be written: said, and the run ends with
/// LCTX_EXIT_USAGE.
void lctx_conform_write_failed(run *r, const char *path, int errnum);

/// DIR/NAME of the report folder into `buf` (PATH_CAP bytes); false, said,
/// when it does not fit.
bool lctx_conform_report_path(run *r, char *buf, const char *name);

/// What the report files say of the run.
lctx_report_doc lctx_conform_run_doc(const run *r);

/// Sets the run up (conform_setup.c): false, said, when it cannot run.
bool lctx_conform_set_up(run *r);

/// Closes what lctx_conform_set_up opened.
void lctx_conform_tear_down(run *r);

#endif /* LCTX_COMMANDS_CONFORM_PRIVATE_H */
