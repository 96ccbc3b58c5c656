/*
 * tests/test_support.h - helpers shared by the CMocka unit tests.
 *
 * Builds registry configurations (factories, the stock JAX set-up) and checks
 * outcomes exactly: kind, error class, client identity (origin and
 * registration index) and every byte of the text. On a mismatch it prints
 * both outcomes with C escapes and the offset of the first differing byte,
 * then fails at the caller's file and line. It renders outcomes itself and
 * never through the model's own formatting, so a defect there cannot hide a
 * defect elsewhere.
 *
 * Include it after <cmocka.h>.
 */
#ifndef LCTX_TESTS_TEST_SUPPORT_H
#define LCTX_TESTS_TEST_SUPPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lctx/lctx.h"

//===----------------------------------------------------------------------===//
// Factories and configurations
//===----------------------------------------------------------------------===//

/// A factory with every field given.
static inline lctx_factory ts_factory(const char *name, int priority,
                                      bool fail_quietly,
                                      lctx_factory_behaviour behaviour,
                                      const char *message) {
  lctx_factory f;
  memset(&f, 0, sizeof f);
  f.name = name;
  f.priority = priority;
  f.fail_quietly = fail_quietly;
  f.behaviour = behaviour;
  f.message = message;
  return f;
}

/// A factory that returns a client with devices.
static inline lctx_factory ts_client(const char *name, int priority,
                                     bool fail_quietly) {
  return ts_factory(name, priority, fail_quietly, LCTX_FACTORY_CLIENT, NULL);
}

/// A factory that raises `message`.
static inline lctx_factory ts_raises(const char *name, int priority,
                                     bool fail_quietly, const char *message) {
  return ts_factory(name, priority, fail_quietly, LCTX_FACTORY_RAISES, message);
}

/// A factory that returns None.
static inline lctx_factory ts_returns_none(const char *name, int priority,
                                           bool fail_quietly) {
  return ts_factory(name, priority, fail_quietly, LCTX_FACTORY_RETURNS_NONE,
                    NULL);
}

/// A factory that returns a client without devices.
static inline lctx_factory ts_no_devices(const char *name, int priority,
                                         bool fail_quietly) {
  return ts_factory(name, priority, fail_quietly, LCTX_FACTORY_NO_DEVICES,
                    NULL);
}

/// Registers a factory; the test fails if the configuration is full.
#define ts_add(config, factory)                                                \
  ts_add_at((config), (factory), __FILE__, __LINE__)
static inline void ts_add_at(lctx_registry_config *config, lctx_factory f,
                             const char *file, int line) {
  if (!lctx_registry_config_add_factory(config, f)) {
    print_error("lctx_registry_config_add_factory(\"%s\") returned false\n",
                f.name ? f.name : "(null)");
    _fail(file, line);
  }
}

/// Stock JAX without plugins: `cpu` (priority 0, loud) then `tpu` (priority
/// 300, quiet), both returning clients. No config values, no NVIDIA GPU.
static inline void ts_config_stock(lctx_registry_config *config) {
  lctx_registry_config_init(config);
  ts_add(config, ts_client("cpu", 0, false));
  ts_add(config, ts_client("tpu", 300, true));
}

/// Stock JAX with the three GPU plugins: `cpu` (0, loud), `tpu` (300, quiet,
/// raising "TPU not found"), then `cuda`, `rocm`, `oneapi` (400, loud), all
/// returning clients. `nvidia` says whether an NVIDIA GPU is visible.
static inline void ts_config_gpus(lctx_registry_config *config, bool nvidia) {
  lctx_registry_config_init(config);
  ts_add(config, ts_client("cpu", 0, false));
  ts_add(config, ts_raises("tpu", 300, true, "TPU not found"));
  ts_add(config, ts_client("cuda", 400, false));
  ts_add(config, ts_client("rocm", 400, false));
  ts_add(config, ts_client("oneapi", 400, false));
  config->nvidia_gpu_visible = nvidia;
}

/// Validates `config` (the test fails if it is rejected) and creates an
/// uninitialized registry over it.
#define ts_open(registry, config)                                              \
  ts_open_at((registry), (config), __FILE__, __LINE__)
