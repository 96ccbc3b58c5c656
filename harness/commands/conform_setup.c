/*
 * conform_setup.c - setting a conform run up and tearing it down
 * (conform_private.h): the options checked, the spec table and release
 * loaded, the judge of verdicts, the implementation (or its jobs), the
 * report folder locked and results.jsonl opened.
 */
#include "conform_private.h"

#include "dirlist.h"
#include "escape.h"
#include "guard.h"
#include "lctx/lctx.h"
#include "rerun_cmd.h"
#include "seal.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void lctx_conform_options_init(lctx_conform_options *o) {
  memset(o, 0, sizeof *o);
  o->spec_path = lctx_sys_default_spec_path();
  o->cases_dir = lctx_sys_default_cases_path();
  o->report_dir = "lctx-conform";
  o->exact = true;
  o->ops = (1u << LCTX_OP_KIND_COUNT) - 1;
  o->shard_i = o->shard_n = 1;
  o->seed = 1;
  o->random = 10000;
  o->domain = true;
  o->timeout = 5;
  o->memory_limit_mb = 1024;
  o->batch = MAX_BATCH;
  o->jobs = 1;
  o->keep_failures = 100;
  o->handle_signals = true;
}

/* Options a caller could get wrong; the command line checks them first. */
static bool valid_options(run *r) {
  const lctx_conform_options *o = &r->o;
  if (!o->impl_path == !o->command) {
    lctx_conform_problem(
        r, "name exactly one implementation (a plugin or a command)");
    return false;
  }
  if (o->batch == 0 || o->batch > MAX_BATCH || o->shard_n == 0 ||
      o->shard_i == 0 || o->shard_i > o->shard_n || !(o->timeout > 0) ||
      o->jobs == 0 || o->jobs > LCTX_CONFORM_MAX_JOBS) {
    lctx_conform_problem(r,
                         "a batch, shard, timeout or job count out of range");
    return false;
  }
  return true;
}

/* Loads the spec table and the expected failures, and fills the report's
 * rows. */
static bool load_spec(run *r) {
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  lctx_escaped esc, file;
  if (!lctx_spec_load(r->o.spec_path, &r->spec, &eb)) {
    lctx_conform_problem(r, "%s", lctx_esc(&esc, e));
    return false;
  }
  lctx_buf_init(&eb, e, sizeof e);
  if (!lctx_spec_select(&r->spec, r->o.jax, &eb)) {
    lctx_conform_problem(r, "--jax: %s", lctx_esc(&esc, e));
    return false;
  }
  /* The IR judge expects the modules the model builds at that release: a
   * release the table names but the model does not know cannot be judged
   * (rather than judged as the modelled commit). */
  r->model_release = lctx_release_find(r->spec.selected_name);
  if (!r->model_release) {
    lctx_conform_problem(
        r,
        "--jax: the reference model does not know JAX release '%s' (the "
        "spec %s names it), so the modules cannot be judged as it behaves",
        lctx_esc(&esc, r->spec.selected_name),
        lctx_esc(&file, r->spec.filename));
    return false;
  }
  r->report->row_count = r->spec.row_count;
  for (size_t i = 0; i < r->spec.row_count; i++) {
    snprintf(r->report->rows[i].id, sizeof r->report->rows[i].id, "%s",
             r->spec.rows[i].id);
    r->report->rows[i].absent = r->spec.rows[i].absent;
  }
  if (r->o.xfail_path && !lctx_report_xfail_load(&r->spec, r->o.xfail_path,
                                                 &r->xfail, e, sizeof e)) {
    lctx_conform_problem(r, "%s", e);
    return false;
  }
  return true;
}

/* The judge of verdicts, and the parts of its rerun lines; false (a
 * problem) when they do not fit. */
static bool set_up_verdicts(run *r) {
  lctx_report_judge *j = &r->judge_v;
  j->spec = &r->spec;
  j->xfail = &r->xfail;
  j->exact = r->o.exact;
  j->keep_failures = r->o.keep_failures;
  j->report = r->report;
  j->seed = r->o.seed;
  lctx_report_judge_init(j);
  char dir[PATH_CAP], program[PATH_CAP];
  bool spec = strcmp(r->o.spec_path, lctx_sys_default_spec_path()) != 0;
  bool jax = !lctx_spec_selected_modelled(&r->spec);
  lctx_rerun_program(program, sizeof program);
  if (lctx_rerun_dir(r->o.report_dir, dir, sizeof dir) &&
      lctx_report_judge_rerun(j, program, r->o.impl_path ? "--impl" : "--cmd",
                              r->o.impl_path ? r->o.impl_path : r->o.command,
                              spec ? r->o.spec_path : NULL, r->o.xfail_path,
                              jax ? r->spec.selected_name : NULL, dir))
    return true;
  lctx_conform_problem(
      r, "the names of the implementation, spec, xfail file or report "
         "folder are too long for a rerun line");
  return false;
}

