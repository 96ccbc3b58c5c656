/*
 * tests/test_program.c - generated programs (harness/core/gen/program.h):
 * PROGRAMS.md's example reads and prints back as written; every drawn
 * program (from seeds and from arbitrary bytes) is valid and prints back
 * to the same text; malformed text is refused naming its line and column;
 * every reduction gives a valid program no larger than the original, and
 * reducing greedily ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "program_draw.h"
#include "program_reduce.h"
#include "program_text.h"

static const char EXAMPLE[] = "lctx-program 1\n"
                              "arg float32 4\n"
                              "prim p1\n"
                              "rule p1 cpu add 1\n"
                              "rule p1 cuda add 1000\n"
                              "fun f0\n"
                              "v0 = prim p1 x\n"
                              "ret v0\n"
                              "prim p0\n"
                              "rule p0 tpu add 5\n"
                              "rule p0 default fun f0\n"
                              "fun main\n"
                              "v0 = prim p0 x\n"
                              "ret v0\n";

/* The example as PROGRAMS.md shows it (between its ``` fences). */
static void test_program_example_of_the_page(void **state) {
  (void)state;
  FILE *f = fopen(LCTX_SOURCE_DIR "/conformance/sweep/PROGRAMS.md", "r");
  assert_non_null(f);
  char line[256], page[4096] = "";
  bool in = false, seen = false;
  while (fgets(line, sizeof line, f) && !seen) {
    if (strncmp(line, "```", 3) == 0) {
      seen = in;
      in = !in;
    } else if (in) {
      strcat(page, line);
    }
  }
  fclose(f);
  assert_string_equal(page, EXAMPLE);
  lctx_program_desc p;
  char why[256], out[LCTX_PROG_TEXT_MAX];
  assert_true(
      lctx_program_parse(EXAMPLE, strlen(EXAMPLE), &p, why, sizeof why));
  assert_int_equal(lctx_program_size(&p), 6);
  size_t n = lctx_program_print(&p, out, sizeof out);
  assert_int_equal(n, strlen(EXAMPLE));
  assert_string_equal(out, EXAMPLE);
}

static void round_trip(const lctx_program_desc *p) {
  static char a[LCTX_PROG_TEXT_MAX], b[LCTX_PROG_TEXT_MAX];
  char why[256];
  size_t n = lctx_program_print(p, a, sizeof a);
  assert_true(n > 0);
  lctx_program_desc q;
  if (!lctx_program_parse(a, n, &q, why, sizeof why))
    fail_msg("%s\n%s", why, a);
  size_t m = lctx_program_print(&q, b, sizeof b);
  assert_int_equal(n, m);
  assert_string_equal(a, b);
}

static void test_program_drawn_are_valid_and_print_back(void **state) {
  (void)state;
  size_t sizes = 0, kinds[LCTX_PS_KIND_COUNT] = {0};
  for (uint64_t i = 0; i < 3000; i++) {
    lctx_prog_source src;
    lctx_prog_source_seed(&src, 7, i);
    lctx_program_desc p;
    lctx_program_generate(&src, &p);
    round_trip(&p);
    sizes += lctx_program_size(&p);
    for (size_t f = 0; f < p.nfun; f++)
      for (size_t k = 0; k < p.fun[f].n; k++)
        kinds[p.fun[f].st[k].kind]++;
  }
  /* Every statement kind is drawn. */
  for (int k = 0; k < LCTX_PS_KIND_COUNT; k++)
    assert_true(kinds[k] > 0);
  assert_true(sizes > 3000 * 3);
  /* The same seed and index: the same program; another index: another. */
  lctx_prog_source s1, s2, s3;
  lctx_prog_source_seed(&s1, 7, 5);
  lctx_prog_source_seed(&s2, 7, 5);
  lctx_prog_source_seed(&s3, 7, 6);
  lctx_program_desc a, b, c;
  lctx_program_generate(&s1, &a);
  lctx_program_generate(&s2, &b);
  lctx_program_generate(&s3, &c);
  char ta[LCTX_PROG_TEXT_MAX], tb[LCTX_PROG_TEXT_MAX], tc[LCTX_PROG_TEXT_MAX];
  lctx_program_print(&a, ta, sizeof ta);
  lctx_program_print(&b, tb, sizeof tb);
  lctx_program_print(&c, tc, sizeof tc);
  assert_string_equal(ta, tb);
  assert_string_not_equal(ta, tc);
}

static void test_program_from_any_bytes(void **state) {
  (void)state;
  uint8_t bytes[64];
  uint64_t x = 99;
  for (int i = 0; i < 2000; i++) {
    size_t n = (size_t)i % sizeof bytes;
    for (size_t k = 0; k < n; k++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      bytes[k] = (uint8_t)(x >> 56);
    }
    lctx_prog_source src;
    lctx_prog_source_bytes(&src, bytes, n);
    lctx_program_desc p;
    lctx_program_generate(&src, &p);
    round_trip(&p);
  }
}

static void refused(const char *text, const char *where) {
  lctx_program_desc p;
  char why[256];
  if (lctx_program_parse(text, strlen(text), &p, why, sizeof why))
    fail_msg("accepted: %s", text);
  if (strncmp(why, where, strlen(where)) != 0)
    fail_msg("'%s' does not start with %s", why, where);
}

