/*
 * register_lowering.c - part of the example plugin (overview:
 * lctx_example_plugin.c): register_lowering (ABI v2), which stores a
 * session's lowering rules, and the lookups of those rules.
 */
#include "plugin.h"

#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// 6. register_lowering (ABI v2; semantics.md section 6)
//===----------------------------------------------------------------------===//

/// The index of the session's rule called `name`, or -1.
ptrdiff_t find_rule(const session *s, const char *name) {
  for (size_t i = 0; i < s->config->rule_count; i++)
    if (strcmp(s->config->rules[i].name, name) == 0)
      return (ptrdiff_t)i;
  return -1;
}

/// The rule registered for `primitive` on `platform` (NULL: the common
/// rule), or -1.
ptrdiff_t find_lowering(const session *s, const char *primitive,
                        const char *platform) {
  for (size_t i = 0; i < s->lowering_count; i++) {
    const lowering_entry *e = &s->lowerings[i];
    if (strcmp(e->primitive, primitive) != 0)
      continue;
    if (platform == NULL
            ? e->platform == NULL
            : e->platform != NULL && strcmp(e->platform, platform) == 0)
      return (ptrdiff_t)e->rule;
  }
  return -1;
}

static char *copy_string(const char *text) {
  size_t n = strlen(text) + 1;
  char *copy = malloc(n);
  if (copy != NULL)
    memcpy(copy, text, n);
  return copy;
}

/// Stores `rule` for (primitive, platform), replacing an earlier one.
/// Returns false when out of memory.
static bool store_lowering(session *s, const char *primitive,
                           const char *platform, size_t rule) {
  for (size_t i = 0; i < s->lowering_count; i++) {
    lowering_entry *e = &s->lowerings[i];
    if (strcmp(e->primitive, primitive) == 0 &&
        (platform == NULL
             ? e->platform == NULL
             : e->platform != NULL && strcmp(e->platform, platform) == 0)) {
      e->rule = rule;
      return true;
    }
  }
  if (s->lowering_count == s->lowering_capacity) {
    size_t capacity = s->lowering_capacity > 0 ? 2 * s->lowering_capacity : 8;
    lowering_entry *grown =
        realloc(s->lowerings, capacity * sizeof *s->lowerings);
    if (grown == NULL)
      return false;
    s->lowerings = grown;
    s->lowering_capacity = capacity;
  }
  lowering_entry e = {copy_string(primitive), NULL, rule};
  if (platform != NULL)
    e.platform = copy_string(platform);
  if (e.primitive == NULL || (platform != NULL && e.platform == NULL)) {
    free(e.primitive);
    free(e.platform);
    return false;
  }
  s->lowerings[s->lowering_count++] = e;
  return true;
}

/// Names every platform a lowering rule may be registered for: cuda, rocm,
/// the alias gpu and what it stands for, and every registered factory name.
static const char *const builtin_known_platforms[] = {"cuda", "rocm", "gpu",
                                                      "oneapi"};
#define BUILTIN_KNOWN_COUNT 4

static bool is_known_platform(const session *s, const char *platform) {
  for (size_t i = 0; i < BUILTIN_KNOWN_COUNT; i++)
    if (strcmp(builtin_known_platforms[i], platform) == 0)
      return true;
  return find_factory(s, platform) != NULL;
}

static int compare_names(const void *a, const void *b) {
  // strcmp compares as unsigned char: code-point order for ASCII.
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/// Appends the known platforms, sorted by code point, without duplicates,
/// joined with ", ". Returns false when out of memory.
static bool append_known_platforms(lctx_impl_outcome *out, const session *s) {
  size_t count = BUILTIN_KNOWN_COUNT + s->config->factory_count;
  const char **names = malloc(count * sizeof *names);
  if (names == NULL)
    return false;
  for (size_t i = 0; i < BUILTIN_KNOWN_COUNT; i++)
    names[i] = builtin_known_platforms[i];
  for (size_t i = 0; i < s->config->factory_count; i++)
    names[BUILTIN_KNOWN_COUNT + i] = s->config->factories[i].name;
  qsort(names, count, sizeof *names, compare_names);
  for (size_t i = 0; i < count; i++) {
    if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
      continue; // a factory named like a built-in one
    if (i > 0)
      append(out, ", ");
    append(out, names[i]);
  }
  free(names);
  return true;
}

/// register_lowering(primitive, rule, platform), `platform` NULL meaning
/// None. A rule name the session does not declare cannot be run (status 1).
lctx_impl_status op_register_lowering(void *opaque, const char *primitive,
                                      const char *rule, const char *platform,
                                      lctx_impl_outcome *out) {
  session *s = opaque;
  outcome_reset(out);
  ptrdiff_t r = rule != NULL ? find_rule(s, rule) : -1;
  if (primitive == NULL || r < 0)
    return 1;

  if (platform == NULL) { // None: the common rule
    if (!store_lowering(s, primitive, NULL, (size_t)r))
      return 1;
    return outcome_status(out);
  }
  if (!is_known_platform(s, platform)) {
    raise_error(out, LCTX_IMPL_NOT_IMPLEMENTED_ERROR,
                "Registering an MLIR lowering rule for primitive ");
    append(out, primitive);
    append(out, " for an unknown platform ");
    append(out, platform);
    append(out, ". Known platforms are: ");
    if (!append_known_platforms(out, s))
      return 1;
    append(out, ".");
    return outcome_status(out);
  }
  // Expanded through the alias table: gpu stands for cuda, rocm, oneapi.
  if (strcmp(platform, "gpu") == 0) {
    for (size_t g = 0; g < GPU_PLATFORM_COUNT; g++)
      if (!store_lowering(s, primitive, gpu_platforms[g], (size_t)r))
        return 1;
  } else if (!store_lowering(s, primitive, platform, (size_t)r)) {
    return 1;
  }
  return outcome_status(out);
}
