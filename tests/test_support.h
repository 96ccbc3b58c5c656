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
 * Table rows are named (TS_ROW): every check of a row fails at the row's
 * file and line, and the failure first prints the row's name (ts_fail).
 *
 * Include it after <cmocka.h>.
 */
#ifndef LCTX_TESTS_TEST_SUPPORT_H
#define LCTX_TESTS_TEST_SUPPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lctx/lctx.h"

//===----------------------------------------------------------------------===//
// Failures and table rows
//===----------------------------------------------------------------------===//

/// Where a table row stands and what it is called: the first member of
/// every row of a table, written TS_ROW("test_...") in the row. Every check
/// of a row fails at the row's file and line.
typedef struct ts_row {
  const char *name;
  const char *file;
  int line;
} ts_row;

#define TS_ROW(row_name) .at = {(row_name), __FILE__, __LINE__}

/// The row a table runner entered last (ts_row_enter).
static ts_row ts_row_now;

/// Called by a table runner before it runs a row.
static inline void ts_row_enter(const ts_row *row) {
  ts_row_now = *row;
}

/// Fails at file:line; when that is where the row entered last stands,
/// first prints the row's name with its file:line.
static inline void ts_fail(const char *file, int line) {
  if (ts_row_now.name && ts_row_now.line == line && ts_row_now.file &&
      strcmp(ts_row_now.file, file) == 0)
    print_error("in row %s at %s:%d\n", ts_row_now.name, file, line);
  _fail(file, line);
}

/// Fails at file:line (ts_fail) unless `ok`; `what` says what was checked.
static inline void ts_check(bool ok, const char *what, const char *file,
                            int line) {
  if (ok)
    return;
  print_error("check failed: %s\n", what);
  ts_fail(file, line);
}

/// Fails at file:line (ts_fail) unless `actual` is `expected`.
static inline void ts_check_int(uintmax_t actual, uintmax_t expected,
                                const char *what, const char *file, int line) {
  if (actual == expected)
    return;
  print_error("%s is %ju, expected %ju\n", what, actual, expected);
  ts_fail(file, line);
}

//===----------------------------------------------------------------------===//
// Factories and configurations
//===----------------------------------------------------------------------===//

/// Table forms of the factories below (constant initializers).
#define TS_CLIENT(name, priority, quiet)                                       \
  { (name), (priority), (quiet), LCTX_FACTORY_CLIENT, NULL }
#define TS_RAISES(name, priority, quiet, message)                              \
  { (name), (priority), (quiet), LCTX_FACTORY_RAISES, (message) }
#define TS_RETURNS_NONE(name, priority, quiet)                                 \
  { (name), (priority), (quiet), LCTX_FACTORY_RETURNS_NONE, NULL }
#define TS_NO_DEVICES(name, priority, quiet)                                   \
  { (name), (priority), (quiet), LCTX_FACTORY_NO_DEVICES, NULL }

/// A factory that returns a client with devices.
static inline lctx_factory ts_client(const char *name, int priority,
                                     bool fail_quietly) {
  return (lctx_factory)TS_CLIENT(name, priority, fail_quietly);
}

/// A factory that raises `message`.
static inline lctx_factory ts_raises(const char *name, int priority,
                                     bool fail_quietly, const char *message) {
  return (lctx_factory)TS_RAISES(name, priority, fail_quietly, message);
}

/// A factory that returns None.
static inline lctx_factory ts_returns_none(const char *name, int priority,
                                           bool fail_quietly) {
  return (lctx_factory)TS_RETURNS_NONE(name, priority, fail_quietly);
}

/// A factory that returns a client without devices.
static inline lctx_factory ts_no_devices(const char *name, int priority,
                                         bool fail_quietly) {
  return (lctx_factory)TS_NO_DEVICES(name, priority, fail_quietly);
}

/// Registers a factory; the test fails if the configuration is full.
#define ts_add(config, factory)                                                \
  ts_add_at((config), (factory), __FILE__, __LINE__)
static inline void ts_add_at(lctx_registry_config *config, lctx_factory f,
                             const char *file, int line) {
  if (!lctx_registry_config_add_factory(config, f)) {
    print_error("lctx_registry_config_add_factory(\"%s\") returned false\n",
                f.name ? f.name : "(null)");
    ts_fail(file, line);
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
    ts_fail(file, line);
  }
  lctx_registry_init(registry, config);
}

