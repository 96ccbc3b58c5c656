/*
 * tests/test_case_text_errors.c - every parse error message of the `.case`
 * text form (harness/core/case/case_text.h), with its exact FILE:LINE:COL:
 * the header, directives, strings, factories, configuration, operations,
 * rules, lowering and expectations, and the bounds of the error writer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "case_text.h"
#include "case_text_fx.h"
#include "test_support.h"

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

#define H "lctx-case 1\n"
#define CPU "factory \"cpu\" priority=0 loud client\n"

static void test_error_missing_header(void **state) {
  (void)state;
  assert_parse_error("", "t.case:1:1: missing header: expected `lctx-case 1` "
                         "before the end of the input");
  assert_parse_error("# only a comment\n\n",
                     "t.case:3:1: missing header: expected `lctx-case 1` "
                     "before the end of the input");
  assert_parse_error("  # x", "t.case:1:6: missing header: expected "
                              "`lctx-case 1` before the end of the input");
  assert_parse_error(CPU, "t.case:1:1: missing header: the first directive "
                          "must be `lctx-case 1`, found `factory`");
  assert_parse_error("\n  op backends\n",
                     "t.case:2:3: missing header: the first directive must "
                     "be `lctx-case 1`, found `op`");
}

static void test_error_header(void **state) {
  (void)state;
  assert_parse_error("lctx-case 2\n", "t.case:1:11: unsupported format "
                                      "version `2` (this reader knows "
                                      "version 1)");
  assert_parse_error("lctx-case\n",
                     "t.case:1:10: expected a format version, found end of "
                     "line");
  assert_parse_error(H "lctx-case 1\n", "t.case:2:1: duplicate `lctx-case` "
                                        "header (first on line 1)");
  assert_parse_error("lctx-case 1 1\n",
                     "t.case:1:13: trailing garbage after the directive: "
                     "`1`");
}

static void test_error_unknown_directive(void **state) {
  (void)state;
  assert_parse_error(H "frobnicate 3\n",
                     "t.case:2:1: unknown directive `frobnicate`");
  assert_parse_error(H "  \"cpu\"\n",
                     "t.case:2:3: expected a directive, found a string");
  assert_parse_error(H "=\n", "t.case:2:1: expected a directive, found `=`");
  assert_parse_error(H "\x01\n",
                     "t.case:2:1: expected a directive, found byte 0x01");
  assert_parse_error_n(H "op\0\n", 16,
                       "t.case:2:3: missing whitespace before byte 0x00");
  assert_parse_error(H "op backends\rx\n",
                     "t.case:2:12: missing whitespace before byte 0x0d");
}

static void test_error_string_escapes(void **state) {
  (void)state;
  assert_parse_error(H "factory \"c\\qu\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape `\\q` (known: \\\\ \\\" "
                     "\\n \\t \\r \\xNN)");
  assert_parse_error(H "factory \"c\\x4\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape: `\\x` takes two hex "
                     "digits");
  assert_parse_error(H "factory \"c\\x\n",
                     "t.case:2:11: bad string escape: `\\x` takes two hex "
                     "digits");
  assert_parse_error(H "factory \"c\\x00\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape `\\x00`: NUL bytes are "
                     "not allowed");
  assert_parse_error(H "factory \"c\\\x01\" priority=0 loud client\n",
                     "t.case:2:11: bad string escape: `\\` followed by byte "
                     "0x01");
  assert_parse_error(H "factory \"c\tu\" priority=0 loud client\n",
                     "t.case:2:11: raw control byte 0x09 in a string (write "
                     "it as an escape)");
}

static void test_error_unterminated_string(void **state) {
  (void)state;
  assert_parse_error(H "factory \"cpu priority=0 loud client\n",
                     "t.case:2:9: unterminated string");
  assert_parse_error(H "factory \"cpu\\\" priority=0 loud client\n",
                     "t.case:2:9: unterminated string");
  assert_parse_error(H "factory \"cpu\\", "t.case:2:9: unterminated string");
  assert_parse_error(H "jax_platforms \"a\r\n\"",
                     "t.case:2:15: unterminated string");
}

static void test_error_tokens_need_whitespace(void **state) {
  (void)state;
  assert_parse_error(H "factory \"cpu\"priority=0 loud client\n",
                     "t.case:2:14: missing whitespace before `priority`");
  assert_parse_error(H "op backends#comment\n",
                     "t.case:2:12: missing whitespace before `#` (a comment "
                     "starts after whitespace)");
  assert_parse_error(H "op get_backend \"cpu\"#x\n",
                     "t.case:2:21: missing whitespace before `#` (a comment "
                     "starts after whitespace)");
  assert_parse_error(H "op get_backend None\"cpu\"\n",
                     "t.case:2:20: missing whitespace before a string");
}

static void test_error_factory_fields(void **state) {
  (void)state;
  assert_parse_error(H "factory cpu priority=0 loud client\n",
                     "t.case:2:9: expected a factory name string, found "
                     "`cpu`");
  assert_parse_error(H "factory \"cpu\" prio=0 loud client\n",
                     "t.case:2:15: expected `priority=INT`, found `prio`");
  assert_parse_error(H "factory \"cpu\" priority 0 loud client\n",
                     "t.case:2:24: expected `priority=INT`, found `0`");
  assert_parse_error(H "factory \"cpu\" priority=abc loud client\n",
                     "t.case:2:24: bad integer `abc`");
  assert_parse_error(H "factory \"cpu\" priority=1e3 loud client\n",
                     "t.case:2:24: bad integer `1e3`");
  assert_parse_error(H "factory \"cpu\" priority=- loud client\n",
                     "t.case:2:24: bad integer `-`");
  assert_parse_error(H "factory \"cpu\" priority= loud client\n",
                     "t.case:2:25: bad integer `loud`");
  assert_parse_error(H "factory \"cpu\" priority=2147483648 loud client\n",
                     "t.case:2:24: priority `2147483648` is out of int range "
                     "(-2147483648 to 2147483647)");
  assert_parse_error(H "factory \"cpu\" priority=-2147483649 loud client\n",
                     "t.case:2:24: priority `-2147483649` is out of int "
                     "range (-2147483648 to 2147483647)");
  assert_parse_error(H "factory \"cpu\" priority=99999999999999999999999 loud "
                       "client\n",
                     "t.case:2:24: priority `99999999999999999999999` is out "
                     "of int range (-2147483648 to 2147483647)");
  assert_parse_error(H "factory \"cpu\" priority=0 noisy client\n",
                     "t.case:2:26: expected `loud` or `quiet`, found "
                     "`noisy`");
  assert_parse_error(H "factory \"cpu\" priority=0 loud explode\n",
                     "t.case:2:31: unknown behaviour `explode` (expected "
                     "client, raises, none or no_devices)");
  assert_parse_error(H "factory \"cpu\" priority=0 loud\n",
                     "t.case:2:30: expected a behaviour, found end of line");
  assert_parse_error(H "factory \"cpu\" priority=0 loud raises\n",
                     "t.case:2:37: expected the raise message string, found "
                     "end of line");
  assert_parse_error(H "factory \"cpu\" priority=0 loud client \"msg\"\n",
                     "t.case:2:38: trailing garbage after the directive: a "
                     "string");
}

static void test_error_factory_limits(void **state) {
  (void)state;
  char text[4096];
  snprintf(text, sizeof text, H "factory \"%064d\" priority=0 loud client\n",
           0);
  assert_parse_error(text, "t.case:2:9: factory name too long (64 bytes, at "
                           "most 63)");
  snprintf(text, sizeof text, H "factory \"%063d\" priority=0 loud client\n",
           0);
  assert_parses(text, &g_a);
  snprintf(text, sizeof text,
           H "factory \"x\" priority=0 loud raises \"%0128d\"\n", 0);
  assert_parse_error(text, "t.case:2:36: factory message too long (128 "
                           "bytes, at most 127)");
  assert_parse_error(H "factory \"\\x80\" priority=0 loud client\n",
                     "t.case:2:9: factory name holds byte 0x80 outside "
                     "0x01-0x7f");
  assert_parse_error(H "factory \"caf\xc3\xa9\" priority=0 loud client\n",
                     "t.case:2:9: factory name holds byte 0xc3 outside "
                     "0x01-0x7f");
  assert_parse_error(H "factory \"x\" priority=0 loud raises \"\\xff\"\n",
                     "t.case:2:36: factory message holds byte 0xff outside "
                     "0x01-0x7f");
  size_t n = (size_t)snprintf(text, sizeof text, "%s", H);
  for (int i = 0; i < 17; i++)
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "factory \"f%d\" priority=0 loud client\n", i);
  assert_parse_error(text, "t.case:18:1: too many factories (at most 16)");
}

static void test_error_duplicate_factory(void **state) {
  (void)state;
  assert_parse_error(H CPU "factory \"tpu\" priority=1 loud client\n"
                           "factory \"cpu\" priority=5 quiet none\n",
                     "t.case:4:9: duplicate factory name \"cpu\" (first on "
                     "line 2; a case file declares each factory once)");
}

static void test_error_config(void **state) {
  (void)state;
  char text[4096];
  assert_parse_error(H "jax_platforms \"a\"\njax_platforms \"b\"\n",
                     "t.case:3:1: duplicate `jax_platforms` directive "
                     "(first on line 2)");
  assert_parse_error(H "nvidia_gpu hidden\nnvidia_gpu visible\n",
                     "t.case:3:1: duplicate `nvidia_gpu` directive (first "
                     "on line 2)");
  assert_parse_error(H "nvidia_gpu maybe\n",
                     "t.case:2:12: expected `visible` or `hidden`, found "
                     "`maybe`");
  assert_parse_error(H "jax_platform_name cpu\n",
                     "t.case:2:19: expected a string, found `cpu`");
  snprintf(text, sizeof text, H "jax_platforms \"%0256d\"\n", 0);
  assert_parse_error(text, "t.case:2:15: jax_platforms value too long (256 "
                           "bytes, at most 255)");
  snprintf(text, sizeof text, H "jax_platforms \"%0255d\"\n", 0);
  assert_parses(text, &g_a);
  snprintf(text, sizeof text, H "jax_xla_backend \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:17: jax_xla_backend value too long (64 "
                           "bytes, at most 63)");
  assert_parse_error(H "jax_platform_name \"\\x80\"\n",
                     "t.case:2:19: jax_platform_name value holds byte 0x80 "
                     "outside 0x01-0x7f");
  assert_parse_error(H "op backends\n" CPU,
                     "t.case:3:1: `factory` after an `op` (configuration "
                     "comes before the operations; first `op` on line 2)");
  assert_parse_error(H "op backends\nexpect None\nnvidia_gpu visible\n",
                     "t.case:4:1: `nvidia_gpu` after an `op` (configuration "
                     "comes before the operations; first `op` on line 2)");
}

static void test_error_operations(void **state) {
  (void)state;
  char text[8192];
  assert_parse_error(H "op frob\n",
                     "t.case:2:4: unknown operation `frob` (expected "
                     "backends, canonicalize, get_backend, "
                     "module_get_backend, register_lowering or "
                     "lower_per_platform)");
  assert_parse_error(H "op\n",
                     "t.case:2:3: expected an operation, found end of line");
  assert_parse_error(H "op backends extra\n",
                     "t.case:2:13: trailing garbage after the directive: "
                     "`extra`");
  assert_parse_error(H "op canonicalize gpu\n",
                     "t.case:2:17: expected a platform name string, found "
                     "`gpu`");
  assert_parse_error(H "op get_backend cpu\n",
                     "t.case:2:16: expected `None` or a string, found "
                     "`cpu`");
  assert_parse_error(H "op get_backend\n",
                     "t.case:2:15: expected `None` or a string, found end of "
                     "line");
  snprintf(text, sizeof text, H "op canonicalize \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:17: canonicalize argument too long (64 "
                           "bytes, at most 63)");
  snprintf(text, sizeof text, H "op get_backend \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:16: get_backend argument too long (64 "
                           "bytes, at most 63)");
  size_t n = (size_t)snprintf(text, sizeof text, "%s", H);
  for (int i = 0; i < 9; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "op backends\n");
  assert_parse_error(text, "t.case:10:1: too many operations (at most 8)");
}

static void test_error_module_get_backend(void **state) {
  (void)state;
  char text[8192];
  assert_parse_error(H "op module_get_backend backend=None optional=true\n",
                     "t.case:2:23: expected `platforms=[...]`, found "
                     "`backend`");
  assert_parse_error(H "op module_get_backend platforms=\"cpu\" backend=None "
                       "optional=true\n",
                     "t.case:2:33: expected `[`, found a string");
  assert_parse_error(H "op module_get_backend platforms=[\"cpu\",] "
                       "backend=None optional=true\n",
                     "t.case:2:40: expected a platform string, found `]`");
  assert_parse_error(H "op module_get_backend platforms=[\"cpu\" \"tpu\"] "
                       "backend=None optional=true\n",
                     "t.case:2:40: expected `,` or `]`, found a string");
  assert_parse_error(H "op module_get_backend platforms=[\"cpu\"\n",
                     "t.case:2:39: expected `,` or `]`, found end of line");
  assert_parse_error(H "op module_get_backend platforms=[] optional=true\n",
                     "t.case:2:36: expected `backend=None` or "
                     "`backend=\"...\"`, found `optional`");
  assert_parse_error(H "op module_get_backend platforms=[] backend=cpu "
                       "optional=true\n",
                     "t.case:2:44: expected `None` or a string, found "
                     "`cpu`");
  assert_parse_error(H "op module_get_backend platforms=[] backend=None "
                       "optional=maybe\n",
                     "t.case:2:58: expected `true` or `false`, found "
                     "`maybe`");
  assert_parse_error(H "op module_get_backend platforms=[] backend=None\n",
                     "t.case:2:48: expected `optional=true` or "
                     "`optional=false`, found end of line");
  assert_parse_error(H "op module_get_backend platforms=[\"\\x80\"] "
                       "backend=None optional=true\n",
                     "t.case:2:34: module platform holds byte 0x80 outside "
                     "0x01-0x7f");
  assert_parse_error(H "op module_get_backend platforms=[] backend=\"\\xc3\" "
                       "optional=true\n",
                     "t.case:2:44: backend holds byte 0xc3 outside "
                     "0x01-0x7f");
  size_t n = (size_t)snprintf(text, sizeof text,
                              H "op module_get_backend platforms=[");
  for (int i = 0; i < 17; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s\"p%02d\"",
                          i ? ", " : "", i);
  snprintf(text + n, sizeof text - n, "] backend=None optional=false\n");
  /* 33 bytes of prefix, 5 for the first entry, 7 (`, "pNN"`) for each of
   * the next 15, then `, ` before the 17th. */
  assert_parse_error(text, "t.case:2:146: too many platforms (at most 16)");
}

