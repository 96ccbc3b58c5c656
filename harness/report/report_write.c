/*
 * report_write.c - report.tap, report.junit.xml and report.json of a
 * run, and its text table and summary (see report_write.h).
 */
#define _GNU_SOURCE /* fopencookie */
#include "report_write.h"

#include "escape.h"
#include "peer.h"
#include "seal.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* results.jsonl: a sealed writer (seal.h), so that the end of the run can
 * tell whether the file is still what lctx wrote. */
static ssize_t results_write(void *cookie, const char *buf, size_t n) {
  lctx_seal_writer *w = cookie;
  uint64_t before = w->length;
  if (lctx_seal_write(w, buf, n))
    return (ssize_t)n;
  size_t done = (size_t)(w->length - before);
  return done > 0 ? (ssize_t)done : -1;
}

static int results_close(void *cookie) {
  return lctx_seal_close(cookie) ? 0 : -1;
}

FILE *lctx_report_results_open(const char *path, const int **first_error,
                               lctx_seal_writer **writer) {
  char id[LCTX_SEAL_ID_SIZE], why[256];
  uint8_t key[LCTX_SEAL_KEY_SIZE];
  if (!lctx_seal_new_run(id, key, why, sizeof why)) {
    errno = EIO;
    return NULL;
  }
  lctx_seal_writer *w = lctx_seal_create(path, NULL, id, key);
  memset(key, 0, sizeof key);
  if (!w)
    return NULL;
  cookie_io_functions_t io = {NULL, results_write, NULL, results_close};
  FILE *s = fopencookie(w, "w", io);
  if (!s) {
    int e = errno;
    lctx_seal_close(w);
    errno = e;
    return NULL;
  }
  *first_error = &w->error;
  *writer = w;
  return s;
}

/* XML character data or an attribute value: markup escaped, UTF-8 kept,
 * bytes that are not UTF-8 and characters XML 1.0 forbids (controls other
 * than tab and newline, DEL, U+FFFE and U+FFFF) written as U+FFFD. */
static void xml_escape(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned cp;
    size_t len = lctx_conform_utf8_next(p, &cp);
    if (!len || (cp < 0x20 && cp != '\t' && cp != '\n') || cp == 0x7f ||
        cp == 0xfffe || cp == 0xffff)
      fprintf(f, "&#x%x;", 0xfffd);
    else if (cp == '<')
      fputs("&lt;", f);
    else if (cp == '>')
      fputs("&gt;", f);
    else if (cp == '&')
      fputs("&amp;", f);
    else if (cp == '"')
      fputs("&quot;", f);
    else
      fwrite(p, 1, len, f);
    p += len ? len : 1;
  }
}

/* A YAML double-quoted string: UTF-8 kept, other bytes and controls as
 * \xNN escapes. */
