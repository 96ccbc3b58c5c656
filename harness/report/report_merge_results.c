/*
 * report_merge_results.c - checking and copying the shards' results.jsonl
 * lines into the merged one (see report_merge_results.h).
 */
#include "report_merge_results.h"

#include "report_read.h"
#include "report_text.h"
#include "sys.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(LCTX_REPORT_MERGE_MAX_LINE == 1 << 20,
               "copy_results says 1 MiB");

/* The merge of the lines: the rows they may name, and the lines taken so
 * far, as hashes of what names them (a sweep's case, a conform verdict's
 * source, name, index, operation and row): a line given twice refuses the
 * merge. Open addressing; 0 is free. */
typedef struct results {
  const lctx_report *rows;
  const lctx_merge_part *parts;
  unsigned long long *seen;
  size_t seen_count, seen_cap;
  struct entry *entries; /* the lines to write, in the order read */
  size_t entry_count, entry_cap;
  json_t *stamp; /* the first part's stamp line */
  lctx_buf *error;
} results;

static lctx_verdict verdict_named(const char *name) {
  for (int v = 0; v < LCTX_VERDICT_COUNT; v++)
    if (name && strcmp(name, lctx_verdict_name(v)) == 0)
      return (lctx_verdict)v;
  return LCTX_VERDICT_COUNT;
}

/* Whether `j`'s `key` is absent or a string. */
static bool string_or_absent(const json_t *j, const char *key) {
  const json_t *x = json_object_get(j, key);
  return !x || json_is_string(x);
}

/* Whether `j`'s `key` is an integer from 0 to 2^40 (a count or an index
 * no run reaches beyond). */
static bool count_at(const json_t *j, const char *key) {
  const json_t *x = json_object_get(j, key);
  return json_is_integer(x) && json_integer_value(x) >= 0 &&
         json_integer_value(x) <= LCTX_REPORT_MAX_COUNT;
}