/// A case holds at most LCTX_CASE_MAX_NAMES distinct platform names (module
/// and narrowed, all operations together); a name seen before is reused.
static void test_error_too_many_platform_names(void **state) {
  (void)state;
  char text[8192];
  size_t n = (size_t)snprintf(text, sizeof text, H);
  for (int op = 0; op < 4; op++) {
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "op module_get_backend platforms=[");
    for (int i = 0; i < 12; i++)
      n += (size_t)snprintf(text + n, sizeof text - n, "%s\"a%02d\"",
                            i ? ", " : "", op * 12 + i);
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "] backend=None optional=false\n");
  }
  _Static_assert(LCTX_CASE_MAX_NAMES == 48, "the text above holds 48 names");
  assert_parses(text, &g_a);
  assert_int_equal(g_a.name_count, 48);
  snprintf(text + n, sizeof text - n,
           "op module_get_backend platforms=[\"a00\", \"zz\"] "
           "backend=None optional=false\n");
  assert_parse_error(text, "t.case:6:41: too many distinct platform names in "
                           "the case (at most 48, module and narrowed "
                           "platforms of all operations together)");
}

static void test_error_rules(void **state) {
  (void)state;
  char text[4096];
  assert_parse_error(H "rule \"x\" frob\n",
                     "t.case:2:10: unknown action `frob` (expected marker, "
                     "get_backend, guarded_get_backend, "
                     "try_fallback_get_backend, read_client_platform, "
                     "raise_if_multi or lower_fun)");
  assert_parse_error(H "rule \"x\" get_backend\n",
                     "t.case:2:21: expected `optional=true` or "
                     "`optional=false`, found end of line");
  assert_parse_error(H "rule \"x\" get_backend optional=maybe\n",
                     "t.case:2:31: expected `true` or `false`, found "
                     "`maybe`");
  assert_parse_error(H "rule \"x\" marker marker\n",
                     "t.case:2:17: expected `,` or end of line, found "
                     "`marker`");
  assert_parse_error(H "rule \"x\" marker,\n",
                     "t.case:2:17: expected an action, found end of line");
  assert_parse_error(H "rule \"x\" marker, # x\n",
                     "t.case:2:21: expected an action, found end of line");
  assert_parse_error(H "rule \"x\" raise_if_multi\n",
                     "t.case:2:24: expected the message string, found end of "
                     "line");
  assert_parse_error(H "rule \"x\" lower_fun Q\n",
                     "t.case:2:20: expected a primitive name string, found "
                     "`Q`");
  assert_parse_error(H "rule \"x\" lower_fun \"Q\" compute_type\n",
                     "t.case:2:36: expected `compute_type=\"...\"`, found end "
                     "of line");
  assert_parse_error(H "rule \"x\" lower_fun \"Q\" compute_type=cpu\n",
                     "t.case:2:37: expected a compute type string, found "
                     "`cpu`");
  assert_parse_error(H "rule x\n",
                     "t.case:2:6: expected a rule name string, found `x`");
  assert_parse_error(H "rule \"\" marker\n",
                     "t.case:2:6: empty rule name (a rule needs a name)");
  snprintf(text, sizeof text, H "rule \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:6: rule name too long (64 bytes, at most "
                           "63)");
  assert_parse_error(H "rule \"x\" raise_if_multi \"\\x80\"\n",
                     "t.case:2:25: raise_if_multi message holds byte 0x80 "
                     "outside 0x01-0x7f");
  snprintf(text, sizeof text, H "rule \"x\" lower_fun \"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:20: lower_fun primitive too long (64 "
                           "bytes, at most 63)");
  snprintf(text, sizeof text,
           H "rule \"x\" lower_fun \"Q\" compute_type=\"%064d\"\n", 0);
  assert_parse_error(text, "t.case:2:37: compute type too long (64 bytes, at "
                           "most 63)");
  assert_parse_error(H "rule \"a\"\nrule \"b\" marker\nrule \"a\" marker\n",
                     "t.case:4:6: duplicate rule name \"a\" (first on line "
                     "2)");
  assert_parse_error(H "rule \"x\" marker, marker, marker, marker, marker\n",
                     "t.case:2:42: too many actions in one rule (at most 4)");
  size_t n = (size_t)snprintf(text, sizeof text, "%s", H);
  for (int i = 0; i < 9; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "rule \"r%d\"\n", i);
  assert_parse_error(text, "t.case:10:1: too many rules (at most 8)");
  assert_parse_error(H "op backends\nrule \"x\"\n",
                     "t.case:3:1: `rule` after an `op` (configuration comes "
                     "before the operations; first `op` on line 2)");
  /* Nine primitive names: the rule that brings the ninth fails. */
  assert_parse_error(H "rule \"a\" lower_fun \"1\", lower_fun \"2\", "
                       "lower_fun \"3\", lower_fun \"4\"\n"
                       "rule \"b\" lower_fun \"5\", lower_fun \"6\", "
                       "lower_fun \"7\", lower_fun \"8\"\n"
                       "rule \"c\" lower_fun \"8\", lower_fun \"9\"\n",
                     "t.case:4:1: this `rule` makes the case invalid: "
                     "primitives: more than 8 distinct names");
}

