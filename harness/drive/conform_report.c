/*
 * conform_report.c - report.tap, report.junit.xml and report.json of a
 * conform run (see conform_report.h).
 */
#include "conform_report.h"

#include "escape.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool lctx_conform_row_failed(const lctx_conform_row *s) {
  return s->n[LCTX_CONFORM_FAIL] || s->n[LCTX_CONFORM_XPASS] ||
         s->n[LCTX_CONFORM_CRASH] || s->n[LCTX_CONFORM_TIMEOUT] ||
         s->n[LCTX_CONFORM_FLAKY];
}

bool lctx_conform_run_failed(const lctx_conform_report *rep) {
  const size_t *t = rep->totals;
  return t[LCTX_CONFORM_FAIL] || t[LCTX_CONFORM_XPASS] ||
         t[LCTX_CONFORM_CRASH] || t[LCTX_CONFORM_TIMEOUT] ||
         t[LCTX_CONFORM_FLAKY] || rep->spec_gaps;
}

//===----------------------------------------------------------------------===//
// UTF-8
//===----------------------------------------------------------------------===//

/* The length of the UTF-8 sequence at `s` (1 to 4) and its code point in
 * *cp, or 0 when the bytes there are no valid sequence (overlong forms,
 * surrogates and code points past U+10FFFF are not). */
static size_t utf8_next(const unsigned char *s, unsigned *cp) {
  unsigned c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
  if (!len)
    return 0;
  unsigned v = c & (0x7f >> len);
  for (size_t k = 1; k < len; k++) {
    if ((s[k] & 0xc0) != 0x80)
      return 0;
    v = (v << 6) | (s[k] & 0x3f);
  }
  if ((len == 3 && v < 0x800) || (len == 4 && v < 0x10000) || v > 0x10ffff ||
      (v >= 0xd800 && v <= 0xdfff))
    return 0;
  *cp = v;
  return len;
}

char *lctx_conform_utf8(char *dst, size_t n, const char *s) {
  size_t k = 0;
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned cp;
    size_t len = utf8_next(p, &cp);
    const char *bytes = len ? (const char *)p : "\xef\xbf\xbd";
    size_t out = len ? len : 3;
    if (k + out >= n)
      break;
    memcpy(dst + k, bytes, out);
    k += out;
    p += len ? len : 1;
  }
  dst[k] = '\0';
  return dst;
}

json_t *lctx_conform_json_text(const char *s) {
  json_t *j = json_string(s);
  if (j)
    return j;
  size_t n = 3 * strlen(s) + 4;
  char *copy = malloc(n);
  if (!copy)
    return json_string("?");
  j = json_string(lctx_conform_utf8(copy, n, s));
  free(copy);
  return j ? j : json_string("?");
}

/* XML character data or an attribute value: markup escaped, UTF-8 kept,
 * bytes that are not UTF-8 and characters XML 1.0 forbids (controls other
 * than tab and newline, DEL, U+FFFE and U+FFFF) written as U+FFFD. */