static void yaml_quoted(FILE *f, const char *s) {
  fputc('"', f);
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned cp;
    size_t len = lctx_conform_utf8_next(p, &cp);
    if (len > 1 && cp >= 0xa0) {
      fwrite(p, 1, len, f);
      p += len;
      continue;
    }
    unsigned char c = *p++;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20 || c >= 0x7f)
      fprintf(f, "\\x%02x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

//===----------------------------------------------------------------------===//
// The stamp
//===----------------------------------------------------------------------===//

void lctx_report_classname(const lctx_report_doc *d, char *dst, size_t n) {
  char name[128];
  size_t k = 0;
  for (const char *p = d->impl_name; *p && k + 1 < sizeof name; p++) {
    unsigned char c = (unsigned char)*p;
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '-' || c == '_';
    name[k++] = safe ? (char)c : '_';
  }
  name[k] = '\0';
  if (k == 0)
    snprintf(name, sizeof name, "unnamed");
  if (d->shard_n > 1)
    snprintf(dst, n, "lctx.%s.shard-%u-of-%u", name, d->shard_i, d->shard_n);
  else
    snprintf(dst, n, "lctx.%s", name);
}

void lctx_report_stamp_text(const lctx_report_doc *d, FILE *f,
                            const char *prefix) {
  lctx_escaped file, version, name, impl_version;
  char shard[48] = "";
  if (d->shard_n > 1)
    snprintf(shard, sizeof shard, ", shard %u/%u", d->shard_i, d->shard_n);
  lctx_escaped jax;
  char release[96] = "";
  if (d->jax_release)
    snprintf(release, sizeof release, ", JAX %s",
             lctx_esc(&jax, d->jax_release));
  fprintf(f,
          "%sspec %s (version %s%s), lctx %s, implementation %s %s (%s), "
          "seed %llu%s%s\n",
          prefix, lctx_esc(&file, d->spec_file),
          lctx_esc(&version, d->spec_version), release, d->lctx_version,
          lctx_esc(&name, d->impl_name),
          lctx_esc(&impl_version, d->impl_version), d->impl_kind, d->seed,
          shard, d->report->interrupted ? ", INTERRUPTED" : "");
}

json_t *lctx_report_json_stamp(const lctx_report_doc *d) {
  json_t *j = json_object();
  json_object_set_new(j, "spec_version", json_string(d->spec_version));
  if (d->jax_release)
    json_object_set_new(j, "jax_release",
                        lctx_report_json_text(d->jax_release));
  json_object_set_new(j, "lctx_version", json_string(d->lctx_version));
  json_object_set_new(j, "implementation", lctx_report_json_text(d->impl_name));
  json_object_set_new(j, "implementation_version",
                      lctx_report_json_text(d->impl_version));
  if (d->run_id)
    json_object_set_new(j, "run_id", lctx_report_json_text(d->run_id));
  return j;
}

//===----------------------------------------------------------------------===//
// TAP
//===----------------------------------------------------------------------===//

/* A directive's reason on one line: newlines and '#' would end it. */
static void tap_reason(FILE *f, const char *s) {
  char text[3 * LCTX_REPORT_REASON_MAX + 4];
  lctx_conform_utf8(text, sizeof text, s);
  for (char *p = text; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == '#' || *p == '\\')
      *p = ' ';
  fputs(text, f);
}

/* Diagnosis `i` as one line (diagnose.h), in `line` (8 KB). */
static const char *diagnosis_line(const lctx_report_doc *d, size_t i,
                                  char *line) {
  lctx_diagnosis_text(&d->diagnoses[i], line, 8192);
  return line;
}

/* The diagnoses as tests after the rows: a known JAX defect's a TODO. */
static void tap_diagnoses(const lctx_report_doc *d, FILE *f) {
  char line[8192];
  for (size_t i = 0; i < d->diagnosis_count; i++) {
    const lctx_diagnosis *g = &d->diagnoses[i];
    fprintf(f, "not ok %zu - diagnosis %s ", d->report->row_count + i + 1,
            lctx_diagnosis_class_name(g->cls));
    tap_reason(f, g->program);
    if (g->cls == LCTX_DIAGNOSIS_JAX_DEFECT)
      fputs(" # TODO known JAX defect", f);
    fprintf(f, "\n  ---\n  diagnosis: ");
    yaml_quoted(f, diagnosis_line(d, i, line));
    fprintf(f, "\n  fix: ");
    yaml_quoted(f, g->fix);
    fprintf(f, "\n  ...\n");
  }
}

void lctx_report_write_tap(const lctx_report_doc *d, FILE *f) {
  const lctx_report *rep = d->report;
  fprintf(f, "TAP version 13\n1..%zu\n",
          rep->row_count + (d->diagnoses ? d->diagnosis_count : 0));
  lctx_report_stamp_text(d, f, "# ");
  for (size_t i = 0; i < rep->row_count; i++) {
    const lctx_report_row *s = &rep->rows[i];
    size_t total = 0;
    for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
      total += s->n[v];
    bool failed = lctx_report_row_failed(s);
    bool todo = !failed && s->n[LCTX_VERDICT_XFAIL] > 0;
    bool skip = !failed && !todo && total == s->n[LCTX_VERDICT_UNSUPPORTED];
    fprintf(f, "%s %zu - %s", failed || todo ? "not ok" : "ok", i + 1, s->id);
    if (todo) {
      fputs(" # TODO ", f);
      tap_reason(f, d->xfail && d->xfail[i] ? d->xfail_reason[i]
                                            : "expected failure");
    } else if (skip) {
      fputs(total ? " # SKIP unsupported" : " # SKIP not reached", f);
    }
    fprintf(f, "\n  ---\n");
    for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
      fprintf(f, "  %s: %zu\n", lctx_verdict_name(v), s->n[v]);
    if (s->first[0]) {
      fprintf(f, "  first: ");
      yaml_quoted(f, s->first);
      fprintf(f, "\n");
    }
    if (s->rerun[0]) {
      fprintf(f, "  rerun: ");
      yaml_quoted(f, s->rerun);
      fprintf(f, "\n");
    }
    fprintf(f, "  ...\n");
  }
  if (d->diagnoses)
    tap_diagnoses(d, f);
}

//===----------------------------------------------------------------------===//
// JUnit
//===----------------------------------------------------------------------===//

/* The JUnit <testsuite> line and its stamp as <properties>. */
static void junit_head(const lctx_report_doc *d, FILE *f) {
  const lctx_report *rep = d->report;
  size_t failures = 0, errors = 0, skipped = 0;
  for (size_t i = 0; i < rep->row_count; i++) {
    const lctx_report_row *s = &rep->rows[i];
    if (s->n[LCTX_VERDICT_CRASH] || s->n[LCTX_VERDICT_TIMEOUT] ||
        s->n[LCTX_VERDICT_FLAKY])
      errors++;
    else if (s->n[LCTX_VERDICT_FAIL] || s->n[LCTX_VERDICT_XPASS])
      failures++;
    else if ((d->xfail && d->xfail[i]) || s->n[LCTX_VERDICT_PASS] == 0)
      skipped++;
  }
  size_t diagnoses = d->diagnoses ? d->diagnosis_count : 0;
  for (size_t i = 0; i < diagnoses; i++) {
    if (d->diagnoses[i].cls == LCTX_DIAGNOSIS_JAX_DEFECT)
      skipped++;
    else
      failures++;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f,
          "<testsuites><testsuite name=\"lctx conform\" tests=\"%zu\" "
          "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
          rep->row_count + diagnoses, failures, errors, skipped, rep->seconds);
  fprintf(f, "<properties>");
  const char *keys[] = {"spec_version",   "lctx_version",
                        "implementation", "implementation_version",
                        "seed",           "shard",
                        "jax_release"};
  char seed[32], shard[48];
  snprintf(seed, sizeof seed, "%llu", d->seed);
  snprintf(shard, sizeof shard, "%u/%u", d->shard_i, d->shard_n);
  const char *values[] = {
      d->spec_version, d->lctx_version, d->impl_name, d->impl_version, seed,
      shard,           d->jax_release};
  for (int k = 0; k < 7; k++) {
    if (!values[k])
      continue;
    fprintf(f, "<property name=\"%s\" value=\"", keys[k]);
    xml_escape(f, values[k]);
    fprintf(f, "\"/>");
  }
  fprintf(f, "</properties>\n");
}

/* One JUnit <testcase>: row `i`. */
static void junit_case(const lctx_report_doc *d, FILE *f, size_t i,
                       const char *classname) {
  const lctx_report_row *s = &d->report->rows[i];
  fprintf(f, "<testcase classname=\"%s\" name=\"", classname);
  xml_escape(f, s->id);
  fprintf(f, "\">");
  if (s->n[LCTX_VERDICT_CRASH] || s->n[LCTX_VERDICT_TIMEOUT] ||
      s->n[LCTX_VERDICT_FLAKY]) {
    fprintf(f, "<error message=\"%zu crash, %zu timeout, %zu flaky\">",
            s->n[LCTX_VERDICT_CRASH], s->n[LCTX_VERDICT_TIMEOUT],
            s->n[LCTX_VERDICT_FLAKY]);
    xml_escape(f, s->first);
    fprintf(f, "</error>");
  } else if (s->n[LCTX_VERDICT_FAIL] || s->n[LCTX_VERDICT_XPASS]) {
    fprintf(f, "<failure message=\"%zu fail, %zu unexpected pass\">",
            s->n[LCTX_VERDICT_FAIL], s->n[LCTX_VERDICT_XPASS]);
    xml_escape(f, s->first);
    fprintf(f, "</failure>");
  } else if (d->xfail && d->xfail[i]) {
    fprintf(f, "<skipped message=\"expected failure: ");
    xml_escape(f, d->xfail_reason[i]);
    fprintf(f, "\"/>");
  } else if (s->n[LCTX_VERDICT_PASS] == 0) {
    fprintf(f, "<skipped message=\"%s\"/>",
            s->n[LCTX_VERDICT_UNSUPPORTED] ? "unsupported" : "not reached");
  }
  fprintf(f, "<system-out>");
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
    fprintf(f, "%s=%zu ", lctx_verdict_name(v), s->n[v]);
  fprintf(f, "</system-out></testcase>\n");
}

/* The diagnoses as test cases of CLASSNAME.diagnoses: a failure each, a
 * known JAX defect's skipped, the diagnosis line its text. */
static void junit_diagnoses(const lctx_report_doc *d, FILE *f,
                            const char *classname) {
  char line[8192];
  for (size_t i = 0; d->diagnoses && i < d->diagnosis_count; i++) {
    const lctx_diagnosis *g = &d->diagnoses[i];
    const char *cls = lctx_diagnosis_class_name(g->cls);
    fprintf(f, "<testcase classname=\"%s.diagnoses\" name=\"", classname);
    xml_escape(f, g->program);
    fprintf(f, " %s\">", cls);
    diagnosis_line(d, i, line);
    if (g->cls == LCTX_DIAGNOSIS_JAX_DEFECT) {
      fprintf(f, "<skipped message=\"known JAX defect: ");
      xml_escape(f, line);
      fprintf(f, "\"/>");
    } else {
      fprintf(f, "<failure message=\"%s: ", cls);
      xml_escape(f, g->fix);
      fprintf(f, "\">");
      xml_escape(f, line);
      fprintf(f, "</failure>");
    }
    fprintf(f, "</testcase>\n");
  }
}

void lctx_report_write_junit(const lctx_report_doc *d, FILE *f) {
  char classname[256];
  lctx_report_classname(d, classname, sizeof classname);
  junit_head(d, f);
  for (size_t i = 0; i < d->report->row_count; i++)
    junit_case(d, f, i, classname);
  junit_diagnoses(d, f, classname);
  fprintf(f, "</testsuite></testsuites>\n");
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static json_t *json_count(size_t n) {
  return json_integer((json_int_t)n);
}

/* Where a verdict is in the plan ("first_at", ...): its source, case index
 * and operation as results.jsonl names them; left out when not known. */
static void json_at(json_t *j, const char *key, lctx_report_at at) {
  static const char *const SOURCES[] = {"cases", "domain", "random"};
  if (!at.known || at.source > 2)
    return;
  json_object_set_new(j, key,
                      json_pack("{s:s, s:o, s:o}", "source", SOURCES[at.source],
                                "index", json_count(at.index), "operation",
                                json_count(at.op)));
}

static json_t *json_rows(const lctx_report_doc *d) {
  const lctx_report *rep = d->report;
  json_t *rows = json_array();
  for (size_t i = 0; i < rep->row_count; i++) {
    const lctx_report_row *s = &rep->rows[i];
    json_t *row = json_object();
    json_object_set_new(row, "id", json_string(s->id));
    if (s->absent)
      json_object_set_new(row, "absent", json_true());
    if (s->not_judged)
      json_object_set_new(row, "not_judged", json_count(s->not_judged));
    for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
      json_object_set_new(row, lctx_verdict_name(v), json_count(s->n[v]));
    if (d->xfail && d->xfail[i])
      json_object_set_new(row, "xfail_reason",
                          lctx_report_json_text(d->xfail_reason[i]));
    if (s->first[0])
      json_object_set_new(row, "first", lctx_report_json_text(s->first));
    if (s->first_case[0])
      json_object_set_new(row, "first_case",
                          lctx_report_json_text(s->first_case));
    if (s->rerun[0])
      json_object_set_new(row, "rerun", lctx_report_json_text(s->rerun));
    if (s->first[0])
      json_at(row, "first_at", s->first_at);
    if (s->drift_explained) {
      json_object_set_new(row, "drift_explained",
                          json_count(s->drift_explained));
      json_object_set_new(row, "drift", lctx_report_json_text(s->drift));
      json_at(row, "drift_at", s->drift_at);
    }
    if (s->drift_new) {
      json_object_set_new(row, "drift_new", json_count(s->drift_new));
      json_object_set_new(row, "drift_new_text",
                          lctx_report_json_text(s->drift_new_text));
      json_at(row, "drift_new_at", s->drift_new_at);
    }
    json_object_set_new(row, "results_kept", json_count(s->kept));
    json_object_set_new(row, "results_not_kept", json_count(s->not_kept));
    json_array_append_new(rows, row);
  }
  return rows;
}

/* The cases: cases = cases_run + cases_skipped + cases_unsupported +
 * cases_not_judged + cases_not_reached = the sum of cases_by_source. */
static void json_cases(json_t *j, const lctx_report *rep) {
  json_object_set_new(j, "cases", json_count(lctx_report_cases_total(rep)));
  if (rep->source_cases[0] + rep->source_cases[1] + rep->source_cases[2]) {
    json_t *src = json_object();
    json_object_set_new(src, "conformance", json_count(rep->source_cases[0]));
    json_object_set_new(src, "domain", json_count(rep->source_cases[1]));
    json_object_set_new(src, "random", json_count(rep->source_cases[2]));
    json_object_set_new(j, "cases_by_source", src);
  }
  json_object_set_new(j, "cases_not_reached",
                      json_count(lctx_report_cases_not_reached(rep)));
  json_object_set_new(j, "cases_run", json_count(rep->cases_run));
  json_object_set_new(j, "cases_unsupported",
                      json_count(rep->cases_unsupported));
  json_object_set_new(j, "cases_absent", json_count(rep->cases_absent));
  json_object_set_new(j, "cases_not_judged", json_count(rep->cases_not_judged));
  if (rep->cases_not_judged) {
    json_t *nj = json_object();
    json_object_set_new(nj, "fact", json_string(rep->not_judged_fact));
    json_object_set_new(nj, "why", lctx_report_json_text(rep->not_judged_why));
    json_t *ids = json_array();
    for (size_t i = 0; i < rep->row_count; i++)
      if (rep->rows[i].not_judged)
        json_array_append_new(ids, json_string(rep->rows[i].id));
    json_object_set_new(nj, "rows", ids);
    json_at(nj, "at", rep->not_judged_at);
    json_object_set_new(j, "not_judged", nj);
  }
  json_object_set_new(j, "cases_skipped", json_count(rep->cases_skipped));
}

/* The caps the run hit: verdicts beyond --keep-failures in a row (counted,
 * not kept; the cap is what a row that dropped some kept), then the
 * others. */
static json_t *json_caps(const lctx_report *rep) {
  size_t not_kept = 0, kept = 0;
  for (size_t i = 0; i < rep->row_count; i++) {
    not_kept += rep->rows[i].not_kept;
    if (rep->rows[i].not_kept && rep->rows[i].kept > kept)
      kept = rep->rows[i].kept;
  }
  json_t *caps = json_array();
  if (not_kept)
    json_array_append_new(
        caps, json_pack("{s:s, s:o, s:o}", "what",
                        "verdicts kept per row (--keep-failures)", "cap",
                        json_count(kept), "dropped", json_count(not_kept)));
  for (size_t i = 0; i < rep->caps_hit_count; i++)
    json_array_append_new(
        caps, json_pack("{s:s, s:o, s:o}", "what", rep->caps_hit[i].what, "cap",
                        json_count(rep->caps_hit[i].cap), "dropped",
                        json_count(rep->caps_hit[i].dropped)));
  return caps;
}

/* The run's first failure, when it had one. */
static void json_first_failure(json_t *j, const lctx_report *rep) {
  if (!rep->failed_once || rep->first_failure_row >= rep->row_count)
    return;
  const lctx_report_row *s = &rep->rows[rep->first_failure_row];
  json_t *ff = json_object();
  json_object_set_new(ff, "row", json_string(s->id));
  json_object_set_new(
      ff, "verdict",
      json_string(lctx_verdict_name(rep->first_failure_verdict)));
  json_object_set_new(ff, "seconds", json_real(rep->first_failure_seconds));
  json_object_set_new(ff, "first", lctx_report_json_text(s->first));
  if (s->rerun[0])
    json_object_set_new(ff, "rerun", lctx_report_json_text(s->rerun));
  json_at(ff, "at", rep->first_failure_at);
  json_object_set_new(j, "first_failure", ff);
}

/* A frame of the user's code, or null. */
static json_t *json_frame(const lctx_user_frame *f, bool function) {
  if (!f->file[0])
    return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "file", lctx_report_json_text(f->file));
  json_object_set_new(o, "line", json_integer(f->line));
  if (function)
    json_object_set_new(o, "function",
                        f->function[0] ? lctx_report_json_text(f->function)
                                       : json_null());
  return o;
}

/* A sweep's diagnoses (diagnose.h). */
static json_t *json_diagnoses(const lctx_report_doc *d) {
  json_t *list = json_array();
  for (size_t i = 0; d->diagnoses && i < d->diagnosis_count; i++) {
    const lctx_diagnosis *g = &d->diagnoses[i];
    json_t *o = json_object(), *plats = json_array();
    for (size_t k = 0; k < g->platform_count; k++)
      json_array_append_new(plats, lctx_report_json_text(g->platforms[k]));
    json_object_set_new(o, "program", lctx_report_json_text(g->program));
    json_object_set_new(o, "case", json_integer((json_int_t)g->plan_case));
    json_object_set_new(o, "platforms", plats);
    json_object_set_new(o, "class",
                        json_string(lctx_diagnosis_class_name(g->cls)));
    json_object_set_new(o, "primitive",
                        g->primitive[0] ? lctx_report_json_text(g->primitive)
                                        : json_null());
    json_object_set_new(
        o, "file", g->file[0] ? lctx_report_json_text(g->file) : json_null());
    json_object_set_new(o, "line", json_integer(g->line));
    json_object_set_new(o, "rule", json_frame(&g->rule, true));
    json_object_set_new(o, "call_site", json_frame(&g->call_site, false));
    json_object_set_new(o, "message", lctx_report_json_text(g->message));
    json_object_set_new(o, "fix", lctx_report_json_text(g->fix));
    json_array_append_new(list, o);
  }
  return list;
}

/* What the run's children did to lctx, and how they were kept away. */
static void json_children(json_t *j, const lctx_report_doc *d) {
  if (d->peak_memory_mb >= 0)
    json_object_set_new(j, "peak_memory_mb", json_real(d->peak_memory_mb));
  json_object_set_new(j, "processes_left_behind_killed",
                      json_count(d->left_behind_killed));
  json_object_set_new(j, "lctx_stops_continued",
                      json_count(d->stops_continued));
  if (d->isolation)
    json_object_set_new(j, "isolation", json_string(d->isolation));
  if (d->stop_signal > 0) {
    char name[32];
    json_object_set_new(
        j, "stopped_by",
        json_string(lctx_sys_signal_name(d->stop_signal, name, sizeof name)));
  }
}

/* The stamp with what says where the report comes from: the spec file,
 * what lctx checked of results.jsonl (seal.h; written only when it did),
 * the implementation's kind, the seed and the shard. */
static json_t *json_head(const lctx_report_doc *d) {
  json_t *j = lctx_report_json_stamp(d);
  json_object_set_new(j, "spec_file", lctx_report_json_text(d->spec_file));
  if (d->results_sealed)
    json_object_set_new(j, "results_sealed", json_true());
  if (d->results_checked)
    json_object_set_new(j, "results_checked", json_true());
  if (d->resume_verified)
    json_object_set_new(j, "resume_verified", json_true());
  json_object_set_new(j, "implementation_kind", json_string(d->impl_kind));
  json_object_set_new(j, "seed", json_integer((json_int_t)d->seed));
  json_t *shard = json_object();
  json_object_set_new(shard, "index", json_integer(d->shard_i));
  json_object_set_new(shard, "count", json_integer(d->shard_n));
  json_object_set_new(j, "shard", shard);
  return j;
}

void lctx_report_write_json(const lctx_report_doc *d, FILE *f) {
  const lctx_report *rep = d->report;
  json_t *j = json_head(d);
  json_object_set_new(j, "interrupted", json_boolean(rep->interrupted));
  json_object_set_new(j, "seconds", json_real(rep->seconds));
  json_cases(j, rep);
  json_object_set_new(j, "spec_gaps", json_count(rep->spec_gaps));
  json_object_set_new(j, "restarts", json_count(rep->restarts));
  json_object_set_new(j, "recycles", json_count(rep->recycles));
  json_object_set_new(j, "modules_judged", json_count(d->modules_judged));
  json_object_set_new(j, "modules_unjudged", json_count(rep->modules_unjudged));
  json_object_set_new(j, "judge_kills", json_count(d->judge_kills));
  json_object_set_new(j, "rows", json_rows(d));
  if (d->per_row_cap)
    json_object_set_new(j, "keep_failures", json_count(d->keep_failures));
  json_object_set_new(j, "caps_hit", json_caps(rep));
  json_object_set_new(j, "stopped_at_first_failure",
                      json_boolean(d->stopped_at_first_failure));
  json_first_failure(j, rep);
  json_children(j, d);
  if (d->diagnosed)
    json_object_set_new(j, "diagnoses", json_diagnoses(d));
  /* What the run came to, by the model's rule (verdict.h), as its result
   * line says it. */
  json_object_set_new(
      j, "result",
      json_string(lctx_report_result_name(lctx_report_result_of(rep))));
  if (json_dumpf(j, f, JSON_INDENT(2)) == 0)
    fputc('\n', f);
  json_decref(j);
}

//===----------------------------------------------------------------------===//
// Writing the files
//===----------------------------------------------------------------------===//

/* Appends one line, "WHO: PATH: WHAT: why" ("PATH: WHAT: why" when `who`
 * is NULL), to the string in `why`. */
static void say(char *why, size_t why_n, const char *who, const char *path,
                const char *what, int errnum) {
  size_t at = strnlen(why, why_n);
  if (at + 1 >= why_n)
    return;
  lctx_escaped esc;
  snprintf(why + at, why_n - at, "%s%s%s%s: %s: %s", at ? "\n" : "",
           who ? who : "", who ? ": " : "", lctx_esc(&esc, path), what,
           lctx_sys_file_error(errnum));
}

/* Writes DIR/NAME with `write`, whole or not at all: into a temporary file
 * renamed over NAME once every byte is out. */
static bool write_file(const lctx_report_doc *d, const char *dir,
                       const char *name,
                       void (*write)(const lctx_report_doc *, FILE *),
                       const char *who, char *why, size_t why_n) {
  char path[4200], tmp[4300];
  if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
      (size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
    say(why, why_n, who, dir, "cannot write", ENAMETOOLONG);
    return false;
  }
  int errnum = 0;
  FILE *f = lctx_sys_fopen_in(tmp, "w");
  if (!f) {
    errnum = errno ? errno : EIO;
    /* the temporary file is the one that cannot be (a link, a folder) */
    say(why, why_n, who, tmp, "cannot write", errnum);
    return false;
  } else {
    errno = 0;
    write(d, f);
    errnum = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !errnum)
      errnum = errno ? errno : EIO;
    if (!errnum && rename(tmp, path) != 0)
      errnum = errno;
    if (errnum)
      unlink(tmp);
  }
  if (errnum)
    say(why, why_n, who, path, "cannot write", errnum);
  return errnum == 0;
}

