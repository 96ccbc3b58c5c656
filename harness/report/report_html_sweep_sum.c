/*
 * report_html_sweep_sum.c - a sweep's results.jsonl summed up for the HTML
 * page (see report_html_sweep_sum.h).
 */
#include "report_html_sweep_sum.h"

#include "report_text.h"
#include "sys.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const VERDICT_NAMES[] = {LCTX_HTML_VERDICTS};

/* The index of verdict `name` in LCTX_HTML_VERDICTS, or -1. */
static int verdict_index(const char *name) {
  for (int i = 0; name && i < LCTX_HTML_VERDICT_COUNT; i++)
    if (strcmp(name, VERDICT_NAMES[i]) == 0)
      return i;
  return -1;
}

/* A copy of `s` cut to at most `max` bytes (at a UTF-8 boundary, saying
 * so), or NULL. */
static char *cut(const char *s, size_t max) {
  size_t n = strlen(s);
  if (n <= max)
    return strdup(s);
  while (n > 0 && (n > max || ((unsigned char)s[n] & 0xc0) == 0x80))
    n--;
  char *c = malloc(n + 32);
  if (c)
    snprintf(c, n + 32, "%.*s [... cut at %zu bytes]", (int)n, s, n);
  return c;
}

/* Room in *pp, holding `n` items of `size` bytes, for one more (the
 * capacity doubles at 4, 8, 16, ...). */
static bool room(void *pp, size_t n, size_t size) {
  void **p = pp;
  if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
    return true;
  void *q = realloc(*p, (n ? 2 * n : 4) * size);
  if (q)
    *p = q;
  return q != NULL;
}

/* While a sweep's results.jsonl is read: the maps from names to indices
 * and the hashes of the failing programs past the cap. */
typedef struct sweep_reader {
  lctx_html_sweep *s;
  json_t *groups, *programs, *lists;
  uint64_t *left; ///< FNV-1a of the programs left out
  size_t left_count;
} sweep_reader;

/* Why case line `j` is malformed, or NULL: "case" an integer, "program" a
 * string of 1 to 512 bytes, "platforms" 1 to LCTX_HTML_SWEEP_MAX_LEN
 * strings of 1 to 64 bytes, "verdicts" objects with a "row" string of 1 to
 * 15 bytes, a known "verdict" and "key", "detail" strings or absent. */
static const char *malformed(const json_t *j) {
  const char *program = json_string_value(json_object_get(j, "program"));
  const json_t *plats = json_object_get(j, "platforms");
  const json_t *verdicts = json_object_get(j, "verdicts"), *g, *v;
  if (!json_is_object(j) || !json_is_integer(json_object_get(j, "case")))
    return "not an object with an integer \"case\"";
  if (!program || !*program || strlen(program) > 512)
    return "no \"program\" of 1 to 512 bytes";
  if ((g = json_object_get(j, "group")) &&
      (!json_is_string(g) || strlen(json_string_value(g)) > 512))
    return "a \"group\" that is not a string of at most 512 bytes";
  if (!json_is_array(plats) || json_array_size(plats) == 0 ||
      json_array_size(plats) > LCTX_HTML_SWEEP_MAX_LEN)
    return "no \"platforms\" array of 1 to 16 platforms";
  size_t i;
  json_array_foreach(plats, i, v) {
    size_t n = json_is_string(v) ? strlen(json_string_value(v)) : 0;
    if (n == 0 || n > 64)
      return "a platform that is not a string of 1 to 64 bytes";
  }
  if (!json_is_array(verdicts))
    return "no \"verdicts\" array";
  json_array_foreach(verdicts, i, v) {
    const char *row = json_string_value(json_object_get(v, "row"));
    const json_t *key = json_object_get(v, "key");
    const json_t *detail = json_object_get(v, "detail");
    if (!row || !*row || strlen(row) > 15)
      return "a verdict without a \"row\" of 1 to 15 bytes";
    if (verdict_index(json_string_value(json_object_get(v, "verdict"))) < 0)
      return "a verdict that is none of pass, fail, xfail, xpass, crash, "
             "timeout, flaky, unsupported";
    if ((key && !json_is_string(key)) || (detail && !json_is_string(detail)))
      return "a verdict whose \"key\" or \"detail\" is not a string";
  }
  const json_t *o = json_object_get(j, "outcome");
  return o && !json_is_string(o) ? "an \"outcome\" that is not a string" : NULL;
}

/* The group of `name`, added when new (past the cap: one row for the
 * rest). */
