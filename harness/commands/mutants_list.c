/*
 * mutants_list.c - the list of mutants (conformance/mutants/MUTANTS, see
 * mutants_private.h): its lines parsed and checked, the mutants --only
 * selects, and the library each one is built as.
 */
#include "mutants_private.h"

#include "escape.h"
#include "file.h"
#include "oracle.h"
#include "sys.h"

#include <stdlib.h>
#include <string.h>

void lctx_mutants_copy_field(char *dst, size_t cap, const char *s, size_t n) {
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, s, n);
  dst[n] = '\0';
}

/* The N bytes at S, escaped for a terminal into B (escape.h). */
static const char *esc_n(lctx_escaped *b, const char *s, size_t n) {
  char tmp[sizeof b->text];
  lctx_mutants_copy_field(tmp, sizeof tmp, s, n);
  return lctx_esc(b, tmp);
}

//===----------------------------------------------------------------------===//
// The list (conformance/mutants/MUTANTS)
//===----------------------------------------------------------------------===//

/* Trims blanks around [*s, *e). */
static void trim(const char **s, const char **e) {
  while (*s < *e && (**s == ' ' || **s == '\t'))
    (*s)++;
  while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
    (*e)--;
}

static bool valid_name(const char *s, size_t n) {
  if (n == 0 || n >= 64)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              (i > 0 && (c == '-' || c == '_'));
    if (!ok)
      return false;
  }
  return true;
}

/* Parses the expected rows "ROW, ROW, ...". */
static bool parse_rows(state *st, mutant *m, const char *s, const char *e,
                       const char *line, FILE *err) {
  lctx_escaped pb, b1, b2;
  const char *path = lctx_esc(&pb, st->o.list_path);
  while (s < e) {
    const char *comma = memchr(s, ',', (size_t)(e - s));
    const char *end = comma ? comma : e;
    const char *a = s, *b = end;
    trim(&a, &b);
    if (a == b) {
      fprintf(err, "lctx mutants: %s:%d:%d: an empty row id\n", path, m->line,
              (int)(a - line) + 1);
      return false;
    }
    char id[LCTX_SPEC_MAX_ID + 8];
    lctx_mutants_copy_field(id, sizeof id, a, (size_t)(b - a));
    if ((size_t)(b - a) >= LCTX_SPEC_MAX_ID || !lctx_spec_find(&st->spec, id)) {
      fprintf(err,
              "lctx mutants: %s:%d:%d: unknown spec row '%s' (rows are the "
              "ids of %s)\n",
              path, m->line, (int)(a - line) + 1,
              esc_n(&b1, a, (size_t)(b - a)), lctx_esc(&b2, st->spec.filename));
      return false;
    }
    if (m->expected_count == MAX_EXPECTED) {
      fprintf(err, "lctx mutants: %s:%d:%d: more than %d rows\n", path, m->line,
              (int)(a - line) + 1, MAX_EXPECTED);
      return false;
    }
    snprintf(m->expected[m->expected_count++], LCTX_SPEC_MAX_ID, "%s", id);
    s = comma ? comma + 1 : e;
  }
  if (m->expected_count == 0) {
    fprintf(err,
            "lctx mutants: %s:%d: no rows: name the spec rows expected to "
            "catch the mutant\n",
            path, m->line);
    return false;
  }
  return true;
}

