/*
 * case_json_read.c - reading the JSON form of cases and outcomes (see
 * case_json.h for the form, case_json_read.h for the calls).
 *
 * Owns the reader: the JSON path it is at and the errors that name it, the
 * values it accepts, outcomes and cases (an operation's fields from the
 * table of operations, case_ops.h). Allocates nothing; never prints or
 * exits.
 */
#include "case_json_read.h"
#include "case_ops.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const KIND_NAMES[] = {
    [LCTX_OUTCOME_NONE] = "none",     [LCTX_OUTCOME_CLIENT] = "client",
    [LCTX_OUTCOME_STRING] = "string", [LCTX_OUTCOME_PLATFORMS] = "platforms",
    [LCTX_OUTCOME_RAISE] = "raise",
};
#define KIND_COUNT (sizeof KIND_NAMES / sizeof KIND_NAMES[0])

const char *lctx_outcome_kind_json(lctx_outcome_kind kind) {
  return (unsigned)kind < KIND_COUNT ? KIND_NAMES[kind] : NULL;
}

//===----------------------------------------------------------------------===//
// Reading: paths and errors
//===----------------------------------------------------------------------===//

typedef struct reader {
  lctx_buf *error;
  /// Where a case's expectations go (NULL: read, then dropped), each read
  /// into `scratch` first; the bytes of their texts so far.
  lctx_case_expect *expect;
  lctx_outcome scratch;
  size_t expect_text;
  lctx_buf path;
  char path_storage[256];
} reader;

static void reader_init(reader *r, lctx_buf *error) {
  r->error = error;
  r->expect = NULL;
  r->expect_text = 0;
  lctx_buf_init(&r->path, r->path_storage, sizeof r->path_storage);
}

/// Appends bytes for a human: printable ASCII raw, others as \xNN.
static void append_sanitized(lctx_buf *b, const char *s, size_t n) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n && i < 64; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      lctx_buf_append_char(b, (char)c);
    } else {
      char esc[4] = {'\\', 'x', digits[c >> 4], digits[c & 15]};
      lctx_buf_append(b, esc, 4);
    }
  }
  if (n > 64)
    lctx_buf_append_cstr(b, "...");
}

static size_t push_key(reader *r, const char *key, size_t n) {
  size_t saved = r->path.length;
  if (saved > 0)
    lctx_buf_append_char(&r->path, '.');
  append_sanitized(&r->path, key, n);
  return saved;
}

static size_t push_index(reader *r, size_t index) {
  size_t saved = r->path.length;
  lctx_buf_append_char(&r->path, '[');
  lctx_buf_append_int(&r->path, (long long)index);
  lctx_buf_append_char(&r->path, ']');
  return saved;
}

static void pop(reader *r, size_t saved) {
  if (saved < r->path.length) {
    r->path.length = saved;
    r->path.data[saved] = '\0';
  }
}

/// Starts an error at the current path and returns the writer.
static lctx_buf *error_here(reader *r) {
  lctx_buf_append_cstr(r->error, r->path.length ? r->path.data : "(top level)");
  lctx_buf_append_cstr(r->error, ": ");
  return r->error;
}

static bool fail(reader *r, const char *message) {
  lctx_buf_append_cstr(error_here(r), message);
  return false;
}

static bool fail_missing(reader *r, const char *key) {
  lctx_buf *e = error_here(r);
  lctx_buf_append_cstr(e, "missing key \"");
  lctx_buf_append_cstr(e, key);
  lctx_buf_append_char(e, '"');
  return false;
}

/// Fails with "WHAT (N UNIT, at most MAX)", e.g. "too many (9, at most 8)".
static bool fail_over(reader *r, const char *what, long long n,
                      const char *unit, long long max) {
  char why[96];
  snprintf(why, sizeof why, "%s (%lld%s, at most %lld)", what, n, unit, max);
  return fail(r, why);
}