#define R "rule \"r\" marker\n"
#define L                                                                      \
  "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] backend=None"

static void test_error_register_lowering(void **state) {
  (void)state;
  assert_parse_error(H R "op register_lowering \"P\"\n",
                     "t.case:3:22: expected `primitive=\"...\"`, found a "
                     "string");
  assert_parse_error(H R "op register_lowering primitive=P rule=\"r\" "
                         "platform=None\n",
                     "t.case:3:32: expected a primitive name string, found "
                     "`P`");
  assert_parse_error(H R "op register_lowering primitive=\"P\" platform=None "
                         "rule=\"r\"\n",
                     "t.case:3:36: expected `rule=\"...\"`, found "
                     "`platform`");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"q\" "
                         "platform=None\n",
                     "t.case:3:41: rule \"q\" is not declared (a `rule` "
                     "directive before the operations declares it)");
  assert_parse_error(H "op register_lowering primitive=\"P\" rule=\"r\" "
                       "platform=None\n",
                     "t.case:2:41: rule \"r\" is not declared (a `rule` "
                     "directive before the operations declares it)");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\"\n",
                     "t.case:3:44: expected `platform=None` or "
                     "`platform=\"...\"`, found end of line");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\" "
                         "platform=cpu\n",
                     "t.case:3:54: expected `None` or a string, found `cpu`");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\" "
                         "platform=\"\\x80\"\n",
                     "t.case:3:54: register_lowering platform holds byte "
                     "0x80 outside 0x01-0x7f");
  assert_parse_error(H R "op register_lowering primitive=\"\\xff\" rule=\"r\" "
                         "platform=None\n",
                     "t.case:3:32: primitive holds byte 0xff outside "
                     "0x01-0x7f");
  assert_parse_error(H R "op register_lowering primitive=\"P\" rule=\"r\" "
                         "platform=None x64=true\n",
                     "t.case:3:59: trailing garbage after the directive: "
                     "`x64`");
}

