/*
 * mutants_report.c - the kill matrix's reports: the matrix printed,
 * mutants.json and mutants.md (see mutants_private.h).
 */
#include "mutants_private.h"

#include "lctx/lctx.h"
#include "sys.h"

#include <jansson.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// The matrix
//===----------------------------------------------------------------------===//

void lctx_mutants_cell(const kill_cell *k, bool fuzz, char *out, size_t cap) {
  switch (k->status) {
  case K_KILLED:
    snprintf(out, cap, "%.2f s %s%s%s", k->seconds, k->row,
             k->row_expected ? "" : "*", fuzz && k->by_seed ? " (seed)" : "");
    return;
  case K_LIVED:
    snprintf(out, cap, "LIVED (%.0f s)", k->seconds);
    return;
  case K_ERROR:
    snprintf(out, cap, "ERROR");
    return;
  case K_NOT_RUN:
    snprintf(out, cap, "-");
    return;
  }
}

tally lctx_mutants_tally(const state *st, int which) {
  tally t = {0, 0, 0, 0};
  for (size_t i = 0; i < st->count; i++) {
    const kill_cell *k = which < 0 ? &st->conform[i] : &st->fuzz[i][which];
    if (k->status == K_NOT_RUN)
      continue;
    t.total++;
    if (k->status == K_KILLED) {
      t.killed++;
      if (k->seconds > t.slowest)
        t.slowest = k->seconds;
      if (which < 0 && k->seconds > st->o.limit)
        t.slow++;
    }
  }
  return t;
}

double lctx_mutants_percent(tally t) {
  return t.total ? 100.0 * (double)t.killed / (double)t.total : 0;
}

void lctx_mutants_print_matrix(const state *st, FILE *out) {
  fprintf(out, "\n%-30s %-22s", "mutant", "conform");
  for (int s = 0; s < START_COUNT; s++)
    if (st->o.fuzz_seconds > 0 && st->starts[s])
      fprintf(out, " %-26s", START_TITLES[s]);
  fprintf(out, "\n");
  for (size_t i = 0; i < st->count; i++) {
    char text[128];
    lctx_mutants_cell(&st->conform[i], false, text, sizeof text);
    fprintf(out, "%-30s %-22s", st->mutants[i].name, text);
    for (int s = 0; s < START_COUNT; s++) {
      if (st->o.fuzz_seconds > 0 && st->starts[s]) {
        lctx_mutants_cell(&st->fuzz[i][s], true, text, sizeof text);
        fprintf(out, " %-26s", text);
      }
    }
    fprintf(out, "\n");
  }
  fprintf(out, "(time to kill, then the spec row that caught the mutant, or "
               "failed: the plugin returned a failure status, differ: allowed "
               "but different outcomes, crash: a sanitizer or libFuzzer "
               "crash; * a row the list does not expect; (seed) found while "
               "the seed corpus ran)\n");
}

static json_t *kill_json(const kill_cell *k, bool fuzz) {
  json_t *j = json_object();
  json_object_set_new(j, "status", json_string(STATUS_NAMES[k->status]));
  json_object_set_new(j, "seconds", json_real(k->seconds));
  if (!fuzz)
    json_object_set_new(j, "command_seconds", json_real(k->wall));
  if (k->status == K_KILLED) {
    json_object_set_new(j, "row", json_string(k->row));
    json_object_set_new(j, "row_expected", json_boolean(k->row_expected));
  }
  json_object_set_new(j, "detail", json_string(k->detail));
  if (k->reproduce[0])
    json_object_set_new(j, "reproduce", json_string(k->reproduce));
  if (fuzz) {
    json_object_set_new(j, "by_seed", json_boolean(k->by_seed));
    json_object_set_new(j, "inputs_run", json_integer((json_int_t)k->execs));
    if (k->reached[0])
      json_object_set_new(j, "reached", json_string(k->reached));
  }
  return j;
}

