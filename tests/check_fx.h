/*
 * tests/check_fx.h - small fixtures shared by the CMocka unit tests.
 *
 * - CHECK_FX_GROUP_OBJECT: one object a whole test group shares, created by
 *   the group set-up and freed by its tear-down.
 * - CHECK_FX_TABLE_TESTS: one CMocka test per row of a table, each named
 *   after its row and run by one runner that receives the row as its state.
 *
 * Include it after <cmocka.h>.
 */
#ifndef LCTX_TESTS_CHECK_FX_H
#define LCTX_TESTS_CHECK_FX_H

#include <stddef.h>
#include <stdint.h>

/// Defines `static type *var` and the group fixtures `setup` (var =
/// create(); fails when it returns NULL) and `teardown` (destroy(var)).
#define CHECK_FX_GROUP_OBJECT(type, var, create, destroy)                      \
  static type *var;                                                            \
  static int setup(void **state) {                                             \
    (void)state;                                                               \
    var = create();                                                            \
    return var ? 0 : -1;                                                       \
  }                                                                            \
  static int teardown(void **state) {                                          \
    (void)state;                                                               \
    destroy(var);                                                              \
    var = NULL;                                                                \
    return 0;                                                                  \
  }

/// Fills `tests` (room for `count` entries) with one test per row of `rows`
/// (an array of structs whose first member is the `const char *` name):
/// each runs `runner` with `*state` pointing at its row.
#define CHECK_FX_TABLE_TESTS(tests, rows, count, runner)                       \
  do {                                                                         \
    for (size_t fx_i_ = 0; fx_i_ < (count); ++fx_i_)                           \
      (tests)[fx_i_] = (struct CMUnitTest){                                    \
          .name = *(const char *const *)&(rows)[fx_i_],                        \
          .test_func = (runner),                                               \
          .initial_state = (void *)(uintptr_t) & (rows)[fx_i_]};               \
  } while (0)

#endif // LCTX_TESTS_CHECK_FX_H
