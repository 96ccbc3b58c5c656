/*
 * examples.c - one example command line per command (see examples.h).
 */
#include "examples.h"

#include <string.h>

/* One command line per command (and subcommand) as its help shows it. */
static const struct {
  const char *command;
  const char *example;
} EXAMPLES[] = {
    {"run", "lctx run --fuzz-seconds 0"},
    {"check-spec", "lctx check-spec --quiet"},
    {"eval", "lctx eval --cover conformance/cases"},
    {"explain", "lctx explain conformance/cases/CP-001-near-alias-names.case"},
    {"encode", "lctx encode mine.case > mine.bin"},
    {"decode", "lctx decode mine.bin > mine.case"},
    {"enumerate", "lctx enumerate --limit 5"},
    {"fuzz", "lctx fuzz --engine libfuzzer --target fuzz_model --time 60"},
    {"replay", "lctx replay corpus/regressions/fuzz_model"},
    {"corpus", "lctx corpus rows --target fuzz_model corpus/seeds/fuzz_model"},
    {"corpus minimize",
     "lctx corpus minimize --target fuzz_model corpus/seeds/fuzz_model"},
    {"corpus rows",
     "lctx corpus rows --target fuzz_model corpus/seeds/fuzz_model"},
    {"promote", "lctx promote lctx-fuzz/fuzz_model-libfuzzer/findings/KEY"},
    {"conform", "lctx conform --impl liblctx_example_plugin.so --quiet"},
    {"lint", "lctx lint corpus/rules"},
    {"sweep", "lctx sweep --cmd \"build/jax/venv-0.10.2/bin/python "
              "conformance/adapters/jax_export.py --host-devices 4 "
              "--lctx lctx\" --subset ci"},
    {"generate", "lctx generate --cmd \"build/jax/venv-0.10.2/bin/python "
                 "conformance/adapters/jax_export.py --host-devices 4\" "
                 "--programs 2000 --time-limit 1800"},
    {"case", "lctx case export --seed 7 random:405 --out r405.case"},
    {"case export", "lctx case export --seed 7 random:405 --out r405.case"},
    {"mutants", "lctx mutants --only rg-tie-later"},
    {"report", "lctx report merge --out merged shard-1 shard-2"},
    {"report merge", "lctx report merge --out merged shard-1 shard-2"},
    {"report html", "lctx report html report.html lctx-conform"},
    {"export", "lctx export rules corpus/rules > rules.json"},
    {"export spec", "lctx export spec > spec.json"},
    {"export rules", "lctx export rules corpus/rules > rules.json"},
};

const char *lctx_cli_example(const char *command) {
  for (size_t i = 0; i < sizeof EXAMPLES / sizeof EXAMPLES[0]; i++)
    if (strcmp(command, EXAMPLES[i].command) == 0)
      return EXAMPLES[i].example;
  return NULL;
}
