/*
 * finding_key.h - the finding marker and the grammar of a finding's key,
 * defined once for the fuzz glue that prints them (fuzzers/fuzz_glue.h) and
 * the drivers that read them back from a run's output: the campaign's keys
 * (harness/commands/findings.c) and the kill matrix
 * (harness/commands/mutants.c).
 *
 * A failing fuzz input makes its target print, at the start of a line,
 *
 *   LCTX-FINDING KEY
 *
 *   KEY   = PART *("/" PART)         at most LCTX_FINDING_KEY_MAX - 1 bytes,
 *                                    no space, no newline
 *   PART  = NAME "=" VALUE | WORD    neither holding "/"
 *
 * The first part names the target (fuzz_model, fuzz_differential, ...;
 * `bad-spec`, shared by every target that judges by the table, names
 * none), the second the kind of the finding (outcome, impl, reference,
 * differ, sanitizer, crash, ir, raise, ...), the others are fields
 * (`row=MG-006`, `expected=ValueError`) or words: e.g.
 * `fuzz_differential/impl/row=MG-006/expected=ValueError/actual=None`.
 * The marker counts only at the start of a line: a report that quotes a
 * case's text (whose messages may hold anything) comes before it.
 *
 * Header only (static inline functions, no state), so that the fuzz
 * targets, which link only the core layer, share it.
 */
#ifndef LCTX_HARNESS_FINDING_KEY_H
#define LCTX_HARNESS_FINDING_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/// What starts a finding's line, the key follows it.
#define LCTX_FINDING_MARKER "LCTX-FINDING "
/// The longest key with its NUL (lctx_fuzz_result's key).
#define LCTX_FINDING_KEY_MAX 512

/// Finds the first line of `text` that starts with LCTX_FINDING_MARKER and
/// copies its key (the rest of the line, cut to `cap` - 1 bytes) to `key`.
/// Returns where that line starts, or NULL when no line is one.
static inline const char *lctx_finding_key_find(const char *text, char *key,
                                                size_t cap) {
  const size_t marker = sizeof LCTX_FINDING_MARKER - 1;
  for (const char *line = text; line && *line;) {
    if (strncmp(line, LCTX_FINDING_MARKER, marker) == 0) {
      const char *p = line + marker;
      size_t n = strcspn(p, "\r\n");
      n = n < cap ? n : cap - 1;
      memcpy(key, p, n);
      key[n] = '\0';
      return line;
    }
    line = strchr(line, '\n');
    line = line ? line + 1 : NULL;
  }
  return NULL;
}

/// The part `index` of `key` (0: the target, 1: the kind, then the fields)
/// as `*part` and `*length`; false when the key has fewer parts.
static inline bool lctx_finding_key_part(const char *key, size_t index,
                                         const char **part, size_t *length) {
  const char *p = key;
  for (size_t i = 0; i < index; i++) {
    p = strchr(p, '/');
    if (!p)
      return false;
    p++;
  }
  *part = p;
  *length = strcspn(p, "/");
  return true;
}

/// Whether the part `index` of `key` is `word`.
static inline bool lctx_finding_key_part_is(const char *key, size_t index,
                                            const char *word) {
  const char *part;
  size_t n;
  return lctx_finding_key_part(key, index, &part, &n) && n == strlen(word) &&
         strncmp(part, word, n) == 0;
}

/// Whether `key` is of `target` and of the kind `kind`.
static inline bool lctx_finding_key_is(const char *key, const char *target,
                                       const char *kind) {
  return lctx_finding_key_part_is(key, 0, target) &&
         lctx_finding_key_part_is(key, 1, kind);
}

/// Copies the value of the field `name` (`NAME=VALUE`, a part after the
/// kind) to `out`, cut to `cap` - 1 bytes; false when the key has none.
static inline bool lctx_finding_key_field(const char *key, const char *name,
                                          char *out, size_t cap) {
  size_t want = strlen(name);
  const char *part;
  size_t n;
  for (size_t i = 2; lctx_finding_key_part(key, i, &part, &n); i++) {
    if (n > want && strncmp(part, name, want) == 0 && part[want] == '=') {
      size_t v = n - want - 1;
      v = v < cap ? v : cap - 1;
      memcpy(out, part + want + 1, v);
      out[v] = '\0';
      return true;
    }
  }
  return false;
}

#endif /* LCTX_HARNESS_FINDING_KEY_H */
