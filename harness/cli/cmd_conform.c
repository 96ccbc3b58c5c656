/*
 * cmd_conform.c - `lctx conform` (see commands.h): the option table of
 * lctx_conform_run (commands/conform.h).
 */
#include "commands.h"

#include "conform.h"
#include "exit.h"
#include "lctx/lctx.h"
#include "numbers.h"
#include "options.h"
#include "shared_rows.h"
#include "workspace.h"

#include <string.h>

static const char USAGE[] =
    "usage: lctx conform (--impl LIB.so | --cmd \"PROGRAM ARGS\") "
    "[options]\n";

static bool parse_messages(const char *v, void *target, char *why, size_t n) {
  if (strcmp(v, "exact") != 0 && strcmp(v, "class") != 0) {
    snprintf(why, n, "'%s' is not exact or class", v);
    return false;
  }
  *(bool *)target = strcmp(v, "exact") == 0;
  return true;
}

static bool parse_ops(const char *v, void *target, char *why, size_t n) {
  unsigned ops = 0;
  char copy[256];
  if ((size_t)snprintf(copy, sizeof copy, "%s", v) >= sizeof copy) {
    snprintf(why, n, "the list is longer than %zu bytes", sizeof copy - 1);
    return false;
  }
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    lctx_op_kind k;
    if (!lctx_op_kind_from_name(lctx_str_from_cstr(tok), &k)) {
      snprintf(why, n, "unknown operation '%s'", tok);
      return false;
    }
    ops |= 1u << k;
  }
  if (!ops) {
    snprintf(why, n, "no operation given");
    return false;
  }
  *(unsigned *)target = ops;
  return true;
}

static bool parse_only(const char *v, void *target, char *why, size_t n) {
  return lctx_report_parse_only(v, target, why, n);
}

static bool parse_shard(const char *v, void *target, char *why, size_t n) {
  lctx_conform_options *o = target;
  return lctx_numbers_parse_shard(v, &o->shard_i, &o->shard_n, why, n);
}

int lctx_cmd_conform(int argc, char **argv, FILE *out, FILE *err) {
  lctx_conform_options o;
  lctx_conform_options_init(&o);
  o.jobs = lctx_numbers_cores(LCTX_CONFORM_MAX_JOBS);
  bool no_domain = false;
  const lctx_option table[] = {
      lctx_options_string("impl", &o.impl_path, "LIB.so",
                          "the C plugin to judge (conformance/ABI.md)"),
      lctx_options_string("cmd", &o.command, "\"PROGRAM ARGS\"",
                          "the program to judge (conformance/PROTOCOL.md)"),
      lctx_workspace_spec_option(&o.spec_path),
      lctx_options_string("jax", &o.jax, "RELEASE",
                          "judge as JAX RELEASE behaves: one the table\n"
                          "names (`releases`), or \"modelled\" (default)"),
      lctx_options_string("cases", &o.cases_dir, "DIR|FILE",
                          "conformance cases: a folder or one .case file\n"
                          "(default: $LCTX_CASES, else the data folder's\n"
                          "conformance/cases)"),
      lctx_options_custom("case", &o.only, "NAME",
                          "run only this case: FILE.case, domain:INDEX or\n"
                          "random:INDEX (of --seed), as a failure's rerun\n"
                          "line names it",
                          parse_only),
      lctx_options_size("random", &o.random, "N",
                        "N seeded random cases (default 10000)", 0, 100000000,
                        "a count"),
      lctx_row_seed(&o.seed, "seed of the random cases (default 1)"),
      lctx_options_flag("no-domain", &no_domain,
                        "skip the exhaustive domain of check-spec"),
      lctx_options_string("xfail", &o.xfail_path, "FILE",
                          "expected failures: 'ROW-ID reason' per line"),
      lctx_options_custom("messages", &o.exact, "exact|class",
                          "compare messages, or classes only", parse_messages),
      lctx_options_custom("ops", &o.ops, "LIST",
                          "only cases whose operations are all in LIST\n"
                          "(backends,canonicalize,get_backend,\n"
                          "module_get_backend,register_lowering,\n"
                          "lower_per_platform)",
                          parse_ops),
      lctx_row_shard(&o, parse_shard),
      lctx_row_timeout(&o.timeout, "per case (default 5)"),
      lctx_options_size("batch", &o.batch, "N",
                        "cases sent at once to a program or a worker "
                        "(1-256, default 256)",
                        1, LCTX_CONFORM_MAX_BATCH, "a count from 1 to 256"),
      lctx_options_flag("process-per-case", &o.process_per_case,
                        "start the program afresh for every case"),
      lctx_options_size("jobs", &o.jobs, "N",
                        "instances of the implementation (workers or\n"
                        "programs) judging cases at once; the reports are\n"
                        "those of one, apart from times (1-64, default:\n"
                        "the online cores; 1 with --first-failure)",
                        1, LCTX_CONFORM_MAX_JOBS, "a count from 1 to 64"),
      lctx_options_flag("quiet", &o.quiet,
                        "no per-row table, only failing rows"),
      lctx_options_flag("first-failure", &o.first_failure,
                        "stop after the batch that holds the first failure"),
      lctx_options_size("memory-limit", &o.memory_limit_mb, "MB",
                        "resident memory of the implementation's worker or\n"
                        "program, and of the module judge (default 1024;\n"
                        "0: no limit)",
                        0, 1048576, "a number of MB"),
      lctx_options_size("keep-failures", &o.keep_failures, "N",
                        "verdicts other than pass kept in full per row in\n"
                        "results.jsonl; the rest are counted (default 100)",
                        0, 100000000, "a count"),
      lctx_options_string("report-dir", &o.report_dir, "DIR",
                          "where reports go (default: lctx-conform)"),
  };
  const lctx_option_spec spec =
      LCTX_OPTIONS_SPEC("conform", USAGE, table, false);
  int first;
  LCTX_OPTIONS_PARSE_OR_RETURN(&spec, argc, argv, &first, out, err);
  o.domain = !no_domain;
  if (!o.impl_path == !o.command) {
    fprintf(err, "lctx conform: give exactly one of --impl LIB.so and --cmd "
                 "\"PROGRAM ARGS\"\n");
    lctx_options_help(&spec, err);
    return LCTX_EXIT_USAGE;
  }
  return lctx_conform_run(&o, NULL, out, err);
}