static void test_program_malformed_names_line_and_column(void **state) {
  (void)state;
  refused("", "1:1: empty");
  refused("lctx-program 2\n", "1:1: expected 'lctx-program 1'");
  refused("lctx-program 1\narg float64 4\n", "2:5: 'float64'");
  refused("lctx-program 1\narg float32 17\n", "2:13: '17' is not a dimension");
  refused("lctx-program 1\narg float32 4\nfun main\nv0 = jax sin y\nret v0\n",
          "4:14: 'y' is not x");
  refused("lctx-program 1\narg float32 4\nfun main\nv0 = jax nope x\nret v0\n",
          "4:10: 'nope' is not a JAX operation");
  refused("lctx-program 1\narg float32 4\nfun main\nv1 = jax sin x\nret v1\n",
          "4:1: expected v0");
  refused("lctx-program 1\narg float32 4\nfun main\nv0 = call main x\nret v0\n",
          "4:11: 'main' is not a function defined before");
  refused("lctx-program 1\narg float32 4\nprim p\nfun main\nret x\n",
          "6:1: the primitive p has no rule");
  refused("lctx-program 1\narg float32 4\nprim p\nrule p gpu add 1\n",
          "4:8: 'gpu' is not cpu");
  refused("lctx-program 1\narg float32 4\nprim p\nrule p cpu add 1\n"
          "rule p cpu add 2\n",
          "5:8: a second rule of p for cpu");
  refused("lctx-program 1\narg float32 4\nfun f\nret x\nfun main\n"
          "v0 = platform x cpu=f cpu=f\nret v0\n",
          "6:23: a second branch for cpu");
  refused("lctx-program 1\narg float32 4\nfun f\nret x\nfun main\n"
          "v0 = platform x default=f cpu=f\nret v0\n",
          "6:27: default=G comes last");
  refused("lctx-program 1\narg float32 4\nfun main\nv0 =  print x\nret v0\n",
          "4:5: words are separated by single spaces");
  refused("lctx-program 1\narg float32 4\nfun main\nret x\nfun g\nret x\n",
          "5:1: nothing may follow the function main");
  refused("lctx-program 1\narg float32 4\nfun main\nv0 = print x\n",
          "5:1: the last function has no ret");
  refused("lctx-program 1\narg float32 4\x01\n", "2:14: byte 0x01");
  refused("lctx-program 1\narg float32 4\nfun main\nv0 = jax add x\nret v0\n",
          "4:14: jax add takes 2 values");
}

static void test_program_reductions_shrink_and_end(void **state) {
  (void)state;
  for (uint64_t i = 0; i < 300; i++) {
    lctx_prog_source src;
    lctx_prog_source_seed(&src, 11, i);
    lctx_program_desc p, q;
    lctx_program_generate(&src, &p);
    /* Greedy: take every reduction that changes the program; it must end
     * at one node at most (every statement and all but one rule of each
     * kept primitive can go). */
    size_t steps = 0;
    for (size_t k = 0; lctx_program_reduce(&p, k, &q);) {
      char why[256];
      assert_true(lctx_program_check(&q, why, sizeof why));
      assert_true(lctx_program_size(&q) <= lctx_program_size(&p));
      if (memcmp(&p, &q, sizeof p) != 0) {
        p = q;
        k = 0;
        assert_true(++steps < 2000);
      } else {
        k++;
      }
    }
    assert_int_equal(lctx_program_size(&p), 0);
    round_trip(&p);
  }
}

static void test_program_inline_keeps_the_dataflow(void **state) {
  (void)state;
  const char *text = "lctx-program 1\n"
                     "arg float32 4\n"
                     "fun f0 jit\n"
                     "v0 = jax sin x\n"
                     "v1 = jax mul v0 x\n"
                     "ret v1\n"
                     "fun main\n"
                     "v0 = jax cos x\n"
                     "v1 = call f0 v0\n"
                     "v2 = jax add v1 v0\n"
                     "ret v2\n";
  lctx_program_desc p, q;
  char why[256], out[LCTX_PROG_TEXT_MAX];
  assert_true(lctx_program_parse(text, strlen(text), &p, why, sizeof why));
  bool inlined = false;
  for (size_t k = 0; lctx_program_reduce(&p, k, &q) && !inlined; k++) {
    lctx_program_print(&q, out, sizeof out);
    inlined = strstr(out, "call") == NULL && strstr(out, "fun f0") == NULL &&
              lctx_program_size(&q) == 4;
  }
  assert_true(inlined);
  assert_string_equal(out, "lctx-program 1\n"
                           "arg float32 4\n"
                           "fun main\n"
                           "v0 = jax cos x\n"
                           "v1 = jax sin v0\n"
                           "v2 = jax mul v1 v0\n"
                           "v3 = jax add v2 v0\n"
                           "ret v3\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_program_example_of_the_page),
      cmocka_unit_test(test_program_drawn_are_valid_and_print_back),
      cmocka_unit_test(test_program_from_any_bytes),
      cmocka_unit_test(test_program_malformed_names_line_and_column),
      cmocka_unit_test(test_program_reductions_shrink_and_end),
      cmocka_unit_test(test_program_inline_keeps_the_dataflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