/// Rejects any key of `object` that is not in `allowed`.
static bool check_keys(reader *r, const json_t *object,
                       const char *const *allowed, size_t count) {
  const char *key;
  size_t key_length;
  json_t *value;
  json_object_keylen_foreach((json_t *)object, key, key_length, value) {
    (void)value;
    bool known = false;
    for (size_t i = 0; i < count && !known; i++)
      known = strlen(allowed[i]) == key_length &&
              memcmp(allowed[i], key, key_length) == 0;
    if (!known) {
      push_key(r, key, key_length);
      return fail(r, "unknown key");
    }
  }
  return true;
}

#define CHECK_KEYS(r, object, ...)                                             \
  check_keys((r), (object), (const char *const[]){__VA_ARGS__},                \
             sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *))

//===----------------------------------------------------------------------===//
// Reading: values
//===----------------------------------------------------------------------===//

/// Reads a name string into `dst` (capacity max + 1).
static bool name_value(reader *r, const json_t *v, char *dst, size_t max) {
  if (!json_is_string(v))
    return fail(r, "expected a string");
  const char *s = json_string_value(v);
  size_t n = json_string_length(v);
  if (n > max)
    return fail_over(r, "too long", (long long)n, " bytes", (long long)max);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == 0 || c >= 0x80) {
      static const char digits[] = "0123456789abcdef";
      lctx_buf *e = error_here(r);
      lctx_buf_append_cstr(e, "byte 0x");
      lctx_buf_append_char(e, digits[c >> 4]);
      lctx_buf_append_char(e, digits[c & 15]);
      lctx_buf_append_cstr(e, " outside 0x01-0x7f (names are ASCII)");
      return false;
    }
  }
  memcpy(dst, s, n);
  dst[n] = '\0';
  return true;
}

/// Reads the member `key` of `object` as a name; `required` or "".
static bool get_name(reader *r, const json_t *object, const char *key,
                     bool required, char *dst, size_t max) {
  const json_t *v = json_object_get(object, key);
  if (!v) {
    dst[0] = '\0';
    return !required || fail_missing(r, key);
  }
  size_t saved = push_key(r, key, strlen(key));
  bool ok = name_value(r, v, dst, max);
  pop(r, saved);
  return ok;
}

/// Reads the member `key` as a name or null (`*present` false).
static bool get_name_or_null(reader *r, const json_t *object, const char *key,
                             bool *present, char *dst, size_t max) {
  const json_t *v = json_object_get(object, key);
  if (!v)
    return fail_missing(r, key);
  *present = !json_is_null(v);
  dst[0] = '\0';
  if (!*present)
    return true;
  size_t saved = push_key(r, key, strlen(key));
  bool ok = json_is_string(v) ? name_value(r, v, dst, max)
                              : fail(r, "expected a string or null");
  pop(r, saved);
  return ok;
}

static bool get_bool(reader *r, const json_t *object, const char *key,
                     bool required, bool *dst) {
  const json_t *v = json_object_get(object, key);
  if (!v) {
    *dst = false;
    return !required || fail_missing(r, key);
  }
  size_t saved = push_key(r, key, strlen(key));
  bool ok = json_is_boolean(v) ? (*dst = json_is_true(v), true)
                               : fail(r, "expected a boolean");
  pop(r, saved);
  return ok;
}

static bool get_int(reader *r, const json_t *object, const char *key,
                    long long lo, long long hi, int *dst) {
  const json_t *v = json_object_get(object, key);
  if (!v)
    return fail_missing(r, key);
  size_t saved = push_key(r, key, strlen(key));
  bool ok = json_is_integer(v);
  if (!ok) {
    fail(r, "expected an integer");
  } else {
    json_int_t value = json_integer_value(v);
    if (value < lo || value > hi) {
      char why[96];
      snprintf(why, sizeof why, "out of range (%lld to %lld)", lo, hi);
      ok = fail(r, why);
    } else {
      *dst = (int)value;
    }
  }
  pop(r, saved);
  return ok;
}

