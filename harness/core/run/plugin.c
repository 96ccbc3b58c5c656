/*
 * plugin.c - loading a C plugin into this process (see plugin.h).
 */
#include "plugin.h"
#include "case_ops.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void say(lctx_buf *error, const char *text) {
  if (error)
    lctx_buf_append_cstr(error, text);
}

/* Says `prefix`, then what dlerror() holds. */
static void say_dlerror(lctx_buf *error, const char *prefix) {
  const char *why = dlerror();
  say(error, prefix);
  say(error, why ? why : "(null)");
}

bool lctx_plugin_check_table(const lctx_impl_table *table, lctx_buf *error) {
  char why[128];
  if (!table) {
    say(error, LCTX_IMPL_ENTRY_SYMBOL " returned NULL");
    return false;
  }
  if (table->abi_version < 1 || table->abi_version > LCTX_IMPL_ABI_VERSION) {
    snprintf(why, sizeof why,
             "ABI version %u, but lctx speaks versions 1 to %d",
             table->abi_version, LCTX_IMPL_ABI_VERSION);
    say(error, why);
    return false;
  }
  if (!table->session_create || !table->session_destroy) {
    say(error, "session_create or session_destroy is NULL");
    return false;
  }
  return true;
}

const lctx_impl_table *lctx_plugin_load(const char *path, lctx_buf *error) {
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    say_dlerror(error, "dlopen: ");
    return NULL;
  }
  void *sym = dlsym(lib, LCTX_IMPL_ENTRY_SYMBOL);
  if (!sym) {
    say_dlerror(error, "no symbol " LCTX_IMPL_ENTRY_SYMBOL ": ");
    return NULL;
  }
  lctx_impl_entry_fn entry;
  memcpy(&entry, &sym, sizeof entry);
  const lctx_impl_table *table = entry();
  return lctx_plugin_check_table(table, error) ? table : NULL;
}

uint32_t lctx_plugin_operations(const lctx_impl_table *table) {
  uint32_t ops = table->operations;
  /* An operation whose function is NULL, or past the end of the table's
   * ABI version (never read), is not supported whatever the bits say. */
  for (size_t k = 0; k < LCTX_OP_KIND_COUNT && k < 32; k++) {
    if (!lctx_case_impl_has(table, lctx_op_get((lctx_op_kind)k)))
      ops &= ~((uint32_t)1 << k);
  }
  return ops;
}