/* FNV-1a of `n` bytes, continued from `h`. */
static unsigned long long hash_bytes(unsigned long long h, const void *p,
                                     size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* What names results line `j`: a sweep's case number, or a conform
 * verdict's source, name, index, operation and row. */
static unsigned long long line_key(const json_t *j, bool sweep) {
  unsigned long long h = 1469598103934665603ull;
  static const char *const KEYS[] = {"source", "name", "index", "operation",
                                     "row"};
  for (size_t i = 0; i < (sweep ? 1 : 5); i++) {
    const json_t *x = json_object_get(j, sweep ? "case" : KEYS[i]);
    char text[64];
    const char *t = text;
    if (json_is_string(x))
      t = json_string_value(x);
    else
      snprintf(text, sizeof text, "%lld", (long long)json_integer_value(x));
    h = hash_bytes(h, t, strlen(t) + 1);
  }
  return h ? h : 1;
}

/* Takes `key`: false when it was taken before (or no memory is left: the
 * caller refuses either way, saying which). */
static bool take_key(results *m, unsigned long long key, bool *no_memory) {
  *no_memory = false;
  if (2 * (m->seen_count + 1) > m->seen_cap) {
    size_t cap = m->seen_cap ? m->seen_cap * 2 : 1024;
    unsigned long long *t = calloc(cap, sizeof *t);
    if (!t) {
      *no_memory = true;
      return false;
    }
    for (size_t i = 0; i < m->seen_cap; i++) {
      if (!m->seen[i])
        continue;
      size_t at = (size_t)(m->seen[i] % cap);
      while (t[at])
        at = (at + 1) % cap;
      t[at] = m->seen[i];
    }
    free(m->seen);
    m->seen = t;
    m->seen_cap = cap;
  }
  size_t at = (size_t)(key % m->seen_cap);
  for (; m->seen[at]; at = (at + 1) % m->seen_cap) {
    if (m->seen[at] == key)
      return false;
  }
  m->seen[at] = key;
  m->seen_count++;
  return true;
}

/* The row index of `row` among the merged rows, or SIZE_MAX. */
static size_t row_index(const results *m, const char *row) {
  for (size_t k = 0; row && k < m->rows->row_count; k++)
    if (strcmp(row, m->rows->rows[k].id) == 0)
      return k;
  return SIZE_MAX;
}

/* Whether `row` is the id of one of the merged rows. */
static bool known_row(const results *m, const char *row) {
  return row_index(m, row) != SIZE_MAX;
}

/* What is wrong with verdict line `j` of a conform shard, or NULL: it is
 * an object as conform writes one (stream_verdict in conform.c): source,
 * index, name, operation, row (of the merged rows), verdict, and
 * optionally detail, expected, actual and drift as strings and case as an
 * object. */
static const char *bad_verdict_line(const results *m, const json_t *j) {
  static const char *const TEXTS[] = {"detail", "expected", "actual", "drift"};
  const json_t *c = json_object_get(j, "case");
  if (!json_is_object(j))
    return "not a JSON object";
  if (!json_is_string(json_object_get(j, "source")) ||
      !json_is_string(json_object_get(j, "name")))
    return "field 'source' or 'name' is missing or not a string";
  if (!count_at(j, "index") || !count_at(j, "operation"))
    return "field 'index' or 'operation' is missing or not a count";
  if (!known_row(m, json_string_value(json_object_get(j, "row"))))
    return "field 'row' is missing or not a row of the reports";
  if (verdict_named(json_string_value(json_object_get(j, "verdict"))) ==
      LCTX_VERDICT_COUNT)
    return "field 'verdict' is missing or not a verdict";
  for (size_t i = 0; i < sizeof TEXTS / sizeof TEXTS[0]; i++)
    if (!string_or_absent(j, TEXTS[i]))
      return "field 'detail', 'expected', 'actual' or 'drift' is not a "
             "string";
  if (c && !json_is_object(c))
    return "field 'case' is not an object";
  return NULL;
}

/* What is wrong with case line `j` of an `lctx sweep` shard, or NULL: an
 * object as lctx_sweep_write_line (sweep_case.c) writes one: case a
 * count, program a string, platforms an array of strings, verdicts an
 * array of objects with a row of the merged rows, a verdict, and key and
 * detail strings when present. */
static const char *bad_sweep_line(const results *m, const json_t *j) {
  const json_t *plats = json_object_get(j, "platforms");
  const json_t *verdicts = json_object_get(j, "verdicts"), *v;
  size_t i;
  if (!json_is_object(j))
    return "not a JSON object";
  if (!count_at(j, "case") || !json_is_string(json_object_get(j, "program")))
    return "field 'case' or 'program' is missing or of the wrong kind";
  if (!json_is_array(plats) || !json_is_array(verdicts))
    return "field 'platforms' or 'verdicts' is missing or not an array";
  json_array_foreach(plats, i, v) {
    if (!json_is_string(v))
      return "a platform is not a string";
  }
  json_array_foreach(verdicts, i, v) {
    if (!known_row(m, json_string_value(json_object_get(v, "row"))) ||
        verdict_named(json_string_value(json_object_get(v, "verdict"))) ==
            LCTX_VERDICT_COUNT ||
        !string_or_absent(v, "key") || !string_or_absent(v, "detail"))
      return "a verdict without a row of the reports and a verdict";
  }
  return NULL;
}

/* What is wrong with the stamp line `j` (a shard's first line), or NULL;
 * *sweep: whether it is the stamp of an `lctx sweep` (with "sweep"),
 * whose shard must be `shard_i` of `shard_n` (its report.json's) and whose
 * plan (its "cases", else programs times lists) bounds its case numbers
 * (`*cases`). */
static const char *bad_stamp_line(const json_t *j, bool *sweep,
                                  unsigned shard_i, unsigned shard_n,
                                  unsigned long long *cases) {
  const json_t *plan = json_object_get(j, "sweep");
  if (json_is_object(plan)) {
    const json_t *si = json_object_get(plan, "shard_index");
    const json_t *sn = json_object_get(plan, "shard_count");
    if (!count_at(plan, "shard_index") || !count_at(plan, "shard_count") ||
        json_integer_value(si) != (json_int_t)shard_i ||
        json_integer_value(sn) != (json_int_t)shard_n)
      return "the sweep stamp's shard_index and shard_count are not its "
             "report.json's shard";
    if (!count_at(plan, "programs") || !count_at(plan, "lists") ||
        json_integer_value(json_object_get(plan, "lists")) < 1)
      return "the sweep stamp's programs or lists is not a count (lists at "
             "least 1)";
    *cases =
        (unsigned long long)json_integer_value(
            json_object_get(plan, "programs")) *
        (unsigned long long)json_integer_value(json_object_get(plan, "lists"));
    /* Programs that declare their lists: the plan's cases, said. */
    if (json_object_get(plan, "cases") && !count_at(plan, "cases"))
      return "the sweep stamp's cases is not a count";
    if (json_object_get(plan, "cases"))
      *cases = (unsigned long long)json_integer_value(
          json_object_get(plan, "cases"));
  }
  static const char *const KEYS[] = {"implementation", "implementation_version",
                                     "spec_version", "lctx_version"};
  if (!json_is_object(j))
    return "not a JSON object (the stamp line)";
  *sweep = json_is_object(json_object_get(j, "sweep"));
  for (size_t i = 0; i < (*sweep ? 2 : 4); i++)
    if (!json_is_string(json_object_get(j, KEYS[i])))
      return "not a stamp line: field 'implementation', "
             "'implementation_version', 'spec_version' or 'lctx_version' is "
             "missing or not a string";
  return NULL;
}

/* One line of a part kept for the merged file: where it is (its part's
 * file, offset and length, its hash to find it unchanged), where its
 * verdict is in the plan, and its row (a conform verdict's; SIZE_MAX for a
 * sweep's case line, which no cap counts). */
typedef struct entry {
  lctx_report_at at;
  size_t part, seq, row;
  off_t offset;
  size_t length;
  unsigned long long hash;
} entry;

/* Adds an entry; false when no memory is left. */
static bool add_entry(results *m, entry e) {
  if (m->entry_count == m->entry_cap) {
    size_t cap = m->entry_cap ? m->entry_cap * 2 : 1024;
    entry *t = realloc(m->entries, cap * sizeof *t);
    if (!t)
      return false;
    m->entries = t;
    m->entry_cap = cap;
  }
  e.seq = m->entry_count;
  m->entries[m->entry_count++] = e;
  return true;
}

/* The entry of checked line `j` (at `offset`, `n` bytes) of part `part`. */
static entry entry_of(const results *m, const json_t *j, bool sweep,
                      size_t part, off_t offset, const char *line, size_t n) {
  entry e = {.part = part, .offset = offset, .length = n, .row = SIZE_MAX};
  e.hash = hash_bytes(1469598103934665603ull, line, n);
  size_t index =
      (size_t)json_integer_value(json_object_get(j, sweep ? "case" : "index"));
  if (sweep) {
    e.at = (lctx_report_at){true, 0, index, 0};
    return e;
  }
  e.at = lctx_report_at_of(
      json_string_value(json_object_get(j, "source")), index,
      (size_t)json_integer_value(json_object_get(j, "operation")));
  e.row = row_index(m, json_string_value(json_object_get(j, "row")));
  return e;
}

/* Why line `k` (`j`, NULL when `over` or not JSON: `jerr`) of a part
 * cannot be merged, or NULL. */
static const char *bad_line(results *m, const json_t *j, size_t k, bool over,
                            const json_error_t *jerr, bool *sweep,
                            const lctx_merge_part *part,
                            unsigned long long *cases) {
  bool no_memory = false;
  const char *why =
      over     ? "longer than 1 MiB, the limit of a line"
      : !j     ? jerr->text
      : k == 1 ? bad_stamp_line(j, sweep, part->shard_i, part->shard_n, cases)
      : *sweep ? bad_sweep_line(m, j)
               : bad_verdict_line(m, j);
  if (!why && k > 1 && *sweep &&
      (unsigned long long)json_integer_value(json_object_get(j, "case")) >=
          *cases)
    why = "its case is past the sweep's plan (programs times lists)";
  if (!why && k > 1 && !take_key(m, line_key(j, *sweep), &no_memory))
    why = no_memory ? "out of memory"
          : *sweep  ? "its case is given twice (in this shard or another)"
                    : "its verdict (source, name, index, operation, row) is "
                      "given twice";
  return why;
}

/* Reads the lines of FROM (results.jsonl of part `pi`), each checked, into
 * entries (the stamp line into m->stamp when it has none yet). False when
 * FROM cannot be opened (*opened false; *errnum says why) or a line is
 * refused (said in m->error, naming FROM and the line). */
static bool index_results(results *m, const char *from, size_t pi, bool *opened,
                          int *errnum) {
  const lctx_merge_part *part = &m->parts[pi];
  bool sweep = false;
  unsigned long long cases = 0;
  FILE *f = lctx_sys_fopen_input(from);
  *errnum = f ? 0 : errno;
  *opened = f != NULL;
  char *line = f ? malloc(LCTX_REPORT_MERGE_MAX_LINE + 1) : NULL;
  if (!line) {
    if (f)
      fclose(f);
    return f ? lctx_report_say(m->error, "out of memory") : false;
  }
  bool over, ok = true;
  long n;
  off_t offset = ftello(f);
  for (size_t k = 1;
       ok && (n = lctx_sys_read_line(f, line, LCTX_REPORT_MERGE_MAX_LINE + 1,
                                     &over)) >= 0;
       k++, offset = ftello(f)) {
    json_error_t jerr;
    json_t *j = over ? NULL : json_loadb(line, (size_t)n, 0, &jerr);
    const char *why = bad_line(m, j, k, over, &jerr, &sweep, part, &cases);
    if (!why && k > 1 &&
        !add_entry(m, entry_of(m, j, sweep, pi, offset, line, (size_t)n)))
      why = "out of memory";
    if (why)
      ok = lctx_report_say(
          m->error,
          "%s:%zu: not a results.jsonl line of lctx conform or sweep (%s); "
          "nothing merged",
          from, k, why);
    else if (k == 1 && !m->stamp)
      m->stamp = json_incref(j);
    json_decref(j);
  }
  free(line);
  fclose(f);
  return ok;
}

/* The parts' lines indexed: the stamp of the first part that has a
 * results.jsonl, then every part's lines; *any: one had. */
static bool index_parts(results *m, size_t count, bool *any,
                        lctx_buf *warnings) {
  char from[4200];
  for (size_t i = 0; i < count; i++) {
    if (!m->parts[i].dir)
      continue;
    snprintf(from, sizeof from, "%s/results.jsonl", m->parts[i].dir);
    bool opened;
    int errnum;
    if (index_results(m, from, i, &opened, &errnum))
      *any = true;
    else if (opened)
      return false;
    else
      lctx_report_warn(
          warnings, "%s: %s; the merged results.jsonl lacks its verdicts", from,
          errnum ? lctx_sys_file_error(errnum) : "not a regular file");
  }
  return true;
}

/* Plan order; lines of one place in the order read. */
static int by_place(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (lctx_report_at_before(x->at, y->at))
    return -1;
  if (lctx_report_at_before(y->at, x->at))
    return 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The merged stamp line: the first part's, without its run's id (the
 * lines are of several runs) and, a sweep's, for the whole plan. */
static void write_stamp(results *m, FILE *to) {
  json_object_del(m->stamp, "run_id");
  json_t *plan = json_object_get(m->stamp, "sweep");
  if (json_is_object(plan)) {
    json_object_set_new(plan, "shard_index", json_integer(1));
    json_object_set_new(plan, "shard_count", json_integer(1));
  }
  char *text = json_dumps(m->stamp, JSON_COMPACT);
  if (text)
    fprintf(to, "%s\n", text);
  else
    fputs("{}\n", to); /* out of memory; ferror says nothing */
  free(text);
}

/* Copies entry `e`'s line from its part's file (`*f`, opened for `*open`,
 * SIZE_MAX: none) into `to`; false (said) when it is no longer there as
 * read. */
static bool copy_entry(results *m, const entry *e, FILE **f, size_t *open,
                       char *line, FILE *to) {
  char from[4200];
  snprintf(from, sizeof from, "%s/results.jsonl", m->parts[e->part].dir);
  if (*open != e->part) {
    if (*f)
      fclose(*f);
    *f = lctx_sys_fopen_input(from);
    *open = *f ? e->part : SIZE_MAX;
  }
  if (!*f || fseeko(*f, e->offset, SEEK_SET) != 0 ||
      fread(line, 1, e->length, *f) != e->length ||
      hash_bytes(1469598103934665603ull, line, e->length) != e->hash)
    return lctx_report_say(
        m->error, "%s: changed while it was merged; nothing merged", from);
  fwrite(line, 1, e->length, to);
  fputc('\n', to);
  return true;
}

/* The indexed lines into `to` in plan order, at most `keep` of a row. */
static bool write_entries(results *m, size_t keep, FILE *to) {
  if (m->entry_count) /* no lines: no array */
    qsort(m->entries, m->entry_count, sizeof *m->entries, by_place);
  size_t kept[LCTX_SPEC_MAX_ROWS] = {0};
  char *line = malloc(LCTX_REPORT_MERGE_MAX_LINE + 1);
  if (!line)
    return lctx_report_say(m->error, "out of memory");
  FILE *f = NULL;
  size_t open = SIZE_MAX;
  bool ok = true;
  for (size_t i = 0; ok && i < m->entry_count; i++) {
    const entry *e = &m->entries[i];
    if (e->row != SIZE_MAX && kept[e->row]++ >= keep)
      continue; /* past the cap, as the unsharded run */
    ok = copy_entry(m, e, &f, &open, line, to);
  }
  if (f)
    fclose(f);
  free(line);
  return ok;
}

bool lctx_report_merge_results(const char *out_dir, const lctx_report *rows,
                               const lctx_merge_part *parts, size_t count,
                               size_t keep, lctx_buf *warnings,
                               lctx_buf *error) {
  char path[4200], tmp[4300];
  snprintf(path, sizeof path, "%s/results.jsonl", out_dir);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  results m = {.rows = rows, .parts = parts, .error = error};
  bool any = false;
  bool refused = !index_parts(&m, count, &any, warnings);
  FILE *to = refused || !any ? NULL : lctx_sys_fopen_in(tmp, "w");
  if (!refused && any && !to) {
    lctx_report_say(error, "%s: cannot write: %s", tmp,
                    lctx_sys_file_error(errno));
    refused = true;
  }
  if (to) {
    write_stamp(&m, to);
    refused = !write_entries(&m, keep, to);
  }
  free(m.seen);
  free(m.entries);
  json_decref(m.stamp);
  if (!to)
    return !refused;
  bool ok = !ferror(to);
  ok = fclose(to) == 0 && ok;
  if (ok && !refused)
    ok = rename(tmp, path) == 0;
  int errnum = ok ? 0 : errno;
  if (!ok || refused)
    unlink(tmp);
  if (!ok && !refused)
    lctx_report_say(error, "%s: cannot write: %s", path,
                    lctx_sys_file_error(errnum ? errnum : EIO));
  return ok && !refused;
}