static lctx_html_sweep_group *group_for(sweep_reader *rd, const char *name) {
  lctx_html_sweep *s = rd->s;
  if (s->group_count >= LCTX_HTML_SWEEP_MAX_GROUPS - 1 &&
      !json_object_get(rd->groups, name))
    name = "(the other groups)";
  json_t *at = json_object_get(rd->groups, name);
  if (at)
    return &s->groups[json_integer_value(at)];
  if (!room(&s->groups, s->group_count, sizeof *s->groups))
    return NULL;
  lctx_html_sweep_group *g = &s->groups[s->group_count];
  memset(g, 0, sizeof *g);
  g->name = strdup(name);
  json_object_set_new(rd->groups, name,
                      json_integer((json_int_t)s->group_count));
  s->group_count++;
  return g;
}

/* The index of platform list `plats` among the sweep's lists, added when
 * new, or -1 past the cap. */
static long list_for(sweep_reader *rd, const json_t *plats) {
  lctx_html_sweep *s = rd->s;
  char text[LCTX_HTML_SWEEP_MAX_LEN * 68] = "";
  size_t i, at = 0;
  json_t *p;
  json_array_foreach(plats, i, p) {
    at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", i ? ", " : "",
                           json_string_value(p));
  }
  json_t *known = json_object_get(rd->lists, text);
  if (known)
    return (long)json_integer_value(known);
  if (s->list_count >= LCTX_HTML_SWEEP_MAX_LISTS)
    return -1;
  s->lists[s->list_count] = strdup(text);
  s->list_len[s->list_count] = json_array_size(plats);
  json_object_set_new(rd->lists, text, json_integer((json_int_t)s->list_count));
  return (long)s->list_count++;
}

/* The failing program `name`, added when new, or NULL past the cap (its
 * hash kept, to count the programs left out). */
static lctx_html_sweep_program *program_for(sweep_reader *rd,
                                            const char *name) {
  lctx_html_sweep *s = rd->s;
  json_t *at = json_object_get(rd->programs, name);
  if (at)
    return &s->programs[json_integer_value(at)];
  if (s->program_count >= LCTX_HTML_SWEEP_MAX_PROGRAMS) {
    uint64_t h = 1469598103934665603u;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
      h = (h ^ *c) * 1099511628211u;
    if (room(&rd->left, rd->left_count, sizeof *rd->left))
      rd->left[rd->left_count++] = h;
    return NULL;
  }
  if (!room(&s->programs, s->program_count, sizeof *s->programs))
    return NULL;
  lctx_html_sweep_program *p = &s->programs[s->program_count];
  memset(p, 0, sizeof *p);
  p->name = strdup(name);
  json_object_set_new(rd->programs, name,
                      json_integer((json_int_t)s->program_count));
  s->program_count++;
  return p;
}

/* Keeps non-pass verdict `v` (of index `vi`) of a case of program `p` with
 * platform list `list`, once per row, verdict and key. */
static void keep_entry(lctx_html_sweep_program *p, long list, const json_t *v,
                       int vi, long long case_no, const char *outcome) {
  const char *row = json_string_value(json_object_get(v, "row"));
  const char *key = json_string_value(json_object_get(v, "key"));
  const char *detail = json_string_value(json_object_get(v, "detail"));
  for (size_t i = 0; i < p->entry_count; i++) {
    lctx_html_sweep_entry *e = &p->entries[i];
    if (e->list == (size_t)list && e->verdict == vi &&
        strcmp(e->row, row) == 0 &&
        strncmp(e->key, key ? key : "", 1024) == 0) {
      e->repeats++;
      return;
    }
  }
  if (p->entry_count >= LCTX_HTML_SWEEP_MAX_ENTRIES ||
      !room(&p->entries, p->entry_count, sizeof *p->entries)) {
    p->entries_left_out++;
    return;
  }
  lctx_html_sweep_entry *e = &p->entries[p->entry_count++];
  memset(e, 0, sizeof *e);
  e->list = (size_t)list;
  e->verdict = vi;
  e->case_no = case_no;
  snprintf(e->row, sizeof e->row, "%s", row);
  e->key = cut(key ? key : "", 1024);
  e->detail = cut(detail ? detail : "", 4096);
  e->outcome = cut(outcome ? outcome : "", 2048);
}

/* One well-formed case line: counted in its group and length, its
 * non-pass verdicts kept by program. */