static void test_error_lower_per_platform(void **state) {
  (void)state;
  char text[8192];
  assert_parse_error(H "op lower_per_platform platforms=[] backend=None\n",
                     "t.case:2:23: expected `primitive=\"...\"`, found "
                     "`platforms`");
  assert_parse_error(H "op lower_per_platform primitive=\"P\" backend=None\n",
                     "t.case:2:37: expected `platforms=[...]`, found "
                     "`backend`");
  assert_parse_error(H "op lower_per_platform primitive=\"P\" platforms=[]\n",
                     "t.case:2:49: expected `backend=None` or "
                     "`backend=\"...\"`, found end of line");
  assert_parse_error(H L " x64=maybe\n",
                     "t.case:2:72: expected `true` or `false`, found "
                     "`maybe`");
  assert_parse_error(H L " x64\n", "t.case:2:71: expected `x64=true` or "
                                   "`x64=false`, found end of line");
  assert_parse_error(H L " x64=true narrow=[]\n",
                     "t.case:2:77: `narrow` out of order (the optional keys "
                     "come in the order narrow, compute_type, override, "
                     "x64)");
  assert_parse_error(H L " narrow=[] narrow=[]\n",
                     "t.case:2:78: duplicate key `narrow`");
  assert_parse_error(H L " narrow=\"cpu\"\n",
                     "t.case:2:75: expected `[`, found a string");
  assert_parse_error(H L " narrow=[\"\\x80\"]\n",
                     "t.case:2:76: narrow platform holds byte 0x80 outside "
                     "0x01-0x7f");
  assert_parse_error(H L " compute_type=device\n",
                     "t.case:2:81: expected a compute type string, found "
                     "`device`");
  assert_parse_error(H L " override=\"q\"\n",
                     "t.case:2:77: rule \"q\" is not declared (a `rule` "
                     "directive before the operations declares it)");
  assert_parse_error(H L " frob=1\n",
                     "t.case:2:68: trailing garbage after the directive: "
                     "`frob`");
  assert_parse_error(H L " optional=true\n",
                     "t.case:2:68: trailing garbage after the directive: "
                     "`optional`");
  size_t n = (size_t)snprintf(text, sizeof text, H L " narrow=[");
  for (int i = 0; i < 17; i++)
    n += (size_t)snprintf(text + n, sizeof text - n, "%s\"p%02d\"",
                          i ? ", " : "", i);
  snprintf(text + n, sizeof text - n, "]\n");
  /* 75 bytes before the first entry, 5 for it, 7 for each of the next 15,
   * then `, ` before the 17th. */
  assert_parse_error(text, "t.case:2:188: too many narrow platforms (at most "
                           "16)");
}