/// A configuration and the registry over it, as a test holds them.
typedef struct ts_world {
  lctx_registry_config config;
  lctx_registry r;
} ts_world;

/// Opens the stock configuration (ts_config_stock) in `w`; returns its
/// registry.
static inline lctx_registry *ts_world_stock(ts_world *w) {
  ts_config_stock(&w->config);
  ts_open_at(&w->r, &w->config, __FILE__, __LINE__);
  return &w->r;
}

/// A view of a NUL-terminated literal.
static inline lctx_str ts_s(const char *s) {
  return lctx_str_from_cstr(s);
}

/// A predicate's answer for the bytes of a literal (its length counts NUL
/// bytes inside); TS_VERDICT_N(s, n, yes) takes only its first `n` bytes.
typedef struct ts_verdict {
  const char *s;
  size_t n;
  bool yes;
} ts_verdict;
#define TS_VERDICT(s, yes)                                                     \
  { (s), sizeof(s) - 1, (yes) }
#define TS_VERDICT_N(s, n, yes)                                                \
  { (s), (n), (yes) }

/// Fails unless `predicate` answers every row as it says.
#define ts_assert_verdicts(predicate, rows)                                    \
  for (size_t i_ = 0; i_ < sizeof(rows) / sizeof(rows)[0]; ++i_)               \
  _assert_int_equal((predicate)(lctx_str_make((rows)[i_].s, (rows)[i_].n)),    \
                    (rows)[i_].yes, __FILE__, __LINE__)

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
    ts_fail(file, line);
  }
  if (!ts_text_matches("string view", view.length ? view.data : "", view.length,
                       expected))
    ts_fail(file, line);
}

/// Fails unless the writer holds exactly `expected`, NUL-terminated, without
/// overflow.
#define assert_buf(buf, expected)                                              \
  ts_assert_buf_at((buf), (expected), __FILE__, __LINE__)