static inline void ts_open_at(lctx_registry *registry,
                              const lctx_registry_config *config,
                              const char *file, int line) {
  char storage[512];
  lctx_buf error;
  lctx_buf_init(&error, storage, sizeof storage);
  if (!lctx_registry_config_validate(config, &error)) {
    print_error("configuration rejected: %s\n", storage);
    _fail(file, line);
  }
  lctx_registry_init(registry, config);
}

/// A view of a NUL-terminated literal.
static inline lctx_str ts_s(const char *s) {
  return lctx_str_from_cstr(s);
}

//===----------------------------------------------------------------------===//
// Rendering for failure reports
//===----------------------------------------------------------------------===//

/// Writes `n` bytes of `s` into `dst` (capacity `cap`) with C escapes.
static inline void ts_escape(const char *s, size_t n, char *dst, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n && o + 5 < cap; ++i) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\' || c == '"') {
      dst[o++] = '\\';
      dst[o++] = (char)c;
    } else if (c == '\n') {
      dst[o++] = '\\';
      dst[o++] = 'n';
    } else if (c == '\t') {
      dst[o++] = '\\';
      dst[o++] = 't';
    } else if (c == '\r') {
      dst[o++] = '\\';
      dst[o++] = 'r';
    } else if (c < 0x20 || c >= 0x7f) {
      o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", c);
    } else {
      dst[o++] = (char)c;
    }
  }
  dst[o] = '\0';
}

static inline const char *ts_class_name(lctx_error_class error) {
  switch (error) {
  case LCTX_ERROR_NONE:
    return "(no class)";
  case LCTX_ERROR_RUNTIME:
    return "RuntimeError";
  case LCTX_ERROR_VALUE:
    return "ValueError";
  case LCTX_ERROR_NOT_IMPLEMENTED:
    return "NotImplementedError";
  case LCTX_ERROR_ASSERTION:
    return "AssertionError";
  case LCTX_ERROR_INDEX:
    return "IndexError";
  }
  return "(bad class)";
}

/// Prints an outcome: kind, class, identity and escaped text.
static inline void ts_print_outcome(const char *label, const lctx_outcome *o) {
  static char escaped[4 * LCTX_OUTCOME_TEXT_MAX + 8];
  size_t n =
      o->length < LCTX_OUTCOME_TEXT_MAX ? o->length : LCTX_OUTCOME_TEXT_MAX - 1;
  ts_escape(o->text, n, escaped, sizeof escaped);
  switch (o->kind) {
  case LCTX_OUTCOME_NONE:
    print_error("  %s None\n", label);
    return;
  case LCTX_OUTCOME_CLIENT:
    print_error("  %s client origin=%s registration=%d platform=\"%s\"\n",
                label, o->origin == LCTX_CLIENT_PINNED ? "PINNED" : "REGISTRY",
                o->registration, escaped);
    return;
  case LCTX_OUTCOME_STRING:
    print_error("  %s string \"%s\"\n", label, escaped);
    return;
  case LCTX_OUTCOME_PLATFORMS:
    print_error("  %s platforms \"%s\"\n", label, escaped);
    return;
  case LCTX_OUTCOME_RAISE:
    print_error("  %s raise %s \"%s\"\n", label, ts_class_name(o->error),
                escaped);
    return;
  }
  print_error("  %s (bad kind %d)\n", label, (int)o->kind);
}

//===----------------------------------------------------------------------===//
// Exact comparisons
//===----------------------------------------------------------------------===//

/// Compares `n` bytes at `actual` with NUL-terminated `expected`; on a
/// mismatch prints both escaped and the first differing offset, and returns
/// false.
static inline bool ts_text_matches(const char *what, const char *actual,
                                   size_t n, const char *expected) {
  size_t m = strlen(expected);
  if (n == m && memcmp(actual, expected, m) == 0)
    return true;
  static char ea[4 * LCTX_OUTCOME_TEXT_MAX + 8];
  static char ee[4 * LCTX_OUTCOME_TEXT_MAX + 8];
  size_t at = 0;
  while (at < n && at < m && actual[at] == expected[at])
    ++at;
  ts_escape(actual, n, ea, sizeof ea);
  ts_escape(expected, m, ee, sizeof ee);
  print_error("%s differs at byte %zu (expected %zu bytes, got %zu)\n"
              "  expected \"%s\"\n  actual   \"%s\"\n",
              what, at, m, n, ee, ea);
  return false;
}