static void test_error_lowering_validation(void **state) {
  (void)state;
  char text[8192];
  /* A lower_fun cycle, through a registration or an override. */
  assert_parse_error(H "rule \"P.r\" lower_fun \"P\"\n"
                       "op register_lowering primitive=\"P\" rule=\"P.r\" "
                       "platform=None\n",
                     "t.case:3:1: this `op` makes the case invalid: rules: "
                     "primitive 'P' reaches itself through lower_fun (JAX "
                     "would not end)");
  assert_parse_error(H "rule \"P.r\" lower_fun \"Q\"\n"
                       "rule \"Q.r\" marker, lower_fun \"P\"\n"
                       "op register_lowering primitive=\"Q\" rule=\"Q.r\" "
                       "platform=\"cpu\"\n"
                       "op backends\n"
                       "op lower_per_platform primitive=\"P\" platforms=[] "
                       "backend=None override=\"P.r\"\n",
                     "t.case:6:1: this `op` makes the case invalid: rules: "
                     "primitive 'Q' reaches itself through lower_fun (JAX "
                     "would not end)");
  /* lower_fun nested five deep: A -> B -> C -> D -> E -> F. */
  const char *chain = H "rule \"a\" lower_fun \"B\"\n"
                        "rule \"b\" lower_fun \"C\"\n"
                        "rule \"c\" lower_fun \"D\"\n"
                        "rule \"d\" lower_fun \"E\"\n"
                        "rule \"e\" lower_fun \"F\"\n"
                        "op register_lowering primitive=\"A\" rule=\"a\" "
                        "platform=None\n"
                        "op register_lowering primitive=\"B\" rule=\"b\" "
                        "platform=None\n"
                        "op register_lowering primitive=\"C\" rule=\"c\" "
                        "platform=None\n"
                        "op register_lowering primitive=\"D\" rule=\"d\" "
                        "platform=None\n";
  assert_parses(chain, &g_a);
  snprintf(text, sizeof text,
           "%sop register_lowering primitive=\"E\" rule=\"e\" "
           "platform=None\n",
           chain);
  assert_parse_error(text, "t.case:11:1: this `op` makes the case invalid: "
                           "rules: lower_fun nested more than 4 deep");
  /* The event bound: 17 slots of a rule of four actions. */
  char platforms[512];
  size_t n = 0;
  for (int i = 0; i < 16; i++)
    n += (size_t)snprintf(platforms + n, sizeof platforms - n, "%s\"p%d\"",
                          i ? ", " : "", i);
  snprintf(text, sizeof text,
           H "rule \"big\" marker, marker, marker, marker\n"
             "op register_lowering primitive=\"P\" rule=\"big\" "
             "platform=None\n"
             "op lower_per_platform primitive=\"P\" platforms=[%s] "
             "backend=None\n",
           platforms);
  assert_parse_error(text, "t.case:4:1: this `op` makes the case invalid: "
                           "operations[1]: this lowering may record more "
                           "than 128 events (the model's limit); use fewer "
                           "platforms, rules or lower_fun actions");
  /* The same, the registration last: the error is on its line and names
   * the lowering it makes too large. */
  snprintf(text, sizeof text,
           H "rule \"big\" marker, marker, marker, marker\n"
             "op lower_per_platform primitive=\"P\" platforms=[%s] "
             "backend=None\n"
             "op register_lowering primitive=\"P\" rule=\"big\" "
             "platform=None\n",
           platforms);
  assert_parse_error(text, "t.case:4:1: this `op` makes the case invalid: "
                           "operations[0]: this lowering may record more "
                           "than 128 events (the model's limit); use fewer "
                           "platforms, rules or lower_fun actions");
}