static inline void ts_assert_buf_at(const lctx_buf *buf, const char *expected,
                                    const char *file, int line) {
  if (buf->overflow) {
    print_error("writer overflowed\n");
    ts_fail(file, line);
  }
  if (!ts_text_matches("writer", buf->data, buf->length, expected))
    ts_fail(file, line);
  if (buf->data[buf->length] != '\0') {
    print_error("writer is not NUL-terminated at %zu\n", buf->length);
    ts_fail(file, line);
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
  ts_fail(file, line);
}

/// Expected outcomes (ts_expect initializers).
#define TS_WANT_RAISE(error, message)                                          \
  { LCTX_OUTCOME_RAISE, (error), LCTX_CLIENT_REGISTRY, -1, (message) }
#define TS_WANT_NONE                                                           \
  { LCTX_OUTCOME_NONE, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1, "" }
#define TS_WANT_STRING(s)                                                      \
  { LCTX_OUTCOME_STRING, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1, (s) }
#define TS_WANT_PLATFORMS(repr)                                                \
  { LCTX_OUTCOME_PLATFORMS, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY, -1, (repr) }
#define TS_WANT_CLIENT(registration, platform)                                 \
  {                                                                            \
    LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE, LCTX_CLIENT_REGISTRY,                \
        (registration), (platform)                                             \
  }
#define TS_WANT_PINNED(platform)                                               \
  { LCTX_OUTCOME_CLIENT, LCTX_ERROR_NONE, LCTX_CLIENT_PINNED, -1, (platform) }

#define ts_assert_want(o, want)                                                \
  ts_assert_outcome_at((o), (ts_expect)want, __FILE__, __LINE__)

/// Fails unless `o` raised exactly `error` with exactly `message`.
#define assert_raise(o, error, message)                                        \
  ts_assert_want((o), TS_WANT_RAISE((error), (message)))

/// Fails unless `o` returned None.
#define assert_none(o) ts_assert_want((o), TS_WANT_NONE)

/// Fails unless `o` returned exactly the string `s`.
#define assert_string(o, s) ts_assert_want((o), TS_WANT_STRING(s))

/// Fails unless `o` returned the registry whose list repr is `repr`.
#define assert_platforms(o, repr) ts_assert_want((o), TS_WANT_PLATFORMS(repr))

/// Fails unless `o` returned the registry client made by registration
/// `registration`, whose real platform is `platform`.
#define assert_registry_client(o, registration, platform)                      \
  ts_assert_want((o), TS_WANT_CLIENT((registration), (platform)))

/// Fails unless `o` returned the pinned client, whose real platform is
/// `platform`.
#define assert_pinned_client(o, platform)                                      \
  ts_assert_want((o), TS_WANT_PINNED(platform))

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
    ts_fail(file, line);
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

//===----------------------------------------------------------------------===//
// Scenarios: table rows of a set-up and the steps run against it
//===----------------------------------------------------------------------===//

#define TS_MAX_ADDED 10
#define TS_MAX_MODULE LCTX_MAX_MODULE_PLATFORMS
#define TS_MAX_STEPS 16

/// The configuration a scenario starts from.
typedef enum ts_base {
  TS_EMPTY, ///< no factories
  TS_STOCK, ///< ts_config_stock
  TS_GPUS,  ///< ts_config_gpus (with `nvidia` below)
} ts_base;

typedef struct ts_setup {
  ts_base base;
  /// The factories registered after the base; the list ends at a NULL name.
  lctx_factory add[TS_MAX_ADDED];
  bool nvidia;                   ///< nvidia_gpu_visible
  const char *jax_platforms;     ///< NULL: unset
  const char *jax_platform_name; ///< NULL: unset
  const char *jax_xla_backend;   ///< NULL: unset
} ts_setup;

/// What a step does; the first ones run an operation and check its outcome,
/// the others inspect the registry.
typedef enum ts_op {
  TS_END = 0,    ///< ends the steps
  TS_BACKENDS,   ///< backends()
  TS_CANON,      ///< canonicalize_platform(arg)
  TS_XLA,        ///< xla_bridge.get_backend(arg); NULL is None
  TS_MODULE,     ///< ModuleContext.get_backend(optional), taking `branch`
  TS_RUNS,       ///< initialization ran `n` times
  TS_COUNT,      ///< `n` initialized platforms
  TS_ENTRY,      ///< entry `index` is `arg` from registration `n`
  TS_DEFAULT,    ///< the default client is `arg` from registration `n`
  TS_NO_DEFAULT, ///< there is no default client
  TS_FIND,       ///< lctx_registry_find(arg) has registration `n`
  TS_NOT_FOUND,  ///< lctx_registry_find(arg) is NULL
  TS_FAILURE,    ///< arg failed quietly: kind `failure`, factory `n`, text
  TS_NO_FAILURE, ///< no quiet failure is recorded for arg
} ts_op;

typedef struct ts_step {
  ts_op op;
  /// The platform name; for TS_MODULE the pinned client's (NULL: none).
  const char *arg;
  int index;
  int n;
  lctx_failure_kind failure;
  /// TS_MODULE: the context's platforms (the list ends at NULL), optional,
  /// and the branch it must take.
  const char *module[TS_MAX_MODULE];
  bool optional;
  lctx_module_branch branch;
  /// The outcome of an operation; for TS_FAILURE, text is str(err).
  ts_expect want;
} ts_step;

/// A row: its name and where it stands (TS_ROW), its set-up and its steps.
typedef struct ts_scenario {
  ts_row at;
  ts_setup setup;
  ts_step steps[TS_MAX_STEPS];
} ts_scenario;

/// Steps, as initializers.
#define TS_DO_BACKENDS(outcome)                                                \
  { .op = TS_BACKENDS, .want = outcome }
#define TS_DO_CANON(name, outcome)                                             \
  { .op = TS_CANON, .arg = (name), .want = outcome }
#define TS_DO_XLA(platform, outcome)                                           \
  { .op = TS_XLA, .arg = (platform), .want = outcome }
#define TS_DO_MODULE(pinned, opt, took, outcome, ...)                          \
  {                                                                            \
    .op = TS_MODULE, .arg = (pinned), .optional = (opt),                       \
    .branch = LCTX_BRANCH_##took, .want = outcome, .module = {                 \
      __VA_ARGS__                                                              \
    }                                                                          \
  }
#define TS_BACKENDS_OK(repr) TS_DO_BACKENDS(TS_WANT_PLATFORMS(repr))
#define TS_BACKENDS_RAISE(message)                                             \
  TS_DO_BACKENDS(TS_WANT_RAISE(LCTX_ERROR_RUNTIME, (message)))