/// Fails unless the view holds exactly `expected`.
#define assert_str_view(view, expected)                                        \
  ts_assert_str_view_at((view), (expected), __FILE__, __LINE__)
static inline void ts_assert_str_view_at(lctx_str view, const char *expected,
                                         const char *file, int line) {
  if (view.length != 0 && view.data == NULL) {
    print_error("view has NULL data and length %zu\n", view.length);
    _fail(file, line);
  }
  if (!ts_text_matches("string view", view.length ? view.data : "", view.length,
                       expected))
    _fail(file, line);
}

/// Fails unless the writer holds exactly `expected`, NUL-terminated, without
/// overflow.
#define assert_buf(buf, expected)                                              \
  ts_assert_buf_at((buf), (expected), __FILE__, __LINE__)
static inline void ts_assert_buf_at(const lctx_buf *buf, const char *expected,
                                    const char *file, int line) {
  if (buf->overflow) {
    print_error("writer overflowed\n");
    _fail(file, line);
  }
  if (!ts_text_matches("writer", buf->data, buf->length, expected))
    _fail(file, line);
  if (buf->data[buf->length] != '\0') {
    print_error("writer is not NUL-terminated at %zu\n", buf->length);
    _fail(file, line);
  }
}

/// The fields of an expected outcome that ts_assert_outcome_at checks.
typedef struct ts_expect {
  lctx_outcome_kind kind;
  lctx_error_class error;
  lctx_client_origin origin;
  int registration;
  const char *text;
} ts_expect;

static inline void ts_assert_outcome_at(const lctx_outcome *o, ts_expect e,
                                        const char *file, int line) {
  bool ok = o->kind == e.kind;
  if (ok && e.kind == LCTX_OUTCOME_RAISE)
    ok = o->error == e.error;
  else if (ok)
    ok = o->error == LCTX_ERROR_NONE;
  if (ok && e.kind == LCTX_OUTCOME_CLIENT)
    ok = o->origin == e.origin && o->registration == e.registration;
  if (ok && o->truncated) {
    print_error("outcome text marked truncated\n");
    ok = false;
  }
  if (ok && e.kind != LCTX_OUTCOME_NONE) {
    if (o->length >= LCTX_OUTCOME_TEXT_MAX) {
      print_error("outcome length %zu out of range\n", o->length);
      ok = false;
    } else {
      ok = ts_text_matches("outcome text", o->text, o->length, e.text);
      if (ok && o->text[o->length] != '\0') {
        print_error("outcome text not NUL-terminated\n");
        ok = false;
      }
    }
  }
  if (ok)
    return;
  lctx_outcome want;
  memset(&want, 0, sizeof want);
  want.kind = e.kind;
  want.error = e.error;
  want.origin = e.origin;
  want.registration = e.registration;
  if (e.text) {
    want.length = strlen(e.text);
    memcpy(want.text, e.text, want.length);
  }
  print_error("outcome mismatch\n");
  ts_print_outcome("expected", &want);
  ts_print_outcome("actual  ", o);
  _fail(file, line);
}

/// Fails unless `o` raised exactly `error` with exactly `message`.
#define assert_raise(o, error, message)                                        \
  ts_assert_outcome_at((o),                                                    \
                       (ts_expect){LCTX_OUTCOME_RAISE, (error),                \
                                   LCTX_CLIENT_REGISTRY, -1, (message)},       \
                       __FILE__, __LINE__)

/// Fails unless `o` returned None.
#define assert_none(o)                                                         \
  ts_assert_outcome_at((o),                                                    \
                       (ts_expect){LCTX_OUTCOME_NONE, LCTX_ERROR_NONE,         \
                                   LCTX_CLIENT_REGISTRY, -1, ""},              \
                       __FILE__, __LINE__)