static void test_error_expectations(void **state) {
  (void)state;
  static char text[LCTX_OUTCOME_TEXT_MAX + 64];
  assert_parse_error(H "expect None\n",
                     "t.case:2:1: `expect` without a preceding `op`");
  assert_parse_error(H CPU "expect None\n",
                     "t.case:3:1: `expect` without a preceding `op`");
  assert_parse_error(H "op backends\nexpect None\n# x\nexpect None\n",
                     "t.case:5:1: second `expect` for one `op` (the first "
                     "is on line 3)");
  assert_parse_error(H "op backends\nexpect maybe\n",
                     "t.case:3:8: unknown outcome `maybe` (expected None, "
                     "string, platforms, client or raise)");
  assert_parse_error(H "op backends\nexpect none\n",
                     "t.case:3:8: unknown outcome `none` (expected None, "
                     "string, platforms, client or raise)");
  assert_parse_error(H "op backends\nexpect string cuda\n",
                     "t.case:3:15: expected a string, found `cuda`");
  assert_parse_error(H "op backends\nexpect client local \"cpu\"\n",
                     "t.case:3:15: expected `registry` or `pinned`, found "
                     "`local`");
  assert_parse_error(H "op backends\nexpect client registry \"cpu\"\n",
                     "t.case:3:24: expected registration index, found a "
                     "string");
  assert_parse_error(H "op backends\nexpect client registry -1 \"cpu\"\n",
                     "t.case:3:24: registration index `-1` is out of range "
                     "(0 to 2147483647)");
  assert_parse_error(H "op backends\nexpect client registry 0x1 \"cpu\"\n",
                     "t.case:3:24: bad integer `0x1`");
  assert_parse_error(H "op backends\nexpect client pinned 0 \"cpu\"\n",
                     "t.case:3:22: expected the client's platform string, "
                     "found `0`");
  assert_parse_error(H "op backends\nexpect raise KeyError \"k\"\n",
                     "t.case:3:14: unknown error class `KeyError` (expected "
                     "RuntimeError, ValueError, NotImplementedError, "
                     "AssertionError or IndexError)");
  assert_parse_error(H "op backends\nexpect raise AssertionError\n",
                     "t.case:3:28: expected the message string, found end of "
                     "line");
  assert_parse_error(H "op backends\nexpect None None\n",
                     "t.case:3:13: trailing garbage after the directive: "
                     "`None`");
  size_t n =
      (size_t)snprintf(text, sizeof text, H "op backends\nexpect string \"");
  memset(text + n, 'a', LCTX_OUTCOME_TEXT_MAX);
  n += LCTX_OUTCOME_TEXT_MAX;
  memcpy(text + n, "\"\n", 3);
  assert_parse_error(text, "t.case:3:15: expected text too long (8192 bytes, "
                           "at most 8191)");
  /* One byte less fits. */
  text[n - 1] = '"';
  text[n] = '\0';
  assert_parses(text, &g_a);
  assert_int_equal(g_ea.op[0].length, LCTX_OUTCOME_TEXT_MAX - 1);
}