/* Starts the implementation (a plugin's worker, or the program). */
static bool open_impl(run *r) {
  char e[1024];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  lctx_impl_options io;
  lctx_impl_options_init(&io);
  io.timeout = r->o.timeout;
  io.log_path = r->impl_log;
  io.memory_limit_mb = r->o.memory_limit_mb;
  if (r->o.jobs > 1 && !r->o.first_failure) {
    lctx_conform_jobs_config c = {r->o.jobs,
                                  r->o.impl_path,
                                  r->o.command,
                                  io,
                                  r->o.process_per_case,
                                  r->o.timeout,
                                  r->o.memory_limit_mb,
                                  r->judge_log,
                                  r->model_release,
                                  &r->judge_v};
    r->jobs = lctx_conform_jobs_start(&c, &eb);
  } else {
    r->impl = r->o.impl_path ? lctx_impl_open_plugin(r->o.impl_path, &io, &eb)
                             : lctx_impl_open_process(r->o.command, &io, &eb);
  }
  if (!r->impl && !r->jobs) {
    lctx_escaped which, why;
    lctx_conform_problem(
        r, "%s: %s",
        lctx_esc(&which, r->o.impl_path ? r->o.impl_path : r->o.command),
        lctx_esc(&why, e));
    return false;
  }
  if (r->jobs) { /* each job packs its own */
    r->info = lctx_conform_jobs_info(r->jobs);
    r->fill = lctx_conform_jobs_fill(r->jobs);
    return true;
  }
  r->info = lctx_impl_get_info(r->impl);
  lctx_impl_set_process_per_case(r->impl, r->o.process_per_case);
  return true;
}

/* Takes REPORT_DIR/.lock for the run, naming it there; false (a problem)
 * when another run holds it. */
static bool lock_report_dir(run *r) {
  char why[1024];
  r->lock_fd = lctx_sys_lock_run_dir(r->o.report_dir, "lctx conform",
                                     "--report-dir", why, sizeof why);
  if (r->lock_fd < 0)
    lctx_conform_problem(r, "%s", why);
  return r->lock_fd >= 0;
}

/* Removes the reports of an earlier run (so that no report.json stands
 * beside the results.jsonl of this one, whatever becomes of it), opens
 * results.jsonl and writes its stamp line. */
static bool open_stream(run *r) {
  if (!lctx_report_remove_reports(r->o.report_dir, "lctx conform",
                                  r->report->error, sizeof r->report->error))
    return false;
  r->stream =
      lctx_report_results_open(r->stream_path, &r->stream_error, &r->sealed);
  if (!r->stream) {
    lctx_conform_write_failed(r, r->stream_path, errno);
    return false;
  }
  r->judge_v.stream = r->stream;
  snprintf(r->run_id, sizeof r->run_id, "%llx-%lx-%llx",
           (unsigned long long)time(NULL), (long)getpid(),
           (unsigned long long)(lctx_sys_now() * 1e6));
  lctx_report_doc doc = lctx_conform_run_doc(r);
  json_t *h = lctx_report_json_stamp(&doc);
  json_object_set_new(h, "seed", json_integer((json_int_t)r->o.seed));
  char *t = json_dumps(h, JSON_COMPACT);
  if (t) {
    fprintf(r->stream, "%s\n", t);
    free(t);
  }
  json_decref(h);
  return true;
}

bool lctx_conform_set_up(run *r) {
  if (!valid_options(r) || !load_spec(r))
    return false;
  if (!lctx_conform_report_path(r, r->stream_path, "results.jsonl") ||
      !lctx_conform_report_path(r, r->judge_log, "judge.log") ||
      !lctx_conform_report_path(r, r->impl_log, "implementation.log") ||
      !set_up_verdicts(r))
    return false;
  char longest[PATH_CAP]; /* conform_report.c's temporary files */
  if (!lctx_conform_report_path(r, longest, "report.junit.xml.tmp"))
    return false;
  if (!lctx_sys_mkdir_p(r->o.report_dir)) {
    lctx_escaped esc;
    lctx_conform_problem(r, "--report-dir: %s: %s",
                         lctx_esc(&esc, r->o.report_dir), strerror(errno));
    return false;
  }
  /* Its implementation and judge see the folder read-only (peer.h). */
  (void)lctx_peer_protect(r->o.report_dir, false);
  return lock_report_dir(r) && open_impl(r) && open_stream(r);
}

void lctx_conform_tear_down(run *r) {
  for (size_t k = 0; k < 3; k++) {
    for (size_t i = 0; i < MAX_BATCH; i++)
      lctx_case_result_release(&r->slots[k].results[i]);
  }
  if (r->stream)
    fclose(r->stream);
  lctx_conform_jobs_free(r->jobs);
  lctx_impl_close(r->impl);
  if (r->lock_fd >= 0)
    close(r->lock_fd);
  lctx_irjudge_free(r->judge);
  lctx_dirlist_free(r->case_names);
}