static void xml_escape(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned cp;
    size_t len = utf8_next(p, &cp);
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
    size_t len = utf8_next(p, &cp);
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

void lctx_conform_classname(const lctx_conform_doc *d, char *dst, size_t n) {
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

void lctx_conform_stamp_text(const lctx_conform_doc *d, FILE *f,
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

json_t *lctx_conform_json_stamp(const lctx_conform_doc *d) {
  json_t *j = json_object();
  json_object_set_new(j, "spec_version", json_string(d->spec_version));
  if (d->jax_release)
    json_object_set_new(j, "jax_release",
                        lctx_conform_json_text(d->jax_release));
  json_object_set_new(j, "lctx_version", json_string(d->lctx_version));
  json_object_set_new(j, "implementation",
                      lctx_conform_json_text(d->impl_name));
  json_object_set_new(j, "implementation_version",
                      lctx_conform_json_text(d->impl_version));
  return j;
}

//===----------------------------------------------------------------------===//
// TAP
//===----------------------------------------------------------------------===//

/* A directive's reason on one line: newlines and '#' would end it. */
static void tap_reason(FILE *f, const char *s) {
  char text[3 * LCTX_CONFORM_REASON_MAX + 4];
  lctx_conform_utf8(text, sizeof text, s);
  for (char *p = text; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == '#' || *p == '\\')
      *p = ' ';
  fputs(text, f);
}

void lctx_conform_write_tap(const lctx_conform_doc *d, FILE *f) {
  const lctx_conform_report *rep = d->report;
  fprintf(f, "TAP version 13\n1..%zu\n", rep->row_count);
  lctx_conform_stamp_text(d, f, "# ");
  for (size_t i = 0; i < rep->row_count; i++) {
    const lctx_conform_row *s = &rep->rows[i];
    size_t total = 0;
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      total += s->n[v];
    bool failed = lctx_conform_row_failed(s);
    bool todo = !failed && s->n[LCTX_CONFORM_XFAIL] > 0;
    bool skip = !failed && !todo && total == s->n[LCTX_CONFORM_UNSUPPORTED];
    fprintf(f, "%s %zu - %s", failed || todo ? "not ok" : "ok", i + 1, s->id);
    if (todo) {
      fputs(" # TODO ", f);
      tap_reason(f, d->xfail && d->xfail[i] ? d->xfail_reason[i]
                                            : "expected failure");
    } else if (skip) {
      fputs(total ? " # SKIP unsupported" : " # SKIP not reached", f);
    }
    fprintf(f, "\n  ---\n");
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      fprintf(f, "  %s: %zu\n", lctx_conform_verdict_name(v), s->n[v]);
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
}

//===----------------------------------------------------------------------===//
// JUnit
//===----------------------------------------------------------------------===//

/* The JUnit <testsuite> line and its stamp as <properties>. */
static void junit_head(const lctx_conform_doc *d, FILE *f) {
  const lctx_conform_report *rep = d->report;
  size_t failures = 0, errors = 0, skipped = 0;
  for (size_t i = 0; i < rep->row_count; i++) {
    const lctx_conform_row *s = &rep->rows[i];
    if (s->n[LCTX_CONFORM_CRASH] || s->n[LCTX_CONFORM_TIMEOUT] ||
        s->n[LCTX_CONFORM_FLAKY])
      errors++;
    else if (s->n[LCTX_CONFORM_FAIL] || s->n[LCTX_CONFORM_XPASS])
      failures++;
    else if ((d->xfail && d->xfail[i]) || s->n[LCTX_CONFORM_PASS] == 0)
      skipped++;
  }
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f,
          "<testsuites><testsuite name=\"lctx conform\" tests=\"%zu\" "
          "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
          rep->row_count, failures, errors, skipped, rep->seconds);
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
static void junit_case(const lctx_conform_doc *d, FILE *f, size_t i,
                       const char *classname) {
  const lctx_conform_row *s = &d->report->rows[i];
  fprintf(f, "<testcase classname=\"%s\" name=\"", classname);
  xml_escape(f, s->id);
  fprintf(f, "\">");
  if (s->n[LCTX_CONFORM_CRASH] || s->n[LCTX_CONFORM_TIMEOUT] ||
      s->n[LCTX_CONFORM_FLAKY]) {
    fprintf(f, "<error message=\"%zu crash, %zu timeout, %zu flaky\">",
            s->n[LCTX_CONFORM_CRASH], s->n[LCTX_CONFORM_TIMEOUT],
            s->n[LCTX_CONFORM_FLAKY]);
    xml_escape(f, s->first);
    fprintf(f, "</error>");
  } else if (s->n[LCTX_CONFORM_FAIL] || s->n[LCTX_CONFORM_XPASS]) {
    fprintf(f, "<failure message=\"%zu fail, %zu unexpected pass\">",
            s->n[LCTX_CONFORM_FAIL], s->n[LCTX_CONFORM_XPASS]);
    xml_escape(f, s->first);
    fprintf(f, "</failure>");
  } else if (d->xfail && d->xfail[i]) {
    fprintf(f, "<skipped message=\"expected failure: ");
    xml_escape(f, d->xfail_reason[i]);
    fprintf(f, "\"/>");
  } else if (s->n[LCTX_CONFORM_PASS] == 0) {
    fprintf(f, "<skipped message=\"%s\"/>",
            s->n[LCTX_CONFORM_UNSUPPORTED] ? "unsupported" : "not reached");
  }
  fprintf(f, "<system-out>");
  for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
    fprintf(f, "%s=%zu ", lctx_conform_verdict_name(v), s->n[v]);
  fprintf(f, "</system-out></testcase>\n");
}

void lctx_conform_write_junit(const lctx_conform_doc *d, FILE *f) {
  char classname[256];
  lctx_conform_classname(d, classname, sizeof classname);
  junit_head(d, f);
  for (size_t i = 0; i < d->report->row_count; i++)
    junit_case(d, f, i, classname);
  fprintf(f, "</testsuite></testsuites>\n");
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static json_t *json_count(size_t n) {
  return json_integer((json_int_t)n);
}

static json_t *json_rows(const lctx_conform_doc *d) {
  const lctx_conform_report *rep = d->report;
  json_t *rows = json_array();
  for (size_t i = 0; i < rep->row_count; i++) {
    const lctx_conform_row *s = &rep->rows[i];
    json_t *row = json_object();
    json_object_set_new(row, "id", json_string(s->id));
    if (s->absent)
      json_object_set_new(row, "absent", json_true());
    for (int v = 0; v < LCTX_CONFORM_VERDICT_COUNT; v++)
      json_object_set_new(row, lctx_conform_verdict_name(v),
                          json_count(s->n[v]));
    if (d->xfail && d->xfail[i])
      json_object_set_new(row, "xfail_reason",
                          lctx_conform_json_text(d->xfail_reason[i]));
    if (s->first[0])
      json_object_set_new(row, "first", lctx_conform_json_text(s->first));
    if (s->first_case[0])
      json_object_set_new(row, "first_case",
                          lctx_conform_json_text(s->first_case));
    if (s->rerun[0])
      json_object_set_new(row, "rerun", lctx_conform_json_text(s->rerun));
    if (s->drift_explained) {
      json_object_set_new(row, "drift_explained",
                          json_count(s->drift_explained));
      json_object_set_new(row, "drift", lctx_conform_json_text(s->drift));
    }
    json_object_set_new(row, "results_kept", json_count(s->kept));
    json_object_set_new(row, "results_not_kept", json_count(s->not_kept));
    json_array_append_new(rows, row);
  }
  return rows;
}

void lctx_conform_write_json(const lctx_conform_doc *d, FILE *f) {
  const lctx_conform_report *rep = d->report;
  json_t *j = lctx_conform_json_stamp(d);
  json_object_set_new(j, "spec_file", lctx_conform_json_text(d->spec_file));
  json_object_set_new(j, "implementation_kind", json_string(d->impl_kind));
  json_object_set_new(j, "seed", json_integer((json_int_t)d->seed));
  json_t *shard = json_object();
  json_object_set_new(shard, "index", json_integer(d->shard_i));
  json_object_set_new(shard, "count", json_integer(d->shard_n));
  json_object_set_new(j, "shard", shard);
  json_object_set_new(j, "interrupted", json_boolean(rep->interrupted));
  json_object_set_new(j, "seconds", json_real(rep->seconds));
  json_object_set_new(j, "cases_run", json_count(rep->cases_run));
  json_object_set_new(j, "cases_unsupported",
                      json_count(rep->cases_unsupported));
  json_object_set_new(j, "cases_absent", json_count(rep->cases_absent));
  json_object_set_new(j, "cases_skipped", json_count(rep->cases_skipped));
  json_object_set_new(j, "spec_gaps", json_count(rep->spec_gaps));
  json_object_set_new(j, "restarts", json_count(rep->restarts));
  json_object_set_new(j, "recycles", json_count(rep->recycles));
  json_object_set_new(j, "modules_judged", json_count(d->modules_judged));
  json_object_set_new(j, "judge_kills", json_count(d->judge_kills));
  json_object_set_new(j, "rows", json_rows(d));
  json_object_set_new(j, "stopped_at_first_failure",
                      json_boolean(d->stopped_at_first_failure));
  if (rep->failed_once && rep->first_failure_row < rep->row_count) {
    const lctx_conform_row *s = &rep->rows[rep->first_failure_row];
    json_t *ff = json_object();
    json_object_set_new(ff, "row", json_string(s->id));
    json_object_set_new(
        ff, "verdict",
        json_string(lctx_conform_verdict_name(rep->first_failure_verdict)));
    json_object_set_new(ff, "seconds", json_real(rep->first_failure_seconds));
    json_object_set_new(ff, "first", lctx_conform_json_text(s->first));
    if (s->rerun[0])
      json_object_set_new(ff, "rerun", lctx_conform_json_text(s->rerun));
    json_object_set_new(j, "first_failure", ff);
  }
  if (d->peak_memory_mb >= 0)
    json_object_set_new(j, "peak_memory_mb", json_real(d->peak_memory_mb));
  if (json_dumpf(j, f, JSON_INDENT(2)) == 0)
    fputc('\n', f);
  json_decref(j);
}

//===----------------------------------------------------------------------===//
// Writing the files
//===----------------------------------------------------------------------===//

/* Writes DIR/NAME with `write`, whole or not at all: into a temporary file
 * renamed over NAME once every byte is out. */
static bool write_file(const lctx_conform_doc *d, const char *dir,
                       const char *name,
                       void (*write)(const lctx_conform_doc *, FILE *),
                       const char *who, FILE *err) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int errnum = 0;
  FILE *f = fopen(tmp, "w");
  if (!f) {
    errnum = errno ? errno : EIO;
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
  if (errnum) {
    lctx_escaped esc;
    fprintf(err, "%s: %s: cannot write: %s\n", who, lctx_esc(&esc, path),
            strerror(errnum));
  }
  return errnum == 0;
}

bool lctx_conform_write_reports(const lctx_conform_doc *d, const char *dir,
                                const char *who, FILE *err) {
  bool tap = write_file(d, dir, "report.tap", lctx_conform_write_tap, who, err);
  bool junit = write_file(d, dir, "report.junit.xml", lctx_conform_write_junit,
                          who, err);
  bool json =
      write_file(d, dir, "report.json", lctx_conform_write_json, who, err);
  return tap && junit && json;
}