bool lctx_mutants_write_json(const state *st, const char *path) {
  json_t *j = json_object();
  json_object_set_new(j, "lctx_version", json_string(LCTX_VERSION_STRING));
  json_object_set_new(j, "spec_version", json_string(st->spec.version));
  json_object_set_new(j, "conform_limit_seconds", json_real(st->o.limit));
  json_object_set_new(j, "fuzz_seconds", json_real(st->o.fuzz_seconds));
  json_object_set_new(j, "fuzz_seed",
                      json_integer((json_int_t)st->o.fuzz_seed));
  json_t *control = json_object();
  if (st->o.control) {
    json_object_set_new(control, "conform",
                        kill_json(&st->control_conform, false));
    for (int s = 0; s < START_COUNT; s++)
      if (st->control_fuzz[s].status != K_NOT_RUN)
        json_object_set_new(control, START_NAMES[s],
                            kill_json(&st->control_fuzz[s], true));
  }
  json_object_set_new(j, "control", control);
  json_t *list = json_array();
  for (size_t i = 0; i < st->count; i++) {
    const mutant *m = &st->mutants[i];
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "description", json_string(m->description));
    json_t *rows = json_array();
    for (size_t r = 0; r < m->expected_count; r++)
      json_array_append_new(rows, json_string(m->expected[r]));
    json_object_set_new(o, "expected_rows", rows);
    if (m->note[0])
      json_object_set_new(o, "note", json_string(m->note));
    json_object_set_new(o, "conform", kill_json(&st->conform[i], false));
    json_t *fuzz = json_object();
    for (int s = 0; s < START_COUNT; s++)
      if (st->fuzz[i][s].status != K_NOT_RUN)
        json_object_set_new(fuzz, START_NAMES[s],
                            kill_json(&st->fuzz[i][s], true));
    json_object_set_new(o, "fuzz_differential", fuzz);
    json_array_append_new(list, o);
  }
  json_object_set_new(j, "mutants", list);
  json_t *summary = json_object();
  tally c = lctx_mutants_tally(st, -1);
  json_t *cs = json_object();
  json_object_set_new(cs, "killed", json_integer((json_int_t)c.killed));
  json_object_set_new(cs, "total", json_integer((json_int_t)c.total));
  json_object_set_new(cs, "over_limit", json_integer((json_int_t)c.slow));
  json_object_set_new(cs, "slowest_seconds", json_real(c.slowest));
  json_object_set_new(summary, "conform", cs);
  for (int s = 0; s < START_COUNT; s++) {
    tally t = lctx_mutants_tally(st, s);
    if (!t.total)
      continue;
    json_t *fs = json_object();
    json_object_set_new(fs, "killed", json_integer((json_int_t)t.killed));
    json_object_set_new(fs, "total", json_integer((json_int_t)t.total));
    json_object_set_new(fs, "percent", json_real(lctx_mutants_percent(t)));
    json_object_set_new(summary, START_NAMES[s], fs);
  }
  json_object_set_new(j, "summary", summary);
  int rc = json_dump_file(j, path, JSON_INDENT(2));
  json_decref(j);
  return rc == 0;
}

/* A Markdown table cell: no '|' or newline. */
static void md_text(FILE *f, const char *s) {
  for (; *s; s++)
    fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){*s, 0}, f);
}

/* The matrix as a Markdown table, a row per mutant. */
static void md_table(const state *st, FILE *f) {
  bool fuzz = st->o.fuzz_seconds > 0;
  fprintf(f, "| mutant | defect | conform |");
  for (int s = 0; s < START_COUNT; s++)
    if (fuzz && st->starts[s])
      fprintf(f, " %s |", START_TITLES[s]);
  fprintf(f, "\n|---|---|---|");
  for (int s = 0; s < START_COUNT; s++)
    if (fuzz && st->starts[s])
      fprintf(f, "---|");
  fprintf(f, "\n");
  for (size_t i = 0; i < st->count; i++) {
    char text[128];
    fprintf(f, "| `%s` | ", st->mutants[i].name);
    md_text(f, st->mutants[i].description);
    lctx_mutants_cell(&st->conform[i], false, text, sizeof text);
    fprintf(f, " | %s |", text);
    for (int s = 0; s < START_COUNT; s++) {
      if (fuzz && st->starts[s]) {
        lctx_mutants_cell(&st->fuzz[i][s], true, text, sizeof text);
        fprintf(f, " %s |", text);
      }
    }
    fprintf(f, "\n");
  }
}

