/*
 * test_export_json.c - pins what harness/process/export_json.h reads of a
 * user's program (conformance/PROTOCOL.md, the export operation): the
 * declared platform lists of a catalogue entry (2 to 4 distinct names of
 * the hello's platforms; anything else refuses the hello, naming the
 * field), a result's `user` object and the census entries' `rule` and
 * `call_site` (every field hostile: a wrong type, an overlong text, a
 * negative line marks the item crash, naming the field), and that they
 * come back in the recorded answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "export_json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELLO_HEAD                                                             \
  "{\"protocol\": 1, \"name\": \"x\", \"version\": \"1\", \"platforms\": "     \
  "[\"cpu\", \"cuda\", \"tpu\"], \"catalogue\": [{\"name\": \"user/m/a\", "    \
  "\"group\": \"user/m\", \"kind\": \"user\", \"size\": 4"

static void expect_hello(const char *lists, const char *why_want) {
  char text[2048], why[512] = "";
  snprintf(text, sizeof text, HELLO_HEAD ", \"platforms\": %s}]}", lists);
  lctx_catalogue c;
  bool ok = lctx_catalogue_parse(text, &c, why, sizeof why);
  if (!why_want) {
    if (!ok)
      fail_msg("refused: %s", why);
    lctx_catalogue_free(&c);
    return;
  }
  assert_false(ok);
  assert_string_equal(why, why_want);
}

static void test_declared_lists(void **state) {
  (void)state;
  char why[256];
  lctx_catalogue c;
  assert_true(lctx_catalogue_parse(
      HELLO_HEAD ", \"platforms\": [[\"cpu\", \"tpu\"], [\"tpu\", \"cuda\", "
                 "\"cpu\"]]}, {\"name\": \"user/m/b\", \"group\": \"g\", "
                 "\"kind\": \"user\", \"size\": 1, \"platforms\": null}]}",
      &c, why, sizeof why));
  assert_int_equal(c.programs[0].list_count, 2);
  assert_int_equal(c.programs[0].list_len[0], 2);
  assert_string_equal(c.platforms[c.programs[0].list[0][1]], "tpu");
  assert_int_equal(c.programs[0].list_len[1], 3);
  assert_string_equal(c.platforms[c.programs[0].list[1][1]], "cuda");
  assert_int_equal(c.programs[1].list_count, 0);
  lctx_catalogue_free(&c);
  expect_hello("[[\"cpu\", \"cuda\"]]", NULL);
  expect_hello("[[\"cpu\"]]", "protocol error: handshake.catalogue[0]."
                              "platforms[0]: not a list of 2 to 4 platform "
                              "names");
  expect_hello("[[\"cpu\", \"cuda\"], [\"cpu\", \"rocm\"]]",
               "protocol error: handshake.catalogue[0].platforms[1]: a name "
               "that is not one of the hello's platforms, or given twice");
  expect_hello("[[\"cpu\", \"cpu\"]]",
               "protocol error: handshake.catalogue[0].platforms[0]: a name "
               "that is not one of the hello's platforms, or given twice");
  expect_hello("[[\"cpu\", 7]]",
               "protocol error: handshake.catalogue[0].platforms[0]: a name "
               "that is not one of the hello's platforms, or given twice");
  expect_hello("[]", "protocol error: handshake.catalogue[0].platforms: not a "
                     "list of 1 to 16 platform lists");
  expect_hello("\"cpu\"", "protocol error: handshake.catalogue[0].platforms: "
                          "not a list of 1 to 16 platform lists");
  expect_hello("[[\"cpu\", \"cuda\", \"tpu\", \"cpu\", \"cuda\"]]",
               "protocol error: handshake.catalogue[0].platforms[0]: not a "
               "list of 2 to 4 platform names");
  char many[1024] = "[";
  for (int i = 0; i < 17; i++)
    strcat(many, i ? ", [\"cpu\", \"tpu\"]" : "[\"cpu\", \"tpu\"]");
  strcat(many, "]");
  expect_hello(many, "protocol error: handshake.catalogue[0].platforms: not a "
                     "list of 1 to 16 platform lists");
}

/* Reads `text` as result 3 into `st`. */
static void read_item(const char *text, lctx_export_store *st) {
  json_error_t e;
  /* NUL allowed: the reader must refuse it where a text cannot hold it. */
  json_t *j = json_loads(text, JSON_ALLOW_NUL, &e);
  if (!j)
    fail_msg("test JSON: %s", e.text);
  lctx_export_store_read(j, 3, st);
  json_decref(j);
}

#define OK "{\"outcome\": \"ok\", \"module_platforms\": [\"cpu\", \"tpu\"]"
#define FRAME "{\"file\": \"u/r.py\", \"line\": 7, \"function\": \"rule\"}"

static void expect_crash(const char *text, const char *why) {
  lctx_export_store st = {0};
  read_item(text, &st);
  assert_int_equal(st.answer.status, LCTX_EXPORT_CRASH);
  assert_string_equal(st.answer.error, why);
  assert_null(st.user);
  lctx_export_store_release(&st);
}