static const char *const REPORT_NAMES[3] = {"report.json", "report.tap",
                                            "report.junit.xml"};

bool lctx_report_remove_reports(const char *dir, const char *who, char *why,
                                size_t why_n) {
  bool ok = true;
  for (size_t k = 0; k < 3; k++) {
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, REPORT_NAMES[k]) >=
        sizeof path) {
      say(why, why_n, who, dir, "cannot remove the reports", ENAMETOOLONG);
      return false;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
      say(why, why_n, who, path, "cannot remove", errno);
      ok = false;
    }
  }
  return ok;
}

bool lctx_report_save_reports(const lctx_report_doc *d, const char *dir,
                              const char *who, char *why, size_t why_n) {
  /* report.json goes first and comes back last: the files beside it are
   * always those of its run. */
  char path[4200];
  if ((size_t)snprintf(path, sizeof path, "%s/report.json", dir) <
          sizeof path &&
      unlink(path) != 0 && errno != ENOENT) {
    say(why, why_n, who, path, "cannot remove", errno);
    return false;
  }
  bool tap =
      write_file(d, dir, "report.tap", lctx_report_write_tap, who, why, why_n);
  bool junit = write_file(d, dir, "report.junit.xml", lctx_report_write_junit,
                          who, why, why_n);
  bool json = write_file(d, dir, "report.json", lctx_report_write_json, who,
                         why, why_n);
  return tap && junit && json;
}
