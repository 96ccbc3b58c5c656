/*
 * case_text_print.h - the canonical printer of the `.case` text form.
 *
 * Owns printing an lctx_case as canonical text (the format is documented in
 * conformance/cases/README.md; its parser is case_text.h), and the bound of
 * the printed size. Its output parses back to the same case
 * (case_text.h's properties). Never allocates, never prints, never exits.
 */
#ifndef LCTX_HARNESS_CASE_TEXT_PRINT_H
#define LCTX_HARNESS_CASE_TEXT_PRINT_H

#include "case.h"

/// An upper bound of the printed size of any valid case, in bytes, including
/// the terminating NUL: every string byte escaped as `\xNN`, every field at
/// its limit, every rule with the most lower_fun actions with compute types,
/// every operation a lower_per_platform with every key and an expectation
/// (64 bytes of words each), their texts as long as a case holds.
#define LCTX_CASE_TEXT_MAX                                                     \
  (64 + LCTX_MAX_FACTORIES * (64 + 4 * (LCTX_MAX_NAME + LCTX_MAX_MESSAGE)) +   \
   3 * 64 + 4 * (LCTX_MAX_PLATFORMS_CONFIG + 2 * LCTX_MAX_NAME) +              \
   LCTX_CASE_MAX_RULES *                                                       \
       (32 + (2 * LCTX_CASE_MAX_ACTIONS + 1) * (4 * LCTX_MAX_NAME + 4) +       \
        LCTX_CASE_MAX_ACTIONS * 48) +                                          \
   LCTX_CASE_MAX_OPS *                                                         \
       (192 + 64 +                                                             \
        (2 * LCTX_MAX_MODULE_PLATFORMS + 4) * (4 * LCTX_MAX_NAME + 4)) +       \
   4 * LCTX_CASE_EXPECT_TEXT_MAX)

/// Appends the canonical text of `c` to `out`: the header, the factories in
/// order, the jax_* values that are non-empty, `nvidia_gpu`, the rules in
/// order, then each operation followed by its expectation in `expect`, if
/// any (`expect` may be NULL: none). A writer of
/// LCTX_CASE_TEXT_MAX bytes always suffices; a shorter one sets `overflow`.
void lctx_case_print(const lctx_case *c, const lctx_case_expect *expect,
                     lctx_buf *out);

/// Appends the text-form string literal of `n` bytes at `s`: double quotes;
/// `\\`, `\"`, `\n`, `\t`, `\r`; other bytes below 0x20 or from 0x7f as
/// lowercase `\xNN`; everything else raw.
void lctx_case_print_string(lctx_buf *out, const char *s, size_t n);

#endif /* LCTX_HARNESS_CASE_TEXT_PRINT_H */