/* What caught each mutant: conform's first failure, the fuzz keys. */
static void md_first_failures(const state *st, FILE *f) {
  fprintf(f, "\n## First failures\n\n");
  for (size_t i = 0; i < st->count; i++) {
    fprintf(f, "- `%s`: conform: ", st->mutants[i].name);
    md_text(f, st->conform[i].detail);
    for (int s = 0; s < START_COUNT; s++) {
      const kill_cell *k = &st->fuzz[i][s];
      if (k->status == K_NOT_RUN)
        continue;
      fprintf(f, "; %s: `", START_TITLES[s]);
      md_text(f, k->detail);
      fprintf(f, "`");
    }
    fprintf(f, "\n");
  }
}

bool lctx_mutants_write_markdown(const state *st, const char *path) {
  FILE *f = lctx_sys_fopen_in(path, "w");
  if (!f)
    return false;
  bool fuzz = st->o.fuzz_seconds > 0;
  fprintf(f, "# Mutant kill matrix\n\n");
  fprintf(f,
          "lctx %s, spec %s. Conform: `lctx conform --first-failure`, kill "
          "limit %.1f s.",
          LCTX_VERSION_STRING, st->spec.version, st->o.limit);
  if (fuzz)
    fprintf(f,
            " Fuzz: `fuzz_differential` (libFuzzer, one process, `-seed=%llu`) "
            "for at most %.0f s per run.",
            st->o.fuzz_seed, st->o.fuzz_seconds);
  fprintf(f, "\n\nEach cell: time to kill and the spec row that caught the "
             "mutant, or `failed` (the plugin returned a failure status), "
             "`differ` (allowed but different outcomes), `crash` (a "
             "sanitizer or libFuzzer crash); `*`: a row the list does not "
             "expect; `(seed)`: found while the seed corpus ran. The time "
             "runs from the start of the command (conform: to its first "
             "failing verdict).\n\n");
  md_table(st, f);
  tally c = lctx_mutants_tally(st, -1);
  fprintf(f,
          "\nConform killed %zu of %zu mutants (%.0f%%), the slowest in %.2f "
          "s; %zu over the %.1f s limit.\n",
          c.killed, c.total, lctx_mutants_percent(c), c.slowest, c.slow,
          st->o.limit);
  for (int s = 0; s < START_COUNT; s++) {
    tally t = lctx_mutants_tally(st, s);
    if (!t.total)
      continue;
    fprintf(f,
            "\n`fuzz_differential` %s killed %zu of %zu mutants (%.0f%%) "
            "within %.0f s each.",
            s == START_SEEDS ? "from its seed corpus" : "from an empty corpus",
            t.killed, t.total, lctx_mutants_percent(t), st->o.fuzz_seconds);
    bool any = false;
    for (size_t i = 0; i < st->count; i++) {
      const kill_cell *k = &st->fuzz[i][s];
      if (k->status == K_KILLED || k->status == K_NOT_RUN)
        continue;
      if (!any)
        fprintf(f, " Missed:\n\n");
      any = true;
      fprintf(f, "- `%s` (%s): ", st->mutants[i].name, STATUS_NAMES[k->status]);
      md_text(f, st->mutants[i].note[0] ? st->mutants[i].note
                                        : "no reason recorded in MUTANTS");
      fprintf(f, " (");
      md_text(f, k->reached[0] ? k->reached : k->detail);
      fprintf(f, ").\n");
    }
    fprintf(f, "\n");
  }
  md_first_failures(st, f);
  fclose(f);
  return true;
}