/// Reads the member `key` as a keyword string (not validated) into `*s`.
static bool get_keyword(reader *r, const json_t *object, const char *key,
                        lctx_str *s) {
  const json_t *v = json_object_get(object, key);
  if (!v)
    return fail_missing(r, key);
  if (json_is_string(v)) {
    *s = lctx_str_make(json_string_value(v), json_string_length(v));
    return true;
  }
  size_t saved = push_key(r, key, strlen(key));
  fail(r, "expected a string");
  pop(r, saved);
  return false;
}

/* An object whose `key` says what it is (an outcome, an action, an operation).
 */
static bool get_tag(reader *r, const json_t *j, const char *key,
                    lctx_str *name) {
  if (!json_is_object(j))
    return fail(r, "expected an object");
  return get_keyword(r, j, key, name);
}

/// Reports an unknown keyword at member `key`.
static bool fail_keyword(reader *r, const char *key, const char *what,
                         lctx_str value, const char *expected) {
  size_t saved = push_key(r, key, strlen(key));
  lctx_buf *e = error_here(r);
  lctx_buf_append_cstr(e, "unknown ");
  lctx_buf_append_cstr(e, what);
  lctx_buf_append_cstr(e, " \"");
  append_sanitized(e, value.data, value.length);
  lctx_buf_append_cstr(e, "\" (expected ");
  lctx_buf_append_cstr(e, expected);
  lctx_buf_append_char(e, ')');
  pop(r, saved);
  return false;
}

/// Reads an array member with at most `max` elements.
static bool get_array(reader *r, const json_t *object, const char *key,
                      bool required, size_t max, const json_t **array) {
  const json_t *v = json_object_get(object, key);
  *array = v;
  if (!v)
    return !required || fail_missing(r, key);
  size_t saved = push_key(r, key, strlen(key));
  bool ok = true;
  if (!json_is_array(v)) {
    ok = fail(r, "expected an array");
  } else if (json_array_size(v) > max) {
    ok = fail_over(r, "too many", (long long)json_array_size(v), "",
                   (long long)max);
  }
  pop(r, saved);
  return ok;
}

//===----------------------------------------------------------------------===//
// Reading: outcomes
//===----------------------------------------------------------------------===//

/// Reads an outcome text member into the outcome's text.
static bool get_text(reader *r, const json_t *object, const char *key,
                     lctx_str *text) {
  if (!get_keyword(r, object, key, text))
    return false;
  bool too_long = text->length > LCTX_OUTCOME_TEXT_MAX - 1;
  if (!too_long && !memchr(text->data, 0, text->length))
    return true;
  size_t saved = push_key(r, key, strlen(key));
  if (too_long)
    fail_over(r, "too long", (long long)text->length, " bytes",
              LCTX_OUTCOME_TEXT_MAX - 1);
  else
    fail(r, "holds a NUL byte");
  pop(r, saved);
  return false;
}