/* One line "NAME | description | rows [| note]". */
static bool parse_line(state *st, const char *line, const char *end, int number,
                       FILE *err) {
  lctx_escaped pb, b1;
  const char *path = lctx_esc(&pb, st->o.list_path);
  const char *fields[5], *ends[5];
  size_t n = 0;
  const char *s = line;
  for (;;) {
    const char *bar = memchr(s, '|', (size_t)(end - s));
    if (n == 4) {
      fprintf(err,
              "lctx mutants: %s:%d:%d: too many fields (NAME | description "
              "| rows [| why a fuzzer may miss it])\n",
              path, number, (int)(s - line));
      return false;
    }
    fields[n] = s;
    ends[n] = bar ? bar : end;
    trim(&fields[n], &ends[n]);
    n++;
    if (!bar)
      break;
    s = bar + 1;
  }
  if (n < 3) {
    fprintf(err,
            "lctx mutants: %s:%d:%d: expected NAME | description | rows, "
            "found %zu field%s\n",
            path, number, (int)(end - line) + 1, n, n == 1 ? "" : "s");
    return false;
  }
  if (st->count == MAX_MUTANTS) {
    fprintf(err, "lctx mutants: %s:%d: more than %d mutants\n", path, number,
            MAX_MUTANTS);
    return false;
  }
  mutant *m = &st->mutants[st->count];
  memset(m, 0, sizeof *m);
  m->line = number;
  size_t name_length = (size_t)(ends[0] - fields[0]);
  if (!valid_name(fields[0], name_length)) {
    fprintf(err,
            "lctx mutants: %s:%d:%d: '%s' is not a mutant name (lowercase "
            "letters, digits, '-' and '_', at most 63)\n",
            path, number, (int)(fields[0] - line) + 1,
            esc_n(&b1, fields[0], name_length));
    return false;
  }
  lctx_mutants_copy_field(m->name, sizeof m->name, fields[0], name_length);
  for (size_t i = 0; i < st->count; i++) {
    if (strcmp(st->mutants[i].name, m->name) == 0) {
      fprintf(err, "lctx mutants: %s:%d:%d: %s is listed twice (line %d)\n",
              path, number, (int)(fields[0] - line) + 1, m->name,
              st->mutants[i].line);
      return false;
    }
  }
  if (fields[1] == ends[1] || (size_t)(ends[1] - fields[1]) >= 512) {
    fprintf(err,
            "lctx mutants: %s:%d:%d: the description must be one line of 1 "
            "to 511 bytes\n",
            path, number, (int)(fields[1] - line) + 1);
    return false;
  }
  lctx_mutants_copy_field(m->description, sizeof m->description, fields[1],
                          (size_t)(ends[1] - fields[1]));
  if (!parse_rows(st, m, fields[2], ends[2], line, err))
    return false;
  if (n == 4)
    lctx_mutants_copy_field(m->note, sizeof m->note, fields[3],
                            (size_t)(ends[3] - fields[3]));
  st->count++;
  return true;
}

/* The folder of the list file, where NAME.mutant files live. */
static void list_folder(const state *st, char *out, size_t cap) {
  snprintf(out, cap, "%s", st->o.list_path);
  char *slash = strrchr(out, '/');
  if (slash)
    *slash = '\0';
  else
    snprintf(out, cap, ".");
}

static bool listed(const state *st, const char *name, size_t n) {
  for (size_t i = 0; i < st->count; i++)
    if (strlen(st->mutants[i].name) == n &&
        strncmp(st->mutants[i].name, name, n) == 0)
      return true;
  return false;
}
/* The first `*.mutant` file of a folder that the list does not name. */
typedef struct unlisted_walk {
  const state *st;
  char first[256];
} unlisted_walk;

static void find_unlisted(void *user, const char *path) {
  unlisted_walk *w = user;
  const char *name = strrchr(path, '/');
  name = name ? name + 1 : path;
  size_t n = strlen(name);
  if (!w->first[0] && n > 7 && n < sizeof w->first &&
      strcmp(name + n - 7, ".mutant") == 0 && !listed(w->st, name, n - 7))
    snprintf(w->first, sizeof w->first, "%s", name);
}

