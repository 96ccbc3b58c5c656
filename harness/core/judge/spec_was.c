/*
 * spec_was.c - JAX's releases in the spec table parser (see spec_private.h,
 * spec.h and conformance/spec/README.md).
 *
 * Owns the `releases` line (named releases, oldest first), the `was` lines
 * of rows and facts (what held before a release, citing the commit that
 * changed it, in descending release order) and the `[fact NAME]` sections,
 * into the table's `was` and `was_outcomes` lists. Selecting a release is
 * spec.c's.
 */
#include "spec_private.h"

#include "names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// Releases
//===----------------------------------------------------------------------===//

/* Compares two release names as versions (dot-separated numbers). */
static int compare_versions(const char *a, const char *b) {
  while (*a || *b) {
    unsigned long x = strtoul(a, (char **)&a, 10);
    unsigned long y = strtoul(b, (char **)&b, 10);
    if (x != y)
      return x < y ? -1 : 1;
    a += *a == '.';
    b += *b == '.';
  }
  return 0;
}

static bool valid_release(const char *s, size_t n) {
  bool digit = false;
  for (size_t i = 0; i < n; i++) {
    if (isdigit((unsigned char)s[i]))
      digit = true;
    else if (s[i] != '.' || !digit || i + 1 == n)
      return false;
    else
      digit = false;
  }
  return n > 0;
}

/* `releases = V1 V2 ...`: the releases, oldest first, with the word
 * `modelled` where the modelled commit falls among them (after them all
 * when it is not given). */
bool spec_parse_releases(spec_parser *p, const char *s, const char *end) {
  lctx_spec *spec = p->spec;
  if (spec->release_count > 0 || p->saw_modelled)
    return spec_fail(p, s, "duplicate key 'releases'", NULL);
  size_t total = 0; /* entries, `modelled` included */
  const char *last_named = NULL;
  for (const char *e = s; (s = spec_skip_space(e, end)) < end;) {
    e = spec_token_end(s, end);
    size_t n = (size_t)(e - s);
    bool modelled =
        lctx_str_equal_cstr(lctx_str_make(s, n), LCTX_SPEC_MODELLED);
    if (modelled) {
      if (p->saw_modelled)
        return spec_fail(p, s, "'modelled' given twice", NULL);
      p->saw_modelled = true;
      spec->modelled = total;
      memcpy(spec->releases[total++], LCTX_SPEC_MODELLED,
             sizeof LCTX_SPEC_MODELLED);
      continue;
    }
    if (!valid_release(s, n) || n >= LCTX_SPEC_RELEASE_NAME)
      return spec_fail_n(p, s,
                         "bad release (expected numbers joined by '.', or "
                         "'modelled'):",
                         s, n);
    if (spec->release_count == LCTX_SPEC_MAX_RELEASES)
      return spec_fail(p, s, "too many releases", NULL);
    char *name = spec->releases[total];
    memcpy(name, s, n);
    name[n] = '\0';
    if (last_named && compare_versions(last_named, name) >= 0) {
      char msg[96];
      snprintf(msg, sizeof msg,
               "releases go oldest first, without repeats: "
               "after '%s' comes",
               last_named);
      return spec_fail(p, s, msg, name);
    }
    last_named = name;
    spec->release_count++;
    total++;
  }
  if (spec->release_count == 0)
    return spec_fail(p, s, "no release named", NULL);
  if (!p->saw_modelled) {
    spec->modelled = total;
    memcpy(spec->releases[total], LCTX_SPEC_MODELLED,
           sizeof LCTX_SPEC_MODELLED);
  }
  return true;
}

/* Fails naming an unknown release and the ones the table knows. */
static bool fail_release(spec_parser *p, const char *at, const char *s,
                         size_t n) {
  char known[LCTX_SPEC_MAX_RELEASES * LCTX_SPEC_RELEASE_NAME + 64];
  lctx_buf kb;
  lctx_buf_init(&kb, known, sizeof known);
  lctx_buf_append_cstr(&kb, "unknown release (the table names: ");
  for (size_t i = 0, said = 0; i <= p->spec->release_count; i++) {
    if (i == p->spec->modelled)
      continue;
    if (said++ > 0)
      lctx_buf_append_cstr(&kb, ", ");
    lctx_buf_append_cstr(&kb, p->spec->releases[i]);
  }
  if (p->spec->release_count == 0)
    lctx_buf_append_cstr(&kb, "none; write 'releases = ...' first");
  lctx_buf_append_cstr(&kb, "):");
  return spec_fail_n(p, at, known, s, n);
}