static bool read_outcome(reader *r, const json_t *j, lctx_outcome *out) {
  lctx_str kind_name;
  if (!get_tag(r, j, "kind", &kind_name))
    return false;
  size_t kind = KIND_COUNT;
  for (size_t i = 0; i < KIND_COUNT; i++) {
    if (lctx_str_equal_cstr(kind_name, KIND_NAMES[i]))
      kind = i;
  }
  lctx_str text = {"", 0};
  switch (kind) {
  case LCTX_OUTCOME_NONE:
    if (!CHECK_KEYS(r, j, "kind", "truncated"))
      return false;
    lctx_outcome_set_none(out);
    break;
  case LCTX_OUTCOME_STRING:
  case LCTX_OUTCOME_PLATFORMS: {
    if (!CHECK_KEYS(r, j, "kind", "value", "truncated") ||
        !get_text(r, j, "value", &text))
      return false;
    lctx_buf w = lctx_outcome_begin(out, (lctx_outcome_kind)kind);
    lctx_buf_append_str(&w, text);
    lctx_outcome_end(out, &w);
    break;
  }
  case LCTX_OUTCOME_CLIENT: {
    lctx_str origin;
    if (!get_keyword(r, j, "origin", &origin))
      return false;
    int registration = -1;
    if (lctx_str_equal_cstr(origin, "pinned")) {
      if (!CHECK_KEYS(r, j, "kind", "origin", "platform", "truncated") ||
          !get_text(r, j, "platform", &text))
        return false;
      lctx_outcome_set_client(out, LCTX_CLIENT_PINNED, -1, text);
    } else if (lctx_str_equal_cstr(origin, "registry")) {
      if (!CHECK_KEYS(r, j, "kind", "origin", "registration", "platform",
                      "truncated") ||
          !get_int(r, j, "registration", 0, INT_MAX, &registration) ||
          !get_text(r, j, "platform", &text))
        return false;
      lctx_outcome_set_client(out, LCTX_CLIENT_REGISTRY, registration, text);
    } else {
      return fail_keyword(r, "origin", "client origin", origin,
                          "registry or pinned");
    }
    break;
  }
  case LCTX_OUTCOME_RAISE: {
    lctx_str class_name;
    lctx_error_class error;
    if (!CHECK_KEYS(r, j, "kind", "class", "message", "truncated") ||
        !get_keyword(r, j, "class", &class_name))
      return false;
    if (!lctx_error_class_from_name(class_name, &error))
      return fail_keyword(r, "class", "error class", class_name,
                          "RuntimeError, ValueError, NotImplementedError, "
                          "AssertionError or IndexError");
    if (!get_text(r, j, "message", &text))
      return false;
    lctx_buf w = lctx_outcome_begin_raise(out, error);
    lctx_buf_append_str(&w, text);
    lctx_outcome_end(out, &w);
    break;
  }
  default:
    return fail_keyword(r, "kind", "outcome kind", kind_name,
                        "none, string, platforms, client or raise");
  }
  bool truncated;
  if (!get_bool(r, j, "truncated", false, &truncated))
    return false;
  out->truncated = truncated;
  return true;
}

bool lctx_outcome_from_json(const json_t *j, lctx_outcome *out,
                            lctx_buf *error) {
  reader r;
  reader_init(&r, error);
  lctx_outcome_set_none(out);
  return read_outcome(&r, j, out);
}

//===----------------------------------------------------------------------===//
// Reading: cases
//===----------------------------------------------------------------------===//

static bool read_factory(reader *r, const json_t *j, lctx_case_factory *f) {
  memset(f, 0, sizeof *f);
  if (!json_is_object(j))
    return fail(r, "expected an object");
  if (!CHECK_KEYS(r, j, "name", "priority", "fail_quietly", "behaviour",
                  "message") ||
      !get_name(r, j, "name", true, f->name, LCTX_MAX_NAME) ||
      !get_int(r, j, "priority", INT_MIN, INT_MAX, &f->priority) ||
      !get_bool(r, j, "fail_quietly", true, &f->fail_quietly))
    return false;
  lctx_str behaviour;
  if (!get_keyword(r, j, "behaviour", &behaviour))
    return false;
  if (!lctx_factory_behaviour_from_name(behaviour, &f->behaviour))
    return fail_keyword(r, "behaviour", "behaviour", behaviour,
                        "client, raises, none or no_devices");
  if (!get_name(r, j, "message", false, f->message, LCTX_MAX_MESSAGE))
    return false;
  if (f->behaviour != LCTX_FACTORY_RAISES && f->message[0]) {
    size_t saved = push_key(r, "message", 7);
    fail(r, "only a factory that raises has a message");
    pop(r, saved);
    return false;
  }
  return true;
}

/// Reads the elements of the array `list` (at most
/// LCTX_MAX_MODULE_PLATFORMS, checked) into `dst`; `key` names it.
static bool read_name_list(reader *r, const char *key, const json_t *list,
                           lctx_case *c, uint8_t *dst, size_t *count) {
  size_t saved = push_key(r, key, strlen(key));
  bool ok = true;
  for (size_t k = 0; ok && k < json_array_size(list); k++) {
    size_t inner = push_index(r, k);
    char name[LCTX_MAX_NAME + 1];
    ok = name_value(r, json_array_get(list, k), name, LCTX_MAX_NAME);
    if (ok && !lctx_case_intern_cstr(c, name, &dst[k])) {
      char why[96];
      snprintf(why, sizeof why,
               "too many distinct platform names in the case (at most %d)",
               LCTX_CASE_MAX_NAMES);
      ok = fail(r, why);
    }
    pop(r, inner);
    *count = k + 1;
  }
  pop(r, saved);
  return ok;
}

