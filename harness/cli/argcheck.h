/*
 * argcheck.h - checks of command-line text that a command hands to the
 * drive layer, which echoes it on the terminal (`lctx fuzz`, `lctx corpus`).
 *
 * Owns refusing, with a message that shows it escaped (escape.h), text that
 * a terminal would not show as it is (control bytes such as ESC or a
 * newline, invalid UTF-8, C1 and bidi controls), and fuzz target names
 * that are not in the table (fuzzcheck.h).
 */
#ifndef LCTX_CLI_ARGCHECK_H
#define LCTX_CLI_ARGCHECK_H

#include <stdbool.h>
#include <stdio.h>

/// Whether `value` (NULL: nothing given, true) shows on a terminal as it is
/// (lctx_escape leaves it unchanged). Else false after `lctx WHO: WHAT:
/// 'VALUE' holds control characters or invalid UTF-8 ...` on `err`, VALUE
/// escaped.
bool lctx_argcheck_plain(const char *who, const char *what, const char *value,
                         FILE *err);

/// Whether `target` names a fuzz target of the table. Else false after
/// `lctx WHO: --target: unknown target 'TARGET' (NAMES)` on `err`, TARGET
/// escaped.
bool lctx_argcheck_target(const char *who, const char *target, FILE *err);

#endif /* LCTX_CLI_ARGCHECK_H */