#define TS_BACKENDS_ASSERT                                                     \
  TS_DO_BACKENDS(TS_WANT_RAISE(LCTX_ERROR_ASSERTION, ""))
#define TS_CANON_OK(name, s) TS_DO_CANON((name), TS_WANT_STRING(s))
#define TS_CANON_RAISE(name, message)                                          \
  TS_DO_CANON((name), TS_WANT_RAISE(LCTX_ERROR_RUNTIME, (message)))
#define TS_CANON_ASSERT(name)                                                  \
  TS_DO_CANON((name), TS_WANT_RAISE(LCTX_ERROR_ASSERTION, ""))
#define TS_XLA_CLIENT(platform, reg, real)                                     \
  TS_DO_XLA((platform), TS_WANT_CLIENT((reg), (real)))
#define TS_XLA_RAISE(platform, message)                                        \
  TS_DO_XLA((platform), TS_WANT_RAISE(LCTX_ERROR_RUNTIME, (message)))
#define TS_XLA_ASSERT(platform)                                                \
  TS_DO_XLA((platform), TS_WANT_RAISE(LCTX_ERROR_ASSERTION, ""))

/// The model's messages, as literals: a loud initialization failure of
/// `platform` with str(err) `error` in default mode and under jax_platforms;
/// a jax_platforms name missing from the factories (`known` their repr); an
/// unknown backend and a quietly failed one (`available` the registry repr);
/// `gpu` without GPU platforms (`present` the keys joined by ",").
/// NotImplementedError M1 of ModuleContext.get_backend (B1).
#define TS_MSG_M1                                                              \
  "accessing .backend in multi-lowering setting. This can occur when "         \
  "lowering a primitive that has not been adapted to multi-platform "          \
  "lowering"
#define TS_MSG_LOUD(platform, error)                                           \
  "Unable to initialize backend '" platform "': " error                        \
  " (you may need to uninstall the failing plugin package, or set "            \
  "JAX_PLATFORMS=cpu to skip this backend.)"
#define TS_MSG_LISTED(platform, error)                                         \
  "Unable to initialize backend '" platform "': " error                        \
  " (set JAX_PLATFORMS='' to automatically choose an available backend)"
#define TS_MSG_NOT_KNOWN(platform, known)                                      \
  TS_MSG_LISTED(platform,                                                      \
                "Backend '" platform                                           \
                "' is not in the list of known backends: " known ".")
#define TS_MSG_UNKNOWN(platform, available)                                    \
  "Unknown backend " platform ". Available backends are " available
#define TS_MSG_FAILED(platform, error, available)                              \
  "Backend '" platform "' failed to initialize: " error                        \
  ". Available backends are " available
#define TS_MSG_NO_GPU(present)                                                 \
  "Unknown backend: 'gpu' requested, but no platforms that are instances of "  \
  "gpu are present. Platforms present are: " present

#define TS_IS_RUNS(count)                                                      \
  { .op = TS_RUNS, .n = (count) }
#define TS_IS_COUNT(count)                                                     \
  { .op = TS_COUNT, .n = (count) }
#define TS_IS_ENTRY(i, platform, reg)                                          \
  { .op = TS_ENTRY, .index = (i), .arg = (platform), .n = (reg) }
#define TS_IS_DEFAULT(platform, reg)                                           \
  { .op = TS_DEFAULT, .arg = (platform), .n = (reg) }
#define TS_IS_NO_DEFAULT                                                       \
  { .op = TS_NO_DEFAULT }
#define TS_IS_FOUND(platform, reg)                                             \
  { .op = TS_FIND, .arg = (platform), .n = (reg) }
#define TS_IS_NOT_FOUND(platform)                                              \
  { .op = TS_NOT_FOUND, .arg = (platform) }
#define TS_IS_FAILURE(platform, how, factory_index, message)                   \
  {                                                                            \
    .op = TS_FAILURE, .arg = (platform), .failure = (how),                     \
    .n = (factory_index), .want = {                                            \
      .text = (message)                                                        \
    }                                                                          \
  }
#define TS_IS_NO_FAILURE(platform)                                             \
  { .op = TS_NO_FAILURE, .arg = (platform) }