/// Reads the member `key` as the name of a rule the case declares (or
/// null, when `present` is given).
static bool get_rule_ref(reader *r, const json_t *object, const char *key,
                         const lctx_case *c, bool *present, char *dst) {
  if (present ? !get_name_or_null(r, object, key, present, dst, LCTX_MAX_NAME)
              : !get_name(r, object, key, true, dst, LCTX_MAX_NAME))
    return false;
  if ((present && !*present) || lctx_case_rule_find(c, dst) >= 0)
    return true;
  size_t saved = push_key(r, key, strlen(key));
  lctx_buf *e = error_here(r);
  lctx_buf_append_cstr(e, "no rule named \"");
  append_sanitized(e, dst, strlen(dst));
  lctx_buf_append_cstr(e, "\" in \"rules\"");
  pop(r, saved);
  return false;
}

/// Checks the case read so far with lctx_case_validate (the lowering
/// limits); on failure reports its message at the current path (the rule
/// or operation just read).
static bool check_valid(reader *r, const lctx_case *c) {
  char storage[512];
  lctx_buf v;
  lctx_buf_init(&v, storage, sizeof storage);
  if (lctx_case_validate(c, &v))
    return true;
  lctx_buf *e = error_here(r);
  lctx_buf_append_cstr(e, "makes the case invalid: ");
  lctx_buf_append_cstr(e, storage);
  return false;
}

static bool read_action(reader *r, const json_t *j, lctx_case_action *a) {
  memset(a, 0, sizeof *a);
  lctx_str name;
  if (!get_tag(r, j, "action", &name))
    return false;
  if (!lctx_action_kind_from_name(name, &a->kind))
    return fail_keyword(r, "action", "action", name,
                        "get_backend, guarded_get_backend, "
                        "try_fallback_get_backend, raise_if_multi, "
                        "read_client_platform, lower_fun or marker");
  switch (a->kind) {
  case LCTX_ACTION_GET_BACKEND:
  case LCTX_ACTION_GUARDED_GET_BACKEND:
    return CHECK_KEYS(r, j, "action", "optional") &&
           get_bool(r, j, "optional", true, &a->optional);
  case LCTX_ACTION_RAISE_IF_MULTI:
    return CHECK_KEYS(r, j, "action", "message") &&
           get_name(r, j, "message", true, a->text, LCTX_MAX_NAME);
  case LCTX_ACTION_LOWER_FUN:
    return CHECK_KEYS(r, j, "action", "primitive", "compute_type") &&
           get_name(r, j, "primitive", true, a->text, LCTX_MAX_NAME) &&
           get_name_or_null(r, j, "compute_type", &a->has_compute_type,
                            a->compute_type, LCTX_MAX_NAME);
  case LCTX_ACTION_TRY_FALLBACK_GET_BACKEND:
  case LCTX_ACTION_READ_CLIENT_PLATFORM:
  case LCTX_ACTION_EMIT_MARKER:
    break;
  }
  return CHECK_KEYS(r, j, "action");
}

static bool read_rule(reader *r, const json_t *j, lctx_case_rule *rule) {
  memset(rule, 0, sizeof *rule);
  if (!json_is_object(j))
    return fail(r, "expected an object");
  const json_t *actions;
  if (!CHECK_KEYS(r, j, "name", "actions") ||
      !get_name(r, j, "name", true, rule->name, LCTX_MAX_NAME))
    return false;
  if (rule->name[0] == '\0') {
    size_t saved = push_key(r, "name", 4);
    fail(r, "empty (a rule needs a name)");
    pop(r, saved);
    return false;
  }
  if (!get_array(r, j, "actions", true, LCTX_CASE_MAX_ACTIONS, &actions))
    return false;
  size_t saved = push_key(r, "actions", 7);
  for (size_t k = 0; k < json_array_size(actions); k++) {
    size_t inner = push_index(r, k);
    if (!read_action(r, json_array_get(actions, k), &rule->actions[k]))
      return false;
    rule->action_count = k + 1;
    pop(r, inner);
  }
  pop(r, saved);
  return true;
}