/// Fails unless `o` returned exactly the string `s`.
#define assert_string(o, s)                                                    \
  ts_assert_outcome_at((o),                                                    \
                       (ts_expect){LCTX_OUTCOME_STRING, LCTX_ERROR_NONE,       \
                                   LCTX_CLIENT_REGISTRY, -1, (s)},             \
                       __FILE__, __LINE__)

/// Fails unless `o` returned the registry whose list repr is `repr`.
#define assert_platforms(o, repr)                                              \
  ts_assert_outcome_at((o),                                                    \
                       (ts_expect){LCTX_OUTCOME_PLATFORMS, LCTX_ERROR_NONE,    \
                                   LCTX_CLIENT_REGISTRY, -1, (repr)},          \
                       __FILE__, __LINE__)

/// Fails unless `o` returned the registry client made by registration
/// `registration`, whose real platform is `platform`.
#define assert_registry_client(o, registration, platform)                      \
  ts_assert_outcome_at((o),                                                    \
                       (ts_expect){LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE,       \
                                   LCTX_CLIENT_REGISTRY, (registration),       \
                                   (platform)},                                \
                       __FILE__, __LINE__)

/// Fails unless `o` returned the pinned client, whose real platform is
/// `platform`.
#define assert_pinned_client(o, platform)                                      \
  ts_assert_outcome_at((o),                                                    \
                       (ts_expect){LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE,       \
                                   LCTX_CLIENT_PINNED, -1, (platform)},        \
                       __FILE__, __LINE__)

/// Fails unless the registry's list repr (`list(backends())`) is `repr`.
#define assert_registry_platforms(registry, repr)                              \
  ts_assert_registry_platforms_at((registry), (repr), __FILE__, __LINE__)
static inline void ts_assert_registry_platforms_at(const lctx_registry *r,
                                                   const char *repr,
                                                   const char *file, int line) {
  char storage[LCTX_OUTCOME_TEXT_MAX];
  lctx_buf buf;
  lctx_buf_init(&buf, storage, sizeof storage);
  lctx_registry_format_platforms(r, &buf);
  ts_assert_buf_at(&buf, repr, file, line);
}

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

/// Fails unless an operation's return value says what its outcome says:
/// true exactly when it did not raise.
#define ts_check_return(ok, o) ts_check_return_at((ok), (o), __FILE__, __LINE__)
static inline bool ts_check_return_at(bool ok, const lctx_outcome *o,
                                      const char *file, int line) {
  if (ok != (o->kind != LCTX_OUTCOME_RAISE)) {
    print_error("operation returned %s but its outcome kind is %d\n",
                ok ? "true" : "false", (int)o->kind);
    _fail(file, line);
  }
  return ok;
}

/// `backends()`.
#define ts_backends(registry, o)                                               \
  ts_check_return(lctx_registry_backends((registry), (o)), (o))

/// `canonicalize_platform(name)`.
#define ts_canon(registry, name, o)                                            \
  ts_check_return(lctx_canonicalize_platform((registry), ts_s(name), (o)), (o))

/// `xla_bridge.get_backend(platform)`; a NULL `platform` is None.
#define ts_xla(registry, platform, o)                                          \
  ts_check_return(ts_xla_call((registry), (platform), (o)), (o))
static inline bool ts_xla_call(lctx_registry *registry, const char *platform,
                               lctx_outcome *o) {
  if (platform == NULL)
    return lctx_xla_get_backend(registry, NULL, o);
  lctx_str p = lctx_str_from_cstr(platform);
  return lctx_xla_get_backend(registry, &p, o);
}

/// A fresh outcome, filled with a marker so that a function that should
/// leave it untouched can be checked.
static inline void ts_outcome_poison(lctx_outcome *o) {
  memset(o, 0, sizeof *o);
  o->kind = LCTX_OUTCOME_STRING;
  o->length = 6;
  memcpy(o->text, "poison", 7);
  o->registration = 12345;
}

#endif /* LCTX_TESTS_TEST_SUPPORT_H */