/// A set-up whose initialization fails loudly after a success: cpu, tpu
/// failing quietly ("tpu down"), cuda failing loudly ("cuda boom") with an
/// NVIDIA GPU visible, then rocm, never reached.
#define TS_SETUP_PARTIAL                                                       \
  {                                                                            \
    .add = {TS_CLIENT("cpu", 0, false),                                        \
            TS_RAISES("tpu", 300, true, "tpu down"),                           \
            TS_RAISES("cuda", 400, false, "cuda boom"),                        \
            TS_CLIENT("rocm", 500, false)},                                    \
    .nvidia = true                                                             \
  }

/// Builds the configuration of `s` into `config`.
static inline void ts_setup_build_at(const ts_setup *s,
                                     lctx_registry_config *config,
                                     const char *file, int line) {
  if (s->base == TS_GPUS)
    ts_config_gpus(config, s->nvidia);
  else if (s->base == TS_STOCK)
    ts_config_stock(config);
  else
    lctx_registry_config_init(config);
  for (size_t i = 0; i < TS_MAX_ADDED && s->add[i].name; ++i)
    ts_add_at(config, s->add[i], file, line);
  if (s->nvidia)
    config->nvidia_gpu_visible = true;
  config->jax_platforms = s->jax_platforms;
  config->jax_platform_name = s->jax_platform_name;
  config->jax_xla_backend = s->jax_xla_backend;
}

/// Builds the configuration of `s` into `config` and opens `r` over it.
static inline void ts_setup_open_at(const ts_setup *s,
                                    lctx_registry_config *config,
                                    lctx_registry *r, const char *file,
                                    int line) {
  ts_setup_build_at(s, config, file, line);
  ts_open_at(r, config, file, line);
}

/// Runs an operation step into `o`; returns its return value and, for
/// TS_MODULE, fails unless it took the step's branch.
static inline bool ts_step_operate(lctx_registry *r, const ts_step *s,
                                   lctx_outcome *o, const char *file,
                                   int line) {
  if (s->op == TS_BACKENDS)
    return lctx_registry_backends(r, o);
  if (s->op == TS_CANON)
    return lctx_canonicalize_platform(r, ts_s(s->arg), o);
  if (s->op == TS_XLA)
    return ts_xla_call(r, s->arg, o);
  lctx_module_context c;
  lctx_module_context_init(&c);
  for (size_t i = 0; i < TS_MAX_MODULE && s->module[i]; ++i)
    ts_check(lctx_module_context_add_platform(&c, ts_s(s->module[i])),
             "add_platform", file, line);
  if (s->arg)
    lctx_module_context_pin(&c, ts_s(s->arg));
  lctx_module_branch got = (lctx_module_branch)0;
  bool ok = lctx_module_get_backend(r, &c, s->optional, o, &got);
  if (got != s->branch) {
    print_error("branch %s, expected %s\n", lctx_module_branch_name(got),
                lctx_module_branch_name(s->branch));
    ts_print_outcome("outcome", o);
    ts_fail(file, line);
  }
  return ok;
}

