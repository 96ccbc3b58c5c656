/*
 * export_data.c - the JSON forms of the spec table and of rule files (see
 * export_data.h).
 */
#include "export_data.h"

#include "case.h"

#include <string.h>

//===----------------------------------------------------------------------===//
// Building JSON: a NULL value (a string not UTF-8, no memory) fails the
// whole object, named by the caller.
//===----------------------------------------------------------------------===//

/* Sets `key` of `o` to `v` (stolen); false when `v` is NULL or the set
 * fails. */
static bool put(json_t *o, const char *key, json_t *v) {
  return v && json_object_set_new(o, key, v) == 0;
}

/* Appends `v` (stolen) to `a`; false as put. */
static bool add(json_t *a, json_t *v) {
  return v && json_array_append_new(a, v) == 0;
}

static json_t *str_json(lctx_str s) {
  return json_stringn(s.data, s.length);
}

/* `v` when `ok`; else frees `v` and returns NULL. */
static json_t *done(json_t *v, bool ok) {
  if (!ok) {
    json_decref(v);
    return NULL;
  }
  return v;
}

/* A new empty array set as `key` of `o` (which owns it); NULL when that
 * fails. */
static json_t *put_array(json_t *o, const char *key) {
  json_t *a = json_array();
  return put(o, key, a) ? a : NULL;
}

/* Writes `PATH:LINE: WHAT` (no LINE when 0) to `error`. */
static void say(lctx_buf *error, const char *path, int line, const char *what) {
  lctx_buf_append_cstr(error, path);
  if (line > 0) {
    lctx_buf_append_char(error, ':');
    lctx_buf_append_int(error, line);
  }
  lctx_buf_append_cstr(error, ": ");
  lctx_buf_append_cstr(error, what);
}

/* Appends `s` spelled as the spec table's double-quoted strings are. */
static void spell_string(lctx_buf *b, const char *s) {
  lctx_buf_append_char(b, '"');
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    const char *e = *c == '"'    ? "\\\""
                    : *c == '\\' ? "\\\\"
                    : *c == '\n' ? "\\n"
                    : *c == '\t' ? "\\t"
                    : *c == '\r' ? "\\r"
                                 : NULL;
    char hex[8];
    if (!e && *c < 0x20) {
      snprintf(hex, sizeof hex, "\\x%02x", *c);
      e = hex;
    }
    if (e)
      lctx_buf_append_cstr(b, e);
    else
      lctx_buf_append_char(b, (char)*c);
  }
  lctx_buf_append_char(b, '"');
}

static const char *const KIND_NAMES[] = {
    [LCTX_OUTCOME_NONE] = "none",     [LCTX_OUTCOME_CLIENT] = "client",
    [LCTX_OUTCOME_STRING] = "string", [LCTX_OUTCOME_PLATFORMS] = "platforms",
    [LCTX_OUTCOME_RAISE] = "raise",
};

/* An allowed outcome: its fields, and `spelled` as the table writes it
 * (also appended to `spelled`). */
static json_t *outcome_json(const lctx_spec_outcome *o, lctx_buf *spelled) {
  json_t *j = json_object();
  const char *kind = KIND_NAMES[o->kind];
  size_t from = spelled->length;
  lctx_buf_append_cstr(spelled, kind);
  bool ok = j && put(j, "kind", json_string(kind));
  if (o->kind == LCTX_OUTCOME_RAISE) {
    const char *error = lctx_error_class_name(o->error);
    ok = ok && put(j, "error", json_string(error));
    lctx_buf_append_char(spelled, ' ');
    lctx_buf_append_cstr(spelled, error);
  } else if (o->kind == LCTX_OUTCOME_CLIENT) {
    bool pinned = o->origin == LCTX_CLIENT_PINNED;
    ok = ok && put(j, "origin", json_string(pinned ? "pinned" : "registry"));
    lctx_buf_append_cstr(spelled, pinned ? " pinned" : " registry ");
    if (!pinned) {
      ok = ok && put(j, "registration", json_string(o->registration));
      lctx_buf_append_cstr(spelled, o->registration);
    }
  }
  if (o->kind != LCTX_OUTCOME_NONE) {
    ok = ok && put(j, "text", json_string(o->text));
    lctx_buf_append_char(spelled, ' ');
    spell_string(spelled, o->text);
  }
  ok = ok && put(j, "spelled", json_string(spelled->data + from));
  return done(j, ok);
}

/* `count` outcomes from `o` as an array; their spellings joined by "; "
 * appended to `spelled`. */