//===----------------------------------------------------------------------===//
// `was` lines
//===----------------------------------------------------------------------===//

/* Reads `RELEASE COMMIT` at the start of a `was` value into `w`, checking
 * its order against the entries before it (`prev`: the last `was` entry of
 * the row or fact, or NULL); leaves `*s` after the commit. */
static bool parse_was_head(spec_parser *p, const char **s, const char *end,
                           lctx_spec_was *w, const lctx_spec_was *prev) {
  const char *e = *s;
  lctx_str rel = spec_next_token(s, &e, end);
  char name[LCTX_SPEC_RELEASE_NAME] = "";
  if (rel.length > 0 && rel.length < sizeof name)
    memcpy(name, rel.data, rel.length);
  int index = lctx_spec_release_index(p->spec, name);
  if (rel.length == 0)
    return spec_fail(p, *s, "expected 'was = RELEASE COMMIT VALUE'", NULL);
  if (index < 0 || (size_t)index == p->spec->modelled)
    return fail_release(p, *s, rel.data, rel.length);
  if ((size_t)index > p->spec->modelled)
    return spec_fail_n(p, *s,
                       "a was line states what held before a release up to "
                       "the modelled commit, not after it:",
                       rel.data, rel.length);
  if (prev && prev->boundary >= 0 && prev->boundary < index) {
    char msg[128];
    snprintf(msg, sizeof msg,
             "was lines go in descending release order: after %s (line %d) "
             "comes",
             p->spec->releases[prev->boundary], prev->line);
    return spec_fail(p, *s, msg, name);
  }
  lctx_str commit = spec_next_token(s, &e, end);
  const char *at = commit.data;
  bool hex = commit.length == LCTX_SPEC_COMMIT - 1;
  for (size_t i = 0; hex && i < commit.length; i++)
    hex = isxdigit((unsigned char)commit.data[i]) &&
          !isupper((unsigned char)commit.data[i]);
  if (!hex)
    return spec_fail_n(p, at, "a commit is 12 lower-case hex digits, got", at,
                       commit.length);
  memset(w, 0, sizeof *w);
  w->boundary = index;
  w->line = p->line;
  memcpy(w->commit, commit.data, commit.length);
  *s = e;
  return true;
}

/* A new entry of the table's `was` list. */
lctx_spec_was *spec_new_was(spec_parser *p, const char *at) {
  if (p->spec->was_count == LCTX_SPEC_MAX_WAS) {
    spec_fail(p, at, "too many was lines in the table", NULL);
    return NULL;
  }
  lctx_spec_was *w = &p->spec->was[p->spec->was_count++];
  memset(w, 0, sizeof *w);
  w->boundary = -1;
  return w;
}

/* A new outcome of the table's `was_outcomes`. */
lctx_spec_outcome *spec_new_was_outcome(spec_parser *p, const char *at) {
  if (p->spec->was_outcome_count == LCTX_SPEC_MAX_WAS_OUTCOMES) {
    spec_fail(p, at, "too many outcomes in was lines", NULL);
    return NULL;
  }
  return &p->spec->was_outcomes[p->spec->was_outcome_count++];
}

/* `was = RELEASE COMMIT OUTCOME` (or `absent "why"`) in a row. A line with
 * the boundary and commit of the one before adds an outcome to it. */