/// Reads field `f` of `op` from the member of `j` it names.
static bool read_field(reader *r, const json_t *j, lctx_case *c,
                       lctx_case_op *op, const lctx_op_field *f) {
  const char *key = f->json_key;
  char *text = lctx_op_text(op, f);
  bool nullable = f->optional && f->kind != LCTX_OP_FIELD_FLAG;
  switch (f->kind) {
  case LCTX_OP_FIELD_NAME:
    if (nullable)
      return get_name_or_null(r, j, key, lctx_op_has(op, f), text,
                              LCTX_MAX_NAME);
    if (f->has != LCTX_OP_NO_MEMBER)
      *lctx_op_has(op, f) = true;
    return get_name(r, j, key, true, text, LCTX_MAX_NAME);
  case LCTX_OP_FIELD_NAME_OR_NONE:
    return get_name_or_null(r, j, key, lctx_op_has(op, f), text, LCTX_MAX_NAME);
  case LCTX_OP_FIELD_RULE:
    return get_rule_ref(r, j, key, c, nullable ? lctx_op_has(op, f) : NULL,
                        text);
  case LCTX_OP_FIELD_LIST: {
    const json_t *list = json_object_get(j, key);
    if (nullable) {
      if (!list)
        return fail_missing(r, key);
      if (json_is_null(list))
        return true;
      *lctx_op_has(op, f) = true;
      if (!json_is_array(list)) {
        size_t saved = push_key(r, key, strlen(key));
        fail(r, "expected an array or null");
        pop(r, saved);
        return false;
      }
    }
    return get_array(r, j, key, true, LCTX_MAX_MODULE_PLATFORMS, &list) &&
           read_name_list(r, key, list, c, (uint8_t *)text,
                          lctx_op_count(op, f));
  }
  case LCTX_OP_FIELD_FLAG:
    return get_bool(r, j, key, true, (bool *)text);
  }
  return false;
}

/// Rejects a key of the operation `j` that is not "op", a field of `def`
/// or "expect".
static bool check_op_keys(reader *r, const json_t *j, const lctx_op_def *def) {
  const char *allowed[LCTX_OP_MAX_FIELDS + 2] = {"op"};
  size_t n = 1;
  for (size_t k = 0; k < def->field_count; k++)
    allowed[n++] = def->fields[k].json_key;
  allowed[n++] = "expect";
  return check_keys(r, j, allowed, n);
}

static bool read_op(reader *r, const json_t *j, lctx_case *c, lctx_case_op *op,
                    bool *has_expect, lctx_outcome *expect) {
  memset(op, 0, sizeof *op);
  lctx_str name;
  if (!get_tag(r, j, "op", &name))
    return false;
  if (!lctx_op_kind_from_name(name, &op->kind)) {
    char expected[256];
    lctx_buf eb;
    lctx_buf_init(&eb, expected, sizeof expected);
    lctx_op_keywords(&eb);
    return fail_keyword(r, "op", "operation", name, expected);
  }
  const lctx_op_def *def = lctx_op_get(op->kind);
  if (!check_op_keys(r, j, def))
    return false;
  for (size_t k = 0; k < def->field_count; k++) {
    if (!read_field(r, j, c, op, &def->fields[k]))
      return false;
  }
  const json_t *e = json_object_get(j, "expect");
  *has_expect = e != NULL;
  bool ok = true;
  if (e) {
    size_t saved = push_key(r, "expect", 6);
    ok = read_outcome(r, e, expect);
    pop(r, saved);
  }
  return ok;
}

/* The element `i` of an array of the case, read into `out`. */
typedef bool (*element_reader)(reader *r, const json_t *j, size_t i,
                               lctx_case *out);

/* Reads each element of the array `key` of `j` (optional, at most `max`
 * elements) with `read`, the error path naming the element. */