static json_t *outcomes_json(const lctx_spec_outcome *o, size_t count,
                             lctx_buf *spelled) {
  json_t *a = json_array();
  bool ok = a != NULL;
  for (size_t i = 0; ok && i < count; i++) {
    if (i > 0)
      lctx_buf_append_cstr(spelled, "; ");
    ok = add(a, outcome_json(&o[i], spelled));
  }
  return done(a, ok);
}

//===----------------------------------------------------------------------===//
// The spec table
//===----------------------------------------------------------------------===//

/* The `was` lines of row `r` (its states before the current one). */
static json_t *was_json(const lctx_spec *spec, const lctx_spec_row *r) {
  json_t *a = json_array();
  bool ok = a != NULL;
  char text[4 * LCTX_SPEC_MAX_TEMPLATE + 256];
  lctx_buf t;
  for (size_t k = 1; ok && k < r->was_count; k++) {
    const lctx_spec_was *w = &spec->was[r->first_was + k];
    json_t *j = json_object();
    lctx_buf_init(&t, text, sizeof text);
    ok = j && put(j, "release", json_string(spec->releases[w->boundary])) &&
         put(j, "commit", json_string(w->commit)) &&
         put(j, "line", json_integer(w->line)) &&
         put(j, "absent", json_boolean(w->absent));
    if (w->absent) {
      lctx_buf_append_cstr(&t, "absent ");
      spell_string(&t, w->why);
      ok = ok && put(j, "why", json_string(w->why)) &&
           put(j, "outcomes", json_array());
    } else {
      ok = ok && put(j, "outcomes",
                     outcomes_json(&spec->was_outcomes[w->first_outcome],
                                   w->outcome_count, &t));
    }
    ok = ok && put(j, "outcome", json_string(text)) && add(a, j);
    if (!ok)
      json_decref(j);
  }
  return done(a, ok);
}

/* The protocol operations whose answers row `r` judges. */
static json_t *ops_json(const lctx_spec_row *r) {
  json_t *a = json_array();
  if (r->ir || r->sweep)
    return a && add(a, json_string(r->ir ? "lower_per_platform" : "export"))
               ? a
               : (json_decref(a), NULL);
  bool ok = a != NULL;
  for (int k = 0; ok && k < LCTX_OP_KIND_COUNT; k++)
    if (r->ops & (1u << k))
      ok = add(a, json_string(lctx_op_kind_name((lctx_op_kind)k)));
  return done(a, ok);
}

static json_t *row_json(const lctx_spec *spec, const lctx_spec_row *r) {
  json_t *j = json_object();
  char text[4 * LCTX_SPEC_MAX_TEMPLATE + 256];
  lctx_buf t;
  lctx_buf_init(&t, text, sizeof text);
  const char *check = r->ir ? "ir" : r->sweep ? "sweep" : "op";
  bool ok =
      j && put(j, "id", json_string(r->id)) &&
      put(j, "line", json_integer(r->line)) &&
      put(j, "check", json_string(check)) && put(j, "ops", ops_json(r)) &&
      put(j, "strict",
          r->ir || r->sweep ? json_null()
                            : json_string(r->exact ? "exact" : "class")) &&
      (!r->sweep || put(j, "bound", json_real(r->bound))) &&
      put(j, "outcomes", outcomes_json(r->outcomes, r->outcome_count, &t)) &&
      put(j, "source", json_string(r->source)) &&
      put(j, "note", json_string(r->note)) && put(j, "was", was_json(spec, r));
  return done(j, ok);
}

static json_t *facts_json(const lctx_spec *spec) {
  json_t *a = json_array();
  bool ok = a != NULL;
  for (int f = 0; ok && f < LCTX_FACT_COUNT; f++) {
    const lctx_spec_fact *fact = &spec->fact[f];
    if (!fact->stated)
      continue;
    json_t *j = json_object();
    ok = j && put(j, "name", json_string(lctx_classify_fact_name(f))) &&
         put(j, "line", json_integer(fact->line)) &&
         put(j, "source", json_string(fact->source)) &&
         put(j, "note", json_string(fact->note)) && add(a, j);
    if (!ok)
      json_decref(j);
  }
  return done(a, ok);
}

/* The whole table read from `path`; NULL with the row (FILE:LINE) that
 * cannot be written as JSON in `error`. */
