/*
 * argcheck.c - checks of command-line text handed to the drive layer (see
 * argcheck.h).
 */
#include "argcheck.h"

#include "escape.h"
#include "findings.h"
#include "fuzzcheck.h"

#include <string.h>

bool lctx_argcheck_plain(const char *who, const char *what, const char *value,
                         FILE *err) {
  if (!value)
    return true;
  lctx_escaped b;
  lctx_esc(&b, value);
  if (strcmp(b.text, value) == 0)
    return true;
  fprintf(err,
          "lctx %s: %s: '%s' holds control characters or invalid UTF-8 "
          "(shown escaped); lctx takes no such name\n",
          who, what, b.text);
  return false;
}

bool lctx_argcheck_target(const char *who, const char *target, FILE *err) {
  if (target && lctx_fuzz_target_find(target))
    return true;
  lctx_escaped b;
  char names[512];
  lctx_findings_target_names(", ", names, sizeof names);
  fprintf(err, "lctx %s: --target: unknown target '%s' (%s)\n", who,
          lctx_esc(&b, target ? target : ""), names);
  return false;
}