static bool read_each(reader *r, const json_t *j, const char *key, size_t max,
                      element_reader read, lctx_case *out) {
  const json_t *array;
  if (!get_array(r, j, key, false, max, &array))
    return false;
  if (!array)
    return true;
  size_t saved = push_key(r, key, strlen(key));
  for (size_t i = 0; i < json_array_size(array); i++) {
    size_t inner = push_index(r, i);
    if (!read(r, json_array_get(array, i), i, out))
      return false;
    pop(r, inner);
  }
  pop(r, saved);
  return true;
}

/* The name of element `i` of `list` repeats that of element `k`. */
static bool fail_repeated(reader *r, const char *list, size_t k) {
  char why[64];
  snprintf(why, sizeof why, "repeats %s[%zu].name", list, k);
  push_key(r, "name", 4);
  return fail(r, why);
}

static bool factory_at(reader *r, const json_t *j, size_t i, lctx_case *out) {
  lctx_case_factory *f = &out->factories[i];
  if (!read_factory(r, j, f))
    return false;
  for (size_t k = 0; k < i; k++) {
    if (strcmp(out->factories[k].name, f->name) == 0)
      return fail_repeated(r, "factories", k);
  }
  out->factory_count = i + 1;
  return true;
}

static bool rule_at(reader *r, const json_t *j, size_t i, lctx_case *out) {
  lctx_case_rule *rule = &out->rules[i];
  if (!read_rule(r, j, rule))
    return false;
  for (size_t k = 0; k < i; k++) {
    if (strcmp(out->rules[k].name, rule->name) == 0)
      return fail_repeated(r, "rules", k);
  }
  out->rule_count = i + 1;
  return check_valid(r, out);
}

static bool op_at(reader *r, const json_t *j, size_t i, lctx_case *out) {
  bool has_expect;
  if (!read_op(r, j, out, &out->ops[i], &has_expect, &r->scratch))
    return false;
  if (has_expect) {
    r->expect_text += r->scratch.length;
    if (r->expect_text > LCTX_CASE_EXPECT_TEXT_MAX) {
      char why[160];
      snprintf(why, sizeof why,
               "brings the case's expectation texts to %zu bytes together, "
               "more than the %d a case holds",
               r->expect_text, LCTX_CASE_EXPECT_TEXT_MAX);
      push_key(r, "expect", 6);
      return fail(r, why);
    }
    if (r->expect) /* fits: counted above */
      (void)lctx_case_expect_set(r->expect, i, &r->scratch);
  }
  out->op_count = i + 1;
  return !lctx_op_get(out->ops[i].kind)->lowering || check_valid(r, out);
}

bool lctx_case_from_json(const json_t *j, lctx_case *out,
                         lctx_case_expect *expect, lctx_buf *error) {
  reader r;
  reader_init(&r, error);
  r.expect = expect;
  lctx_case_init(out);
  if (expect)
    lctx_case_expect_init(expect);
  if (!json_is_object(j))
    return fail(&r, "expected an object");
  return CHECK_KEYS(&r, j, "factories", "jax_platforms", "jax_platform_name",
                    "jax_xla_backend", "nvidia_gpu_visible", "rules",
                    "operations") &&
         read_each(&r, j, "factories", LCTX_MAX_FACTORIES, factory_at, out) &&
         get_name(&r, j, "jax_platforms", false, out->jax_platforms,
                  LCTX_MAX_PLATFORMS_CONFIG) &&
         get_name(&r, j, "jax_platform_name", false, out->jax_platform_name,
                  LCTX_MAX_NAME) &&
         get_name(&r, j, "jax_xla_backend", false, out->jax_xla_backend,
                  LCTX_MAX_NAME) &&
         get_bool(&r, j, "nvidia_gpu_visible", false,
                  &out->nvidia_gpu_visible) &&
         read_each(&r, j, "rules", LCTX_CASE_MAX_RULES, rule_at, out) &&
         read_each(&r, j, "operations", LCTX_CASE_MAX_OPS, op_at, out);
}
