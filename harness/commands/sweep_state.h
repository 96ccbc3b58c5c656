/*
 * sweep_state.h - the state of a running sweep and of one of its cases
 * (their requests and answers), shared by the plan (sweep.c), the case
 * mechanics (sweep_case.c) and the recorded findings (sweep_record.c).
 */
#ifndef LCTX_DRIVE_SWEEP_STATE_H
#define LCTX_DRIVE_SWEEP_STATE_H

#include "conform.h"
#include "diagnose.h"
#include "export_json.h"
#include "impl.h"
#include "sweep_options.h"
#include "sweepjudge.h"

/// One platform list.
typedef struct lctx_sweep_list {
  size_t count;
  char p[LCTX_EXPORT_MAX_PLATFORMS][LCTX_EXPORT_PLATFORM_MAX];
} lctx_sweep_list;

/// A case's requests and answers.
typedef struct lctx_sweep_exports {
  size_t program; ///< a catalogue index
  lctx_sweep_list list, reorder;
  bool has_reorder, has_cpu, has_alone[LCTX_EXPORT_MAX_PLATFORMS];
  lctx_export_store multi, reordered, cpu_only;
  lctx_export_store alone[LCTX_EXPORT_MAX_PLATFORMS];
  bool ran; ///< exported and judged (lctx_sweep_run_case)
  /// The failures of its verdicts (heap), which a recorded case expects.
  lctx_sweep_verdict *fails;
  size_t fail_count;
  /// A generated program (conformance/sweep/PROGRAMS.md): its name, its
  /// text (heap) and the text read (heap); NULL for a catalogue program.
  char name[64];
  char *source;
  lctx_program_desc *desc;
  /// Ask the program for a standalone reproduction of P's export.
  bool want_repro;
} lctx_sweep_exports;

/// What a known defect's case file says of it, beside its key: its name
/// (the file's, without .json), the JAX release that fixes it (its
/// "fixed_in", "" none) and its upstream report (the docs/upstream-*.md
/// its "note" names, "" none). Diagnoses name them (diagnose.h).
typedef struct lctx_sweep_known_defect {
  char name[128];
  char fixed_in[64];
  char doc[160];
} lctx_sweep_known_defect;

/// A finding a run met (sweep_summary.h): its key, whether a known
/// defect's, its cases and the first of them (a plan index).
typedef struct lctx_sweep_noted {
  char key[LCTX_SWEEP_KEY_MAX];
  bool known;
  size_t cases, first_case;
} lctx_sweep_noted;

/// One exporter process of a sweep and its request count.
typedef struct lctx_sweep_exporter {
  lctx_impl *impl;
  unsigned long long next_id;
  _Atomic size_t exports;
} lctx_sweep_exporter;

/// A running sweep.
typedef struct lctx_sweep {
  const lctx_sweep_options *o;
  FILE *out, *err;
  lctx_spec *spec;
  lctx_sweep_rows rows;
  /// The exporters: [0] opened with the catalogue (lctx_sweep_open), one
  /// more per further job (sweep_jobs.h); `minimizer` re-exports findings
  /// while jobs run (opened when first needed), else x[0] does.
  lctx_sweep_exporter *x;
  size_t x_count;
  lctx_sweep_exporter minimizer;
  bool parallel, minimizer_failed;
  void *jobs; ///< the jobs once started (sweep_jobs.c), else NULL
  unsigned long long minimize_next_id; ///< the ids of minimizing requests
  lctx_catalogue cat;
  size_t *selected, selected_count;
  /// The plan: the first plan index of each selected program (its declared
  /// lists, or --lists drawn ones; selected_count + 1 entries), and the
  /// cases of the plan.
  size_t *plan_start, plan_total;
  bool *reached; ///< per cat.primitives entry (sorted)
  lctx_report *rep;
  size_t resumed, finding_count;
  /// Finding folders in OUT/findings, and findings beyond the cap.
  size_t findings_kept, findings_dropped;
  size_t total_cases, done_cases; ///< of this run's plan, for the live line
  /// The cases done (by plan index), from results.jsonl and this run.
  bool *done;
  size_t done_cap;
  /// Finding keys: known (from the recorded defects) and seen in this run.
  char (*known)[LCTX_SWEEP_KEY_MAX];
  lctx_sweep_known_defect *known_defects; ///< one per known key
  size_t known_count;
  /// The diagnoses of the user's and packages' programs judged
  /// (sweep_diagnose.h), once each.
  lctx_diagnosis *diagnoses;
  size_t diagnosis_count, diagnosis_cap;
  char (*seen)[LCTX_SWEEP_KEY_MAX];
  size_t seen_count, seen_cap;
  /// The findings met, new and known (heap), for the summary; and what a
  /// one-case rerun judged ("PROGRAM on P1,P2", "" when resumed).
  lctx_sweep_noted *noted;
  size_t noted_count, noted_cap;
  char only_case_what[512];
  /// `lctx generate --from DIR`: the files programs are drawn from.
  char **gen_files;
  size_t gen_file_count;
  /// Coverage of the generated programs judged: features and JAX
  /// operations (program.h).
  bool features[LCTX_PROG_FEATURE_COUNT];
  bool *ops;
  /// OUT/results.jsonl, each line sealed (seal.h; sweep_resume.h), and
  /// its run id; whether an earlier run's lines were verified and resumed,
  /// whether the file was found as written at the end, or altered.
  struct lctx_seal_writer *results;
  char run_id[33];
  bool results_verified, results_checked, results_altered;
  double next_seal; ///< when the seal file is next replaced
  bool results_failed, progress;
  double start, next_progress;
} lctx_sweep;

/// The command a message of sweep `s` names: lctx generate or lctx sweep.
static inline const char *lctx_sweep_who(const lctx_sweep *s) {
  return s->o->generate ? "lctx generate" : "lctx sweep";
}

/// The name of `e`'s program: a generated one's, or the catalogue's.
static inline const char *lctx_sweep_program_name(const lctx_sweep *s,
                                                  const lctx_sweep_exports *e) {
  /* A generated program has its name even when it could not be drawn. */
  return e->source || e->name[0] ? e->name : s->cat.programs[e->program].name;
}

/// The group of `e`'s program: "gen" for a generated one.
static inline const char *
lctx_sweep_program_group(const lctx_sweep *s, const lctx_sweep_exports *e) {
  return e->source || e->name[0] ? "gen" : s->cat.programs[e->program].group;
}

#endif /* LCTX_DRIVE_SWEEP_STATE_H */