/// Checks an inspection step against the registry.
static inline void ts_step_inspect(const lctx_registry *r, const ts_step *s,
                                   const char *file, int line) {
  const lctx_registry_entry *e = NULL;
  const lctx_registry_failure *f = NULL;
  lctx_registry_entry at;
  switch (s->op) {
  case TS_RUNS:
    ts_check_int(lctx_registry_init_runs(r), (uintmax_t)s->n, "init_runs", file,
                 line);
    return;
  case TS_COUNT:
    ts_check_int(lctx_registry_entry_count(r), (uintmax_t)s->n, "entry_count",
                 file, line);
    return;
  case TS_ENTRY:
    at = lctx_registry_entry_at(r, (size_t)s->index);
    e = &at;
    break;
  case TS_DEFAULT:
    e = lctx_registry_default(r);
    break;
  case TS_NO_DEFAULT:
    ts_check(lctx_registry_default(r) == NULL, "no default", file, line);
    return;
  case TS_FIND:
    e = lctx_registry_find(r, ts_s(s->arg));
    break;
  case TS_NOT_FOUND:
    ts_check(lctx_registry_find(r, ts_s(s->arg)) == NULL, "not found", file,
             line);
    return;
  case TS_FAILURE:
    f = lctx_registry_find_failure(r, ts_s(s->arg));
    break;
  case TS_NO_FAILURE:
    ts_check(lctx_registry_find_failure(r, ts_s(s->arg)) == NULL, "no failure",
             file, line);
    return;
  default:
    ts_fail(file, line);
  }
  if (s->op != TS_FAILURE) {
    if (s->op != TS_ENTRY)
      ts_check(e != NULL, "entry", file, line);
    if (s->op != TS_FIND)
      ts_assert_str_view_at(e->platform, s->arg, file, line);
    ts_check_int((uintmax_t)e->registration, (uintmax_t)s->n, "registration",
                 file, line);
    return;
  }
  ts_check(f != NULL, "failure", file, line);
  ts_assert_str_view_at(f->platform, s->arg, file, line);
  ts_check_int(f->kind, s->failure, "failure kind", file, line);
  ts_check_int(f->factory, (uintmax_t)s->n, "failure factory", file, line);
  char text[LCTX_OUTCOME_TEXT_MAX];
  lctx_buf b;
  lctx_buf_init(&b, text, sizeof text);
  lctx_registry_failure_message(r, f, &b);
  ts_assert_buf_at(&b, s->want.text, file, line);
}

/// Runs `steps` (up to TS_MAX_STEPS, ending at TS_END) against `r`; a
/// mismatch fails at file:line.
static inline void ts_run_steps_at(lctx_registry *r, const ts_step *steps,
                                   const char *file, int line) {
  for (size_t i = 0; i < TS_MAX_STEPS && steps[i].op != TS_END; ++i) {
    const ts_step *s = &steps[i];
    if (s->op > TS_MODULE) {
      ts_step_inspect(r, s, file, line);
      continue;
    }
    lctx_outcome o;
    bool ok = ts_step_operate(r, s, &o, file, line);
    ts_check(ok == (s->want.kind != LCTX_OUTCOME_RAISE), "return value", file,
             line);
    ts_check_return_at(ok, &o, file, line);
    ts_assert_outcome_at(&o, s->want, file, line);
  }
}

/// Runs every row: its set-up, then its steps; a mismatch fails at the row
/// and names it.
#define ts_run_scenarios(rows)                                                 \
  ts_run_scenarios_n((rows), sizeof(rows) / sizeof(rows)[0])
static inline void ts_run_scenarios_n(const ts_scenario *rows, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    lctx_registry_config config;
    lctx_registry r;
    const ts_row *at = &rows[i].at;
    ts_row_enter(at);
    ts_setup_open_at(&rows[i].setup, &config, &r, at->file, at->line);
    ts_run_steps_at(&r, rows[i].steps, at->file, at->line);
  }
}

/// A table of scenarios as a CMocka test named `name`: in the tests array,
/// TS_TABLE_TEST(default_mode, rows) runs every row.
typedef struct ts_table {
  const ts_scenario *rows;
  size_t count;
} ts_table;

static inline void ts_run_table(void **state) {
  const ts_table *t = *state;
  ts_run_scenarios_n(t->rows, t->count);
}

#define TS_TABLE_TEST(name, table)                                             \
  {                                                                            \
#name, ts_run_table, NULL, NULL, (void *)&(const ts_table) {               \
      (table), sizeof(table) / sizeof(table)[0]                                \
    }                                                                          \
  }

/// Fails unless the factory `f` has exactly the fields of `want`.
#define assert_factory(f, want)                                                \
  ts_assert_factory_at((f), (lctx_factory)want, __FILE__, __LINE__)
static inline void ts_assert_factory_at(const lctx_factory *f,
                                        lctx_factory want, const char *file,
                                        int line) {
  _assert_string_equal(f->name, want.name, file, line);
  _assert_int_equal((uintmax_t)f->priority, (uintmax_t)want.priority, file,
                    line);
  _assert_int_equal(f->fail_quietly, want.fail_quietly, file, line);
  _assert_int_equal(f->behaviour, want.behaviour, file, line);
  if (want.message)
    _assert_string_equal(f->message, want.message, file, line);
  else
    _assert_true(f->message == NULL, "message is NULL", file, line);
}

#endif /* LCTX_TESTS_TEST_SUPPORT_H */