static void test_expect_texts_over_the_pool_refused(void **state) {
  (void)state;
  size_t cap = 2 * LCTX_CASE_EXPECT_TEXT_MAX;
  char *text = malloc(cap);
  assert_non_null(text);
  lctx_buf b;
  lctx_buf_init(&b, text, cap);
  size_t first = LCTX_OUTCOME_TEXT_MAX - 1;
  size_t second = LCTX_CASE_EXPECT_TEXT_MAX - first;
  lctx_buf_append_cstr(&b, "lctx-case 1\nop backends\nexpect platforms \"");
  for (size_t k = 0; k < first; k++)
    lctx_buf_append_char(&b, 'x');
  lctx_buf_append_cstr(&b, "\"\nop backends\nexpect platforms \"");
  for (size_t k = 0; k < second; k++)
    lctx_buf_append_char(&b, 'y');
  lctx_buf_append_cstr(&b, "\"\nop backends\nexpect None\n");
  assert_false(b.overflow);
  /* The texts fill what a case holds; print and parse keep them. */
  assert_parses(text, &g_a);
  assert_int_equal(g_ea.used, LCTX_CASE_EXPECT_TEXT_MAX);
  size_t n = print_case(&g_a, g_text);
  char error[256];
  assert_true(parse_exact(g_text, n, &g_b, error, sizeof error));
  assert_true(cases_equal(&g_a, &g_b));
  /* One byte more is refused where it is, never cut. */
  lctx_buf_append_cstr(&b, "op backends\nexpect string \"z\"\n");
  assert_parse_error(text, "t.case:9:15: this expectation brings the case's "
                           "expectation texts to 16001 bytes together, more "
                           "than the 16000 a case holds");
  free(text);
}