static void test_user_facts(void **state) {
  (void)state;
  lctx_export_store st = {0};
  read_item(OK ", \"user\": {\"raise_at\": " FRAME ", \"primitive\": \"p\", "
               "\"rule\": " FRAME ", \"call_site\": {\"file\": \"u/m.py\", "
               "\"line\": 3}}, \"census\": [{\"what\": \"host\", \"gave\": "
               "\"client\", \"file\": \"u/r.py\", \"line\": 9, \"primitive\": "
               "\"p\", \"platforms\": 2, \"rule\": " FRAME ", \"call_site\": "
               "{\"file\": \"u/m.py\", \"line\": 3}}]}",
            &st);
  assert_int_equal(st.answer.status, LCTX_EXPORT_OK);
  assert_non_null(st.answer.user);
  assert_string_equal(st.answer.user->raise_at.function, "rule");
  assert_string_equal(st.answer.user->primitive, "p");
  assert_int_equal(st.answer.user->call_site.line, 3);
  assert_string_equal(st.answer.census[0].rule.file, "u/r.py");
  assert_int_equal(st.answer.census[0].call_site.line, 3);
  /* They come back in the recorded answer, and read back the same. */
  json_t *j = lctx_export_store_json(&st);
  char *text = json_dumps(j, JSON_COMPACT);
  json_decref(j);
  lctx_export_store again = {0};
  read_item(text, &again);
  free(text);
  assert_int_equal(again.answer.status, LCTX_EXPORT_OK);
  assert_string_equal(again.answer.user->rule.function, "rule");
  assert_int_equal(again.answer.census[0].call_site.line, 3);
  lctx_export_store_release(&again);
  /* Absent, or null parts: none. */
  read_item(OK ", \"user\": {\"raise_at\": null, \"primitive\": null, "
               "\"rule\": null, \"call_site\": null}}",
            &st);
  assert_int_equal(st.answer.status, LCTX_EXPORT_OK);
  assert_string_equal(st.answer.user->rule.file, "");
  read_item(OK "}", &st);
  assert_null(st.answer.user);
  lctx_export_store_release(&st);
}

static void test_user_hostile(void **state) {
  (void)state;
  expect_crash(OK ", \"user\": 7}",
               "protocol error: results[3].user: not an object or null");
  expect_crash(OK ", \"user\": {\"rule\": [1]}}",
               "protocol error: results[3].user.rule: not an object or null");
  expect_crash(OK ", \"user\": {\"rule\": {\"file\": \"u.py\", \"line\": "
                  "-4}}}",
               "protocol error: results[3].user.rule.line: not an integer "
               "from 1 to 10000000");
  expect_crash(OK ", \"user\": {\"call_site\": {\"file\": \"u.py\", "
                  "\"line\": \"3\"}}}",
               "protocol error: results[3].user.call_site.line: not an "
               "integer from 1 to 10000000");
  expect_crash(OK ", \"user\": {\"raise_at\": {\"file\": 5, \"line\": 3}}}",
               "protocol error: results[3].user.raise_at.file: not a text of "
               "1 to 500 bytes without NUL");
  expect_crash(OK ", \"user\": {\"raise_at\": {\"file\": \"a\\u0000b\", "
                  "\"line\": 3}}}",
               "protocol error: results[3].user.raise_at.file: not a text of "
               "1 to 500 bytes without NUL");
  expect_crash(OK ", \"user\": {\"primitive\": 1}}",
               "protocol error: results[3].user.primitive: not a text of 1 "
               "to 500 bytes without NUL");
  expect_crash(OK ", \"user\": {\"rule\": {\"file\": \"u.py\", \"line\": 1, "
                  "\"function\": false}}}",
               "protocol error: results[3].user.rule.function: not a text of "
               "1 to 500 bytes without NUL");
  /* 500 bytes are kept, 501 refused. */
  char text[2048], name[502];
  memset(name, 'f', 501);
  name[501] = '\0';
  snprintf(text, sizeof text, OK ", \"user\": {\"primitive\": \"%s\"}}", name);
  expect_crash(text, "protocol error: results[3].user.primitive: not a text "
                     "of 1 to 500 bytes without NUL");
  name[500] = '\0';
  snprintf(text, sizeof text, OK ", \"user\": {\"primitive\": \"%s\"}}", name);
  lctx_export_store st = {0};
  read_item(text, &st);
  assert_int_equal(st.answer.status, LCTX_EXPORT_OK);
  assert_int_equal(strlen(st.answer.user->primitive), 500);
  lctx_export_store_release(&st);
#define CENSUS(extra)                                                          \
  OK ", \"census\": [{\"what\": \"backend\", \"gave\": \"none\", \"file\": "   \
     "\"u.py\", \"line\": 2, \"primitive\": \"p\", \"platforms\": 2, " extra   \
     "}]}"
  expect_crash(CENSUS("\"rule\": {\"file\": [], \"line\": 2}"),
               "protocol error: results[3].census[].rule.file: not a text of "
               "1 to 500 bytes without NUL");
  expect_crash(CENSUS("\"call_site\": {\"file\": \"m.py\", \"line\": 0}"),
               "protocol error: results[3].census[].call_site.line: not an "
               "integer from 1 to 10000000");
  expect_crash(CENSUS("\"call_site\": \"m.py:3\""),
               "protocol error: results[3].census[].call_site: not an object "
               "or null");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_declared_lists),
      cmocka_unit_test(test_user_facts),
      cmocka_unit_test(test_user_hostile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