static void add_case(sweep_reader *rd, const json_t *j) {
  lctx_html_sweep *s = rd->s;
  const char *program = json_string_value(json_object_get(j, "program"));
  const json_t *plats = json_object_get(j, "platforms");
  const json_t *verdicts = json_object_get(j, "verdicts"), *v;
  const char *outcome = json_string_value(json_object_get(j, "outcome"));
  char group[520];
  const char *gname = json_string_value(json_object_get(j, "group"));
  const char *slash = strrchr(program, '/');
  if (gname && *gname)
    snprintf(group, sizeof group, "%s", gname);
  else
    snprintf(group, sizeof group, "%.*s",
             (int)(slash && slash != program ? slash - program
                                             : (long)strlen(program)),
             program);
  size_t len = json_array_size(plats), i;
  int worst = LCTX_HTML_V_NONE;
  long list = -2;
  lctx_html_sweep_program *p = NULL;
  json_array_foreach(verdicts, i, v) {
    int vi = verdict_index(json_string_value(json_object_get(v, "verdict")));
    worst = vi < worst ? vi : worst;
    if (vi == LCTX_HTML_V_PASS || vi == LCTX_HTML_V_NONE)
      continue;
    if (list == -2) { /* the program first: lists only of rows shown */
      p = program_for(rd, program);
      list = p ? list_for(rd, plats) : -1;
    }
    if (p && list >= 0)
      keep_entry(p, list, v, vi, json_integer_value(json_object_get(j, "case")),
                 outcome);
    else if (p) {
      p->entries_left_out++;
      s->entries_left_out++;
    }
  }
  lctx_html_sweep_group *g = group_for(rd, group);
  if (g)
    g->by[len][worst]++;
  s->length_seen[len] = true;
  s->cases++;
}

static int by_hash(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* A platform list and its index before sorting. */
typedef struct list_order {
  const char *text;
  size_t len, old;
} list_order;

static int by_list(const void *a, const void *b) {
  const list_order *x = a, *y = b;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  return strcmp(x->text, y->text);
}

/* Sorts the sweep's platform lists (by length, then text), its entries
 * following, and counts the distinct programs left out. */
static void finish_sweep(sweep_reader *rd) {
  lctx_html_sweep *s = rd->s;
  list_order order[LCTX_HTML_SWEEP_MAX_LISTS];
  size_t to[LCTX_HTML_SWEEP_MAX_LISTS];
  for (size_t i = 0; i < s->list_count; i++)
    order[i] = (list_order){s->lists[i], s->list_len[i], i};
  if (s->list_count > 1)
    qsort(order, s->list_count, sizeof *order, by_list);
  for (size_t i = 0; i < s->list_count; i++) {
    s->lists[i] = (char *)order[i].text;
    s->list_len[i] = order[i].len;
    to[order[i].old] = i;
  }
  for (size_t p = 0; p < s->program_count; p++)
    for (size_t e = 0; e < s->programs[p].entry_count; e++)
      s->programs[p].entries[e].list = to[s->programs[p].entries[e].list];
  if (rd->left_count > 1)
    qsort(rd->left, rd->left_count, sizeof *rd->left, by_hash);
  for (size_t i = 0; i < rd->left_count; i++)
    if (i == 0 || rd->left[i] != rd->left[i - 1])
      s->programs_left_out++;
}

bool lctx_html_sweep_sum(lctx_html_sweep *s, const char *path,
                         lctx_buf *error) {
  FILE *f = lctx_sys_fopen_input(path);
  int errnum = f ? 0 : errno;
  char *buf = malloc(LCTX_HTML_SWEEP_MAX_LINE);
  sweep_reader rd = {.s = s,
                     .groups = json_object(),
                     .programs = json_object(),
                     .lists = json_object()};
  bool over = false;
  long n;
  for (size_t no = 1;
       f && buf &&
       (n = lctx_sys_read_line(f, buf, LCTX_HTML_SWEEP_MAX_LINE, &over)) >= 0;
       no++) {
    if (no > LCTX_HTML_SWEEP_MAX_LINES) {
      s->cut_short = true;
      break;
    }
    json_error_t e;
    json_t *j = over ? NULL : json_loadb(buf, (size_t)n, 0, &e);
    const char *why = over ? "longer than 64 KiB" : j ? malformed(j) : e.text;
    if (no == 1) { /* the stamp */
    } else if (why) {
      if (s->malformed++ == 0) {
        s->first_bad = no;
        snprintf(s->first_why, sizeof s->first_why, "%s", why);
      }
    } else {
      add_case(&rd, j);
    }
    json_decref(j);
  }
  bool ok = f && buf;
  if (!ok)
    lctx_report_say(error, "%s: cannot be read: %s", path,
                    f ? "out of memory" : lctx_sys_file_error(errnum));
  if (f)
    fclose(f);
  free(buf);
  finish_sweep(&rd);
  free(rd.left);
  json_decref(rd.groups);
  json_decref(rd.programs);
  json_decref(rd.lists);
  return ok;
}
