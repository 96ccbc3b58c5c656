/*
 * misbehaving_plugin.c - a test implementation under test (C ABI) that is
 * correct, being the example plugin, except where a case's
 * jax_platform_name asks it to misbehave:
 *   SEGV      crash with a segmentation fault in the operation
 *   HANG      never return
 *   FAIL      return a non-zero status
 *   OVERFLOW  claim more text than the buffer holds
 *   WORDING   reword every raised message (same classes)
 *   NASTY     reword raised messages into markup-breaking bytes: < & ]]>
 *             quotes, control characters and a byte that is not UTF-8
 * Used by tests/test_conform.sh to pin lctx conform's isolation and
 * verdicts.
 * What it shares with the other wrapper of the example plugin is in
 * wrap_plugin.h.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct wrapped {
  void *inner;
  char mode[16];
} wrapped;

#include "wrap_plugin.h"

static void *w_create(const lctx_impl_config *config) {
  wrapped *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  snprintf(w->mode, sizeof w->mode, "%s",
           config->jax_platform_name ? config->jax_platform_name : "");
  w->inner = inner_table()->session_create(config);
  return w;
}

/* Applies the mode after the inner operation ran. */
static lctx_impl_status misbehave(const wrapped *w, lctx_impl_status st,
                                  lctx_impl_outcome *out) {
  if (strcmp(w->mode, "SEGV") == 0)
    raise(SIGSEGV);
  if (strcmp(w->mode, "HANG") == 0)
    for (;;)
      pause();
  if (strcmp(w->mode, "FAIL") == 0)
    return 7;
  if (strcmp(w->mode, "OVERFLOW") == 0)
    out->text_length = out->text_capacity + 5;
  if (strcmp(w->mode, "NASTY") == 0 && out->kind == LCTX_IMPL_RAISE) {
    static const char text[] = "<b>&amp; ]]> \"q\" 'a' \x01\x1b\x7f \xff end";
    memcpy(out->text, text, sizeof text);
    out->text_length = sizeof text - 1;
  }
  if (strcmp(w->mode, "WORDING") == 0 && out->kind == LCTX_IMPL_RAISE) {
    static const char text[] = "something else went wrong";
    memcpy(out->text, text, sizeof text);
    out->text_length = sizeof text - 1;
  }
  return st;
}

__attribute__((visibility("default"))) const lctx_impl_table *
lctx_impl_entry(void);

const lctx_impl_table *lctx_impl_entry(void) {
  /* A version 1 table: lctx still accepts it (no lowering operations). */
  static const lctx_impl_table table = {
      .abi_version = 1,
      .name = "lctx-misbehaving-c",
      .version = "0.0.1",
      .operations = LCTX_IMPL_OP_BACKENDS | LCTX_IMPL_OP_CANONICALIZE |
                    LCTX_IMPL_OP_GET_BACKEND | LCTX_IMPL_OP_MODULE_GET_BACKEND,
      .session_create = w_create,
      .session_destroy = w_destroy,
      .backends = w_backends,
      .canonicalize = w_canonicalize,
      .get_backend = w_get_backend,
      .module_get_backend = w_module};
  return &table;
}