static void test_error_long_token_is_cut(void **state) {
  (void)state;
  char text[256];
  snprintf(text, sizeof text, H "op %060d\n", 7);
  assert_parse_error(text, "t.case:2:4: unknown operation "
                           "`0000000000000000000000000000000000000000...` "
                           "(expected backends, canonicalize, get_backend, "
                           "module_get_backend, register_lowering or "
                           "lower_per_platform)");
}

static void test_error_writer_overflow_is_safe(void **state) {
  (void)state;
  char small[8];
  lctx_buf e;
  lctx_buf_init(&e, small, sizeof small);
  assert_false(
      lctx_case_parse("op", 2, "a-long-file-name.case", &g_a, &g_ea, &e));
  assert_true(e.overflow);
  assert_string_equal(small, "a-long-");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_error_missing_header),
      cmocka_unit_test(test_error_header),
      cmocka_unit_test(test_error_unknown_directive),
      cmocka_unit_test(test_error_string_escapes),
      cmocka_unit_test(test_error_unterminated_string),
      cmocka_unit_test(test_error_tokens_need_whitespace),
      cmocka_unit_test(test_error_factory_fields),
      cmocka_unit_test(test_error_factory_limits),
      cmocka_unit_test(test_error_duplicate_factory),
      cmocka_unit_test(test_error_config),
      cmocka_unit_test(test_error_operations),
      cmocka_unit_test(test_error_module_get_backend),
      cmocka_unit_test(test_error_too_many_platform_names),
      cmocka_unit_test(test_error_rules),
      cmocka_unit_test(test_error_register_lowering),
      cmocka_unit_test(test_error_lower_per_platform),
      cmocka_unit_test(test_error_lowering_validation),
      cmocka_unit_test(test_error_expectations),
      cmocka_unit_test(test_expect_texts_over_the_pool_refused),
      cmocka_unit_test(test_error_long_token_is_cut),
      cmocka_unit_test(test_error_writer_overflow_is_safe),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