bool lctx_mutants_load_list(state *st, FILE *err) {
  size_t length;
  char *text, why[PATH_CAP + 128];
  lctx_buf eb;
  lctx_buf_init(&eb, why, sizeof why);
  lctx_escaped b1, b2, b3, b4;
  if (!lctx_file_read(st->o.list_path, (1u << 20) - 1, &text, &length, &eb)) {
    fprintf(err, "lctx mutants: --list: %s\n", lctx_esc(&b1, why));
    return false;
  }
  bool ok = true;
  int number = 0;
  for (const char *line = text; ok && line < text + length;) {
    const char *nl = memchr(line, '\n', (size_t)(text + length - line));
    const char *end = nl ? nl : text + length;
    number++;
    const char *s = line, *e = end;
    trim(&s, &e);
    if (s < e && *s != '#')
      ok = parse_line(st, line, end, number, err);
    line = nl ? nl + 1 : text + length;
  }
  free(text);
  if (!ok)
    return false;
  if (st->count == 0) {
    fprintf(err, "lctx mutants: %s: no mutants listed\n",
            lctx_esc(&b1, st->o.list_path));
    return false;
  }
  /* Every listed mutant has its file, and every file is listed. */
  char folder[PATH_CAP];
  list_folder(st, folder, sizeof folder);
  for (size_t i = 0; i < st->count; i++) {
    char path[PATH_CAP + 80];
    snprintf(path, sizeof path, "%s/%s.mutant", folder, st->mutants[i].name);
    if (!lctx_sys_is_file(path)) {
      fprintf(err, "lctx mutants: %s:%d: %s is listed, but %s is missing\n",
              lctx_esc(&b1, st->o.list_path), st->mutants[i].line,
              lctx_esc(&b2, st->mutants[i].name), lctx_esc(&b3, path));
      return false;
    }
  }
  unlisted_walk walk = {st, ""};
  lctx_sys_each_entry(folder, find_unlisted, &walk);
  if (walk.first[0]) {
    size_t n = strlen(walk.first);
    fprintf(err,
            "lctx mutants: %s/%s is not listed in %s (add one line: %s | "
            "what is wrong | rows expected to catch it)\n",
            lctx_esc(&b1, folder), lctx_esc(&b2, walk.first),
            lctx_esc(&b3, st->o.list_path), esc_n(&b4, walk.first, n - 7));
    return false;
  }
  return true;
}

/* Keeps only the mutants named in --only (comma-separated). */
bool lctx_mutants_select_only(state *st, FILE *err) {
  if (!st->o.only)
    return true;
  bool keep[MAX_MUTANTS] = {false};
  const char *s = st->o.only;
  while (*s) {
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    bool found = false;
    for (size_t i = 0; i < st->count; i++) {
      if (strlen(st->mutants[i].name) == n &&
          strncmp(st->mutants[i].name, s, n) == 0) {
        keep[i] = found = true;
      }
    }
    if (!found) {
      lctx_escaped b1, b2;
      fprintf(err, "lctx mutants: --only: no mutant '%s' in %s\n",
              esc_n(&b1, s, n), lctx_esc(&b2, st->o.list_path));
      return false;
    }
    s = comma ? comma + 1 : s + n;
  }
  size_t k = 0;
  for (size_t i = 0; i < st->count; i++)
    if (keep[i])
      st->mutants[k++] = st->mutants[i];
  st->count = k;
  return true;
}

bool lctx_mutants_find_libraries(state *st, FILE *err) {
  for (size_t i = 0; i < st->count; i++) {
    mutant *m = &st->mutants[i];
    snprintf(m->library, sizeof m->library, "%s/%s.so", st->o.dir, m->name);
    lctx_escaped b;
    if (!lctx_sys_is_file(m->library)) {
      fprintf(err,
              "lctx mutants: %s: no such library; build the mutants first "
              "(cmake --build --preset PRESET --target lctx_mutants), or "
              "name their folder with --dir\n",
              lctx_esc(&b, m->library));
      return false;
    }
  }
  return true;
}

bool lctx_mutants_expected_row(const mutant *m, const char *row) {
  for (size_t i = 0; i < m->expected_count; i++)
    if (strcmp(m->expected[i], row) == 0)
      return true;
  return false;
}
