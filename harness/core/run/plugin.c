/*
 * plugin.c - loading a C plugin into this process (see plugin.h).
 */
#include "plugin.h"

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
  if (!table->backends)
    ops &= ~(uint32_t)LCTX_IMPL_OP_BACKENDS;
  if (!table->canonicalize)
    ops &= ~(uint32_t)LCTX_IMPL_OP_CANONICALIZE;
  if (!table->get_backend)
    ops &= ~(uint32_t)LCTX_IMPL_OP_GET_BACKEND;
  if (!table->module_get_backend)
    ops &= ~(uint32_t)LCTX_IMPL_OP_MODULE_GET_BACKEND;
  /* A version 1 table ends before these two: never read them. */
  if (table->abi_version < 2 || !table->register_lowering)
    ops &= ~(uint32_t)LCTX_IMPL_OP_REGISTER_LOWERING;
  if (table->abi_version < 2 || !table->lower_per_platform)
    ops &= ~(uint32_t)LCTX_IMPL_OP_LOWER_PER_PLATFORM;
  return ops;
}