json_t *lctx_export_spec_json(const lctx_spec *spec, const char *path,
                              lctx_buf *error) {
  json_t *j = json_object(), *releases = NULL, *rows = NULL;
  bool ok = j && put(j, "spec", json_string(path)) &&
            put(j, "version", json_string(spec->version)) &&
            put(j, "jax_commit", json_string(spec->jax_commit)) &&
            (releases = put_array(j, "releases"));
  for (size_t i = 0; ok && i <= spec->release_count; i++)
    ok = add(releases, json_string(spec->releases[i]));
  ok = ok && put(j, "facts", facts_json(spec)) && (rows = put_array(j, "rows"));
  for (size_t i = 0; ok && i < spec->row_count; i++) {
    ok = add(rows, row_json(spec, &spec->rows[i]));
    if (!ok)
      say(error, path, spec->rows[i].line,
          "this row holds text that is not UTF-8 (or out of memory)");
  }
  if (!ok && error->length == 0)
    say(error, path, 0, "text that is not UTF-8 (or out of memory)");
  return done(j, ok);
}

//===----------------------------------------------------------------------===//
// The rule corpus
//===----------------------------------------------------------------------===//

static json_t *action_json(const lctx_rulefile *f, const lctx_rulefile_rule *r,
                           size_t k) {
  const lctx_lowering_action *a = &r->actions[k];
  json_t *j = json_object();
  bool ok = j && put(j, "kind", json_string(lctx_action_kind_name(a->kind))) &&
            put(j, "line", json_integer(r->action_lines[k]));
  if (a->kind == LCTX_ACTION_GET_BACKEND ||
      a->kind == LCTX_ACTION_GUARDED_GET_BACKEND)
    ok = ok && put(j, "optional", json_boolean(a->optional));
  else if (a->kind == LCTX_ACTION_RAISE_IF_MULTI)
    ok = ok && put(j, "message", str_json(a->message));
  else if (a->kind == LCTX_ACTION_LOWER_FUN)
    ok = ok && put(j, "primitive", str_json(f->primitives[a->primitive])) &&
         put(j, "compute_type",
             a->has_compute_type ? str_json(a->compute_type) : json_null());
  return done(j, ok);
}

static json_t *rule_json(const lctx_rulefile *f, const lctx_rulefile_rule *r) {
  json_t *j = json_object(), *regs = NULL, *actions = NULL;
  bool ok = j && put(j, "name", str_json(r->name)) &&
            put(j, "primitive", str_json(f->primitives[r->primitive])) &&
            put(j, "line", json_integer(r->line)) &&
            (regs = put_array(j, "registrations"));
  for (size_t i = 0; ok && i < r->registration_count; i++)
    ok = add(regs, r->registrations[i].is_default
                       ? json_null()
                       : str_json(r->registrations[i].platform));
  ok = ok && (actions = put_array(j, "actions"));
  for (size_t k = 0; ok && k < r->action_count; k++)
    ok = add(actions, action_json(f, r, k));
  return done(j, ok);
}

/* One parsed rule file read from `path`; NULL with FILE:LINE in `error`
 * when a string is not UTF-8 (or no memory). */
json_t *lctx_export_rulefile_json(const lctx_rulefile *f, const char *path,
                                  lctx_buf *error) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t stem = strlen(base);
  if (stem > 5 && strcmp(base + stem - 5, ".rule") == 0)
    stem -= 5;
  json_t *j = json_object(), *prims = NULL, *sources = NULL, *rules = NULL;
  bool ok = j && put(j, "path", json_string(path)) &&
            put(j, "stem", json_stringn(base, stem)) &&
            (prims = put_array(j, "primitives"));
  for (size_t i = 0; ok && i < f->primitive_count; i++)
    ok = add(prims, str_json(f->primitives[i]));
  ok = ok && (sources = put_array(j, "sources"));
  for (size_t i = 0; ok && i < f->source_count; i++)
    ok = add(sources, str_json(f->sources[i]));
  ok = ok &&
       put(j, "expect",
           f->has_expect ? json_string(f->expect_safe ? "safe" : "unsafe")
                         : json_null()) &&
       (rules = put_array(j, "rules"));
  for (size_t i = 0; ok && i < f->rule_count; i++) {
    ok = add(rules, rule_json(f, &f->rules[i]));
    if (!ok)
      say(error, path, f->rules[i].line,
          "this rule holds a string that is not UTF-8 (or out of memory)");
  }
  if (!ok && error->length == 0)
    say(error, path, 0, "a name or source is not UTF-8 (or out of memory)");
  return done(j, ok);
}
