/*
 * names.c - finding a name in a table of names (see names.h).
 */
#include "names.h"

int lctx_names_find(const char *const *names, size_t count, lctx_str name) {
  for (size_t i = 0; i < count && names[i]; i++)
    if (lctx_str_equal_cstr(name, names[i]))
      return (int)i;
  return -1;
}