bool spec_parse_row_was(spec_parser *p, const char *s, const char *end) {
  lctx_spec_row *row = p->row;
  lctx_spec *spec = p->spec;
  if (row->was_count == 0) { /* the current state comes first */
    if (!spec_new_was(p, s))
      return false;
    row->first_was = (uint8_t)(spec->was_count - 1);
    row->was_count = 1;
  }
  lctx_spec_was *prev = &spec->was[row->first_was + row->was_count - 1];
  lctx_spec_was head;
  if (!parse_was_head(p, &s, end, &head, row->was_count > 1 ? prev : NULL))
    return false;
  s = spec_skip_space(s, end);
  const char *e = spec_token_end(s, end);
  bool absent =
      lctx_str_equal_cstr(lctx_str_make(s, (size_t)(e - s)), "absent");
  if (row->was_count > 1 && prev->boundary == head.boundary) {
    if (strcmp(prev->commit, head.commit) != 0 || absent || prev->absent)
      return spec_fail(
          p, s,
          "a second was line for one release adds an outcome: same "
          "commit, and not absent",
          NULL);
    if (prev->outcome_count >= LCTX_SPEC_MAX_OUTCOMES)
      return spec_fail(p, s, "too many outcomes in one was state", NULL);
    lctx_spec_outcome *o = spec_new_was_outcome(p, s);
    if (!o || !spec_parse_outcome_into(p, s, end, o))
      return false;
    prev->outcome_count++;
    return true;
  }
  lctx_spec_was *w = spec_new_was(p, s);
  if (!w)
    return false;
  *w = head;
  row->was_count++;
  if (absent) {
    w->absent = true;
    const char *at = spec_skip_space(e, end);
    s = at;
    return spec_parse_string(p, &s, end, w->why, sizeof w->why) &&
           spec_expect_end(p, s, end);
  }
  lctx_spec_outcome *o = spec_new_was_outcome(p, s);
  w->first_outcome = (uint8_t)(spec->was_outcome_count - 1);
  w->outcome_count = 1;
  return o && spec_parse_outcome_into(p, s, end, o);
}

//===----------------------------------------------------------------------===//
// Facts
//===----------------------------------------------------------------------===//

/* A fact's value (a list of names, or a flag) at `s` into `w`. */
static bool parse_fact_value(spec_parser *p, const char *s, const char *end,
                             lctx_spec_was *w) {
  lctx_fact f = (lctx_fact)(p->fact - p->spec->fact);
  w->name_count = 0;
  for (const char *e = s; (s = spec_skip_space(e, end)) < end;) {
    e = spec_token_end(s, end);
    size_t n = (size_t)(e - s);
    bool ok = n < LCTX_FACT_NAME_MAX;
    for (size_t i = 0; ok && i < n; i++)
      ok = isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '-';
    if (!ok)
      return spec_fail_n(p, s, "bad name (letters, digits, '_', '-'):", s, n);
    if (w->name_count == LCTX_FACT_MAX_NAMES)
      return spec_fail(p, s, "too many names in one fact", NULL);
    memcpy(w->names[w->name_count], s, n);
    w->names[w->name_count++][n] = '\0';
  }
  if (lctx_classify_fact_is_flag(f) &&
      (w->name_count != 1 ||
       (strcmp(w->names[0], "yes") != 0 && strcmp(w->names[0], "no") != 0)))
    return spec_fail(p, s, "this fact is 'yes' or 'no'", NULL);
  return true;
}

static const char *const FACT_KEYS[] = {"value", "was", "source", "note",
                                        "unread"};
#define FACT_KEY_COUNT 5

/* `unread = RELEASE... "WHY"`: the releases (after the modelled commit) at
 * which the fact was not read, and why. */
static bool parse_fact_unread(spec_parser *p, const char *s, const char *end,
                              lctx_spec_fact *fact) {
  for (const char *e = s; (s = spec_skip_space(e, end)) < end && *s != '"';) {
    e = spec_token_end(s, end);
    char name[LCTX_SPEC_RELEASE_NAME] = "";
    size_t n = (size_t)(e - s);
    if (n < sizeof name)
      memcpy(name, s, n);
    int index = lctx_spec_release_index(p->spec, name);
    if (index < 0 || (size_t)index == p->spec->modelled)
      return fail_release(p, s, s, n);
    if (fact->unread & (1u << index))
      return spec_fail_n(p, s, "release named twice:", s, n);
    fact->unread |= 1u << index;
  }
  if (!fact->unread)
    return spec_fail(p, s, "expected 'unread = RELEASE... \"WHY\"'", NULL);
  if (s >= end)
    return spec_fail(p, s, "expected the reason, a quoted string", NULL);
  return spec_parse_string(p, &s, end, fact->unread_why,
                           sizeof fact->unread_why) &&
         spec_expect_end(p, s, end);
}

/* One `key = value` line of a `[fact NAME]` section. */
bool spec_parse_fact_key(spec_parser *p, const char *key, lctx_str k,
                         const char *v, const char *end) {
  lctx_spec_fact *fact = p->fact;
  int which = lctx_names_find(FACT_KEYS, FACT_KEY_COUNT, k);
  if (which < 0)
    return spec_fail_n(p, key, "unknown key in a fact", key, k.length);
  if (which != 1 && p->seen[which])
    return spec_fail_n(p, key, "duplicate key", key, k.length);
  p->seen[which] = true;
  lctx_spec_was *first = &p->spec->was[fact->first_was];
  switch (which) {
  case 0:
    return parse_fact_value(p, v, end, first);
  case 1: {
    lctx_spec_was *prev = &p->spec->was[fact->first_was + fact->was_count - 1];
    lctx_spec_was head;
    const char *at = v;
    if (!parse_was_head(p, &v, end, &head, fact->was_count > 1 ? prev : NULL))
      return false;
    if (fact->was_count > 1 && prev->boundary == head.boundary)
      return spec_fail(p, at, "a second was line for the same release", NULL);
    lctx_spec_was *w = spec_new_was(p, v);
    if (!w)
      return false;
    *w = head;
    fact->was_count++;
    return parse_fact_value(p, v, end, w);
  }
  case 2:
    return spec_copy_value(p, v, end, fact->source, sizeof fact->source);
  case 4:
    return parse_fact_unread(p, v, end, fact);
  default:
    return spec_copy_value(p, v, end, fact->note, sizeof fact->note);
  }
}

/* `[fact NAME]`: starts a fact section. */
bool spec_start_fact(spec_parser *p, const char *s, size_t n) {
  lctx_fact f;
  if (!lctx_classify_fact_from_name(lctx_str_make(s, n), &f)) {
    char msg[200];
    lctx_buf mb;
    lctx_buf_init(&mb, msg, sizeof msg);
    lctx_buf_append_cstr(&mb, "unknown fact (known: ");
    for (int i = 0; i < LCTX_FACT_COUNT; i++) {
      if (i > 0)
        lctx_buf_append_cstr(&mb, ", ");
      lctx_buf_append_cstr(&mb, lctx_classify_fact_name((lctx_fact)i));
    }
    lctx_buf_append_cstr(&mb, "):");
    return spec_fail_n(p, s, msg, s, n);
  }
  lctx_spec_fact *fact = &p->spec->fact[f];
  if (fact->stated) {
    char msg[96];
    snprintf(msg, sizeof msg, "duplicate fact (first at line %d):", fact->line);
    return spec_fail_n(p, s, msg, s, n);
  }
  lctx_spec_was *current = spec_new_was(p, s);
  if (!current)
    return false;
  fact->stated = true;
  fact->line = p->line;
  fact->first_was = (uint8_t)(p->spec->was_count - 1);
  fact->was_count = 1;
  p->fact = fact;
  memset(p->seen, 0, sizeof p->seen);
  return true;
}

bool spec_finish_fact(spec_parser *p) {
  lctx_spec_fact *fact = p->fact;
  if (!fact)
    return true;
  p->fact = NULL;
  static const int required[] = {0, 2};
  for (int i = 0; i < 2; i++) {
    if (!p->seen[required[i]]) {
      int saved = p->line;
      p->line = fact->line;
      char msg[96];
      snprintf(msg, sizeof msg, "fact '%s' has no '%s'",
               lctx_classify_fact_name((lctx_fact)(fact - p->spec->fact)),
               FACT_KEYS[required[i]]);
      spec_fail(p, NULL, msg, NULL);
      p->line = saved;
      return false;
    }
  }
  return true;
}
