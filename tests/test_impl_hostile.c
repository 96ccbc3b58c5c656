/*
 * test_impl_hostile.c - the runner of implementations under test
 * (harness/process/impl.c) against hostile implementations
 * (tests/impls/hostile_plugin.c, tests/impls/hostile_impl.py), each mode
 * chosen by LCTX_HOSTILE. Pins that whatever a plugin or program does, only
 * the cases it misbehaves on are marked, every other result is the one of
 * its own case (equal to a clean run), nothing it started outlives
 * lctx_impl_close, its output goes to the log, memory is watched and
 * recycled, and a case that fails only after others were served is FLAKY.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "case_text.h"
#include "impl.h"
#include "proc_fx.h"

#define N_CASES 24
/* Cases that carry the marker (jax_platform_name HOSTILE). */
static const bool marked[N_CASES] = {[5] = true, [13] = true, [20] = true};

typedef struct fixture {
  lctx_case cases[N_CASES];
  const lctx_case *ptrs[N_CASES];
  lctx_case_result clean[N_CASES]; /* a run without a mode */
  lctx_case_result got[N_CASES];
  char dir[64], pids[128], log[128];
} fixture;

static const char *const innocent[] = {
    "op backends\n",
    "op get_backend None\n",
    "op canonicalize \"gpu\"\n",
    "op get_backend \"tpu\"\n",
};

static void make_case(lctx_case *c, size_t i) {
  char text[512];
  snprintf(text, sizeof text,
           "lctx-case 1\nfactory \"cpu\" priority=0 loud client\n%s"
           "nvidia_gpu hidden\n%s",
           marked[i] ? "jax_platform_name \"HOSTILE\"\n" : "",
           marked[i] ? "op get_backend \"tpu\"\n" : innocent[i % 4]);
  char e[256];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!lctx_case_parse(text, strlen(text), NULL, c, NULL, &eb))
    fail_msg("%s", e);
}

static lctx_impl *open_impl(fixture *f, bool plugin, const char *mode,
                            size_t memory_mb) {
  setenv("LCTX_HOSTILE", mode, 1);
  setenv("LCTX_HOSTILE_PIDS", f->pids, 1);
  lctx_impl_options o;
  lctx_impl_options_init(&o);
  o.timeout = 2;
  o.log_path = f->log;
  if (memory_mb)
    o.memory_limit_mb = memory_mb;
  char e[512] = "";
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  /* The system's Python when there, as tests/lib.sh's PY: python3 on
   * PATH may be a wrapper (a pyenv shim is a shell script that costs ten
   * times the start of Python itself), started at every restart. */
  const char *program =
      access("/usr/bin/python3", X_OK) == 0
          ? "/usr/bin/python3 " LCTX_SOURCE_DIR "/tests/impls/hostile_impl.py"
          : "python3 " LCTX_SOURCE_DIR "/tests/impls/hostile_impl.py";
  lctx_impl *impl = plugin ? lctx_impl_open_plugin(LCTX_HOSTILE_PLUGIN, &o, &eb)
                           : lctx_impl_open_process(program, &o, &eb);
  if (!impl)
    fail_msg("cannot open: %s", e);
  return impl;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "/tmp/lctx-hostile-XXXXXX");
  if (!mkdtemp(f->dir))
    return -1;
  snprintf(f->pids, sizeof f->pids, "%s/pids", f->dir);
  snprintf(f->log, sizeof f->log, "%s/implementation.log", f->dir);
  for (size_t i = 0; i < N_CASES; i++) {
    make_case(&f->cases[i], i);
    f->ptrs[i] = &f->cases[i];
  }
  lctx_impl *impl = open_impl(f, true, "", 0);
  lctx_impl_run(impl, f->ptrs, N_CASES, f->clean);
  lctx_impl_close(impl);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < N_CASES; i++) {
    lctx_case_result_release(&f->clean[i]);
    lctx_case_result_release(&f->got[i]);
  }
  char cmd[160];
  snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
  (void)!system(cmd);
  free(f);
  return 0;
}

/* Every result not marked is OK (or FLAKY when `flaky_ok`) and equal to the
 * clean run's, as are the marked ones that are OK when `marked_too`;
 * returns how many results are marked crash. */
static size_t check_results(const fixture *f, bool flaky_ok, bool marked_too) {
  size_t crashes = 0;
  for (size_t i = 0; i < N_CASES; i++) {
    const lctx_case_result *r = &f->got[i];
    if (r->status == LCTX_RESULT_CRASH)
      crashes++;
    if (r->status != LCTX_RESULT_OK &&
        !(flaky_ok && r->status == LCTX_RESULT_FLAKY)) {
      if (!marked[i])
        fail_msg("case %zu: status %d (%s)", i, (int)r->status, r->detail);
      continue;
    }
    if (marked[i] && !marked_too)
      continue;
    assert_int_equal(r->outcome_count, f->clean[i].outcome_count);
    for (size_t k = 0; k < r->outcome_count; k++) {
      if (!lctx_outcome_head_equal(&r->outcomes[k], r->text,
                                   &f->clean[i].outcomes[k], f->clean[i].text))
        fail_msg("case %zu: outcome %zu differs from the clean run", i, k);
    }
  }
  return crashes;
}

static size_t check_innocent(const fixture *f, bool flaky_ok) {
  return check_results(f, flaky_ok, true);
}

/* Every marked case is CRASH with `detail` in its detail. */
static void check_marked(const fixture *f, const char *detail) {
  for (size_t i = 0; i < N_CASES; i++) {
    if (!marked[i])
      continue;
    assert_int_equal(f->got[i].status, LCTX_RESULT_CRASH);
    if (!strstr(f->got[i].detail, detail))
      fail_msg("case %zu: '%s' lacks '%s'", i, f->got[i].detail, detail);
  }
}

/* Whether process `pid` lives (a zombie left to init counts as ended); a
 * process being killed is given up to 2 s to go. */
static bool alive(int pid) {
  for (int tries = 0; tries < 200; tries++) {
    char st;
    int ppid;
    if (!proc_fx_stat(pid, &st, &ppid) || st == 'Z')
      return false;
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  }
  return true;
}

/* No process the implementation started is alive; returns how many pids
 * it wrote down. The implementation runs in a PID namespace of its own
 * where one can be made, so the pids it writes are that namespace's: what
 * is checked is that no child of this process lives (lctx, the child
 * subreaper, gets back every orphan of what it started). */
static size_t check_no_process_left(const fixture *f) {
  FILE *in = fopen(f->pids, "r");
  size_t n = 0;
  int pid;
  while (in && fscanf(in, "%d", &pid) == 1)
    n++;
  if (in)
    fclose(in);
  DIR *d = opendir("/proc");
  for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
    int child = atoi(e->d_name);
    char st;
    int ppid;
    if (child > 0 && proc_fx_stat(child, &st, &ppid) && ppid == (int)getpid() &&
        alive(child))
      fail_msg("process %d is left", child);
  }
  if (d)
    closedir(d);
  return n;
}

/* Runs every case in batches of `batch` with `mode`; returns restarts. */
static size_t run(fixture *f, bool plugin, const char *mode, size_t batch,
                  size_t memory_mb, size_t *recycles) {
  unlink(f->pids);
  lctx_impl *impl = open_impl(f, plugin, mode, memory_mb);
  for (size_t i = 0; i < N_CASES; i += batch)
    lctx_impl_run(impl, f->ptrs + i, N_CASES - i < batch ? N_CASES - i : batch,
                  f->got + i);
  size_t restarts = lctx_impl_restarts(impl);
  if (recycles)
    *recycles = lctx_impl_recycles(impl);
  lctx_impl_close(impl);
  return restarts;
}

static void test_clean_run_answers_every_case(void **state) {
  fixture *f = *state;
  for (size_t i = 0; i < N_CASES; i++)
    assert_int_equal(f->clean[i].status, LCTX_RESULT_OK);
}

/* lctx_impl_start hands a batch to the worker ahead of lctx_impl_run: the
 * run of the same batch collects the same results, whether it packs the
 * cases or is given them packed; a run of other cases after a start gets
 * its own results, not those of the started ones. */
static void test_plugin_start_then_run(void **state) {
  fixture *f = *state;
  lctx_impl *impl = open_impl(f, true, "", 0);
  lctx_impl_run(impl, f->ptrs, 1, f->got); /* a worker runs */
  lctx_impl_start(impl, f->ptrs, N_CASES, NULL);
  assert_int_equal(lctx_impl_run(impl, f->ptrs, N_CASES, f->got), N_CASES);
  assert_int_equal(check_innocent(f, false), 0);
  lctx_impl_start(impl, f->ptrs, N_CASES, NULL);
  assert_int_equal(lctx_impl_run(impl, f->ptrs + 1, N_CASES - 1, f->got + 1),
                   N_CASES - 1);
  lctx_impl_run(impl, f->ptrs, 1, f->got);
  assert_int_equal(check_innocent(f, false), 0);
  /* Handed over packed (lctx_impl_pack), as lctx conform does. */
  static uint8_t bytes[N_CASES * 4096];
  size_t offset[N_CASES + 1] = {0};
  for (size_t i = 0; i < N_CASES; i++) {
    uint8_t one[LCTX_IMPL_PACKED_MAX];
    size_t n = lctx_impl_pack(f->ptrs[i], one);
    assert_true(n <= 4096);
    memcpy(bytes + offset[i], one, n);
    offset[i + 1] = offset[i] + n;
  }
  lctx_impl_packed packed = {bytes, offset};
  lctx_impl_start(impl, f->ptrs, N_CASES, &packed);
  assert_int_equal(lctx_impl_run(impl, f->ptrs, N_CASES, f->got), N_CASES);
  assert_int_equal(check_innocent(f, false), 0);
  assert_int_equal(lctx_impl_restarts(impl), 0);
  lctx_impl_close(impl);
}

static void test_plugin_fork_has_one_answerer(void **state) {
  fixture *f = *state;
  assert_int_equal(run(f, true, "fork", N_CASES, 0, NULL), 0);
  assert_int_equal(check_innocent(f, false), 0);
  assert_int_equal(check_no_process_left(f), 3); /* one fork per marked */
}

static void test_plugin_fork_sleep_leaves_nothing(void **state) {
  fixture *f = *state;
  assert_int_equal(run(f, true, "fork_sleep", N_CASES, 0, NULL), 0);
  assert_int_equal(check_innocent(f, false), 0);
  assert_int_equal(check_no_process_left(f), 3);
}

static void test_plugin_huge_record_marks_only_its_case(void **state) {
  fixture *f = *state;
  assert_int_equal(run(f, true, "huge_record", N_CASES, 0, NULL), 6);
  assert_int_equal(check_innocent(f, false), 3);
  check_marked(f, "record of 1073741824 bytes claimed, over the limit of 8191");
}

/* The worker stages results and writes them many at a time: each slow case
 * (1.5 s, three in the batch, 2 s allowed) is given its own time, not what
 * is left of the batch's or of a staged case's. */
static void test_plugin_slow_case_after_staged_ones(void **state) {
  fixture *f = *state;
  assert_int_equal(run(f, true, "slow", N_CASES, 0, NULL), 0);
  assert_int_equal(check_innocent(f, false), 0);
}

/* A hang right after cases whose results were staged but not yet written:
 * those results are taken from the stage, and only the hung case is
 * marked (then again when run alone). */
static void test_plugin_hang_after_staged_ones_marks_only_it(void **state) {
  fixture *f = *state;
  assert_int_equal(run(f, true, "hang", N_CASES, 0, NULL), 6);
  for (size_t i = 0; i < N_CASES; i++) {
    if (marked[i] && f->got[i].status != LCTX_RESULT_TIMEOUT)
      fail_msg("case %zu: status %d (%s), not a timeout", i,
               (int)f->got[i].status, f->got[i].detail);
  }
  check_results(f, false, false);
}

static void test_plugin_garbage_is_a_protocol_error(void **state) {
  fixture *f = *state;
  run(f, true, "garbage", N_CASES, 0, NULL);
  assert_int_equal(check_innocent(f, false), 3);
  check_marked(f, "protocol error: bytes that are not a result record");
}

static void test_plugin_text_limits_mark_the_case(void **state) {
  fixture *f = *state;
  assert_int_equal(run(f, true, "nul_text", N_CASES, 0, NULL), 0);
  assert_int_equal(check_innocent(f, false), 3);
  check_marked(f, "the outcome text holds a NUL byte at offset 6");
  assert_int_equal(run(f, true, "long_text", N_CASES, 0, NULL), 0);
  assert_int_equal(check_innocent(f, false), 3);
  check_marked(f, "text_length 8197 beyond the capacity 8192");
}

static void test_plugin_long_mlir_marks_the_case(void **state) {
  (void)state;
  static const char text[] =
      "lctx-case 1\nfactory \"cpu\" priority=0 loud client\n"
      "jax_platform_name \"HOSTILE\"\nrule \"P.cpu\" marker\n"
      "op register_lowering primitive=\"P\" rule=\"P.cpu\" platform=\"cpu\"\n"
      "op lower_per_platform primitive=\"P\" platforms=[\"cpu\"] "
      "backend=None\n";
  lctx_case c;
  char e[256];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!lctx_case_parse(text, strlen(text), NULL, &c, NULL, &eb))
    fail_msg("%s", e);
  fixture *f = *state;
  lctx_impl *impl = open_impl(f, true, "long_mlir", 0);
  const lctx_case *p = &c;
  lctx_case_result r = {0};
  lctx_impl_run(impl, &p, 1, &r);
  assert_int_equal(r.status, LCTX_RESULT_CRASH);
  if (!strstr(r.detail, "mlir_length 1048583 beyond the capacity 1048576"))
    fail_msg("detail: %s", r.detail);
  assert_int_equal(lctx_impl_restarts(impl), 0);
  lctx_case_result_release(&r);
  lctx_impl_close(impl);
}

static void test_plugin_output_goes_to_the_log(void **state) {
  fixture *f = *state;
  unlink(f->log);
  run(f, true, "escape", N_CASES, 0, NULL);
  assert_int_equal(check_results(f, false, false), 0);
  char log[8192] = "";
  FILE *in = fopen(f->log, "r");
  assert_non_null(in);
  size_t n = fread(log, 1, sizeof log - 1, in);
  fclose(in);
  log[n] = '\0';
  size_t count = 0;
  for (const char *p = log; (p = strstr(p, "hostile-output")); p++)
    count++;
  assert_int_equal(count, 6); /* stdout and stderr, three marked cases */
  static lctx_outcome o;
  assert_non_null(
      strstr(lctx_case_result_outcome(&f->got[5], 0, &o)->text, "\x1b[2J"));
}

/* The protocol's limit holds for every operation of a case at once: a
 * marked case of LCTX_CASE_MAX_OPS operations, each raising with a text of
 * LCTX_OUTCOME_TEXT_MAX - 1 bytes, comes back whole. */
static void check_full_texts(fixture *f, bool plugin) {
  static lctx_case c;
  char text[1024] = "lctx-case 1\nfactory \"cpu\" priority=0 loud client\n"
                    "jax_platform_name \"HOSTILE\"\nnvidia_gpu hidden\n";
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++)
    strcat(text, "op get_backend \"tpu\"\n");
  char e[256];
  lctx_buf eb;
  lctx_buf_init(&eb, e, sizeof e);
  if (!lctx_case_parse(text, strlen(text), NULL, &c, NULL, &eb))
    fail_msg("%s", e);
  const lctx_case *p = &c;
  lctx_case_result r = {0};
  lctx_impl *impl = open_impl(f, plugin, "full_text", 0);
  assert_int_equal(lctx_impl_run(impl, &p, 1, &r), 1);
  lctx_impl_close(impl);
  if (r.status != LCTX_RESULT_OK)
    fail_msg("status %d (%s)", (int)r.status, r.detail);
  assert_int_equal(r.outcome_count, LCTX_CASE_MAX_OPS);
  static lctx_outcome o;
  for (size_t k = 0; k < LCTX_CASE_MAX_OPS; k++) {
    lctx_case_result_outcome(&r, k, &o);
    assert_int_equal(o.kind, LCTX_OUTCOME_RAISE);
    assert_int_equal(o.length, LCTX_OUTCOME_TEXT_MAX - 1);
    for (size_t b = 0; b < o.length; b++)
      assert_int_equal(o.text[b], 'x');
  }
  lctx_case_result_release(&r);
}

static void test_plugin_longest_texts_come_back_whole(void **state) {
  check_full_texts(*state, true);
}

static void test_process_longest_texts_come_back_whole(void **state) {
  check_full_texts(*state, false);
}

static void test_plugin_leak_is_recycled(void **state) {
  fixture *f = *state;
  /* A worker starts at about 25 MB (under ASan) and grows 2 MB a case: it
   * passes half of 64 MB within a few cases and is recycled. */
  size_t recycles = 0;
  assert_int_equal(run(f, true, "leak", 1, 64, &recycles), 0);
  assert_int_equal(check_innocent(f, false), 0);
  assert_true(recycles >= 1);
}

static void test_plugin_death_after_state_is_flaky(void **state) {
  fixture *f = *state;
  setenv("LCTX_HOSTILE_N", "5", 1);
  run(f, true, "die_after", N_CASES, 0, NULL);
  unsetenv("LCTX_HOSTILE_N");
  assert_int_equal(check_innocent(f, true), 0);
  size_t flaky = 0;
  for (size_t i = 0; i < N_CASES; i++) {
    if (f->got[i].status != LCTX_RESULT_FLAKY)
      continue;
    flaky++;
    assert_int_equal(f->got[i].cases_before, 4);
    if (!strstr(f->got[i].detail, "failed after 4 cases in one worker") ||
        !strstr(f->got[i].detail, "exited with status 9") ||
        !strstr(f->got[i].detail, "alone it answered"))
      fail_msg("case %zu: %s", i, f->got[i].detail);
  }
  assert_int_equal(flaky, 5); /* cases 4, 8, 12, 16, 20 */
}

static void test_process_huge_line_marks_only_its_case(void **state) {
  fixture *f = *state;
  run(f, false, "huge_record", N_CASES, 0, NULL);
  assert_int_equal(check_innocent(f, false), 3);
  check_marked(f, "a line longer than 4194304 bytes");
}

static void test_process_fork_gives_no_foreign_result(void **state) {
  fixture *f = *state;
  run(f, false, "fork", 4, 0, NULL);
  check_innocent(f, true);
  check_no_process_left(f);
}

static void test_process_fork_sleep_leaves_nothing(void **state) {
  fixture *f = *state;
  run(f, false, "fork_sleep", 4, 0, NULL);
  assert_int_equal(check_innocent(f, false), 0);
  assert_int_equal(check_no_process_left(f), 3);
}

static void test_process_nul_text_marks_the_case(void **state) {
  fixture *f = *state;
  assert_int_equal(run(f, false, "nul_text", N_CASES, 0, NULL), 0);
  assert_int_equal(check_innocent(f, false), 3);
  check_marked(f, "the outcome text holds a NUL byte at offset 6");
}

static void test_process_exit_after_requests_is_flaky(void **state) {
  fixture *f = *state;
  setenv("LCTX_HOSTILE_N", "3", 1);
  run(f, false, "die_after", 1, 0, NULL);
  unsetenv("LCTX_HOSTILE_N");
  assert_int_equal(check_innocent(f, true), 0);
  assert_int_equal(f->got[3].status, LCTX_RESULT_FLAKY);
  assert_int_equal(f->got[3].cases_before, 3);
  if (!strstr(f->got[3].detail, "failed after 3 cases in one program"))
    fail_msg("%s", f->got[3].detail);
}

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Every marked case has `status` and `detail`; the batch took < `bound` s. */
static void check_lost(const fixture *f, lctx_result_status status,
                       const char *detail, double took, double bound) {
  for (size_t i = 0; i < N_CASES; i++) {
    if (!marked[i])
      continue;
    assert_int_equal(f->got[i].status, status);
    if (!strstr(f->got[i].detail, detail))
      fail_msg("case %zu: '%s' lacks '%s'", i, f->got[i].detail, detail);
  }
  if (took >= bound)
    fail_msg("the batch took %.1f s, want < %.1f", took, bound);
}

/* Half an answer line, then silence: each request has its own deadline,
 * so each marked case is a timeout after 2 s (and 2 s more alone), the
 * others answer in fresh programs, and the batch takes far less than the
 * 2 s x 24 it once waited for the first of them. */
static void test_process_half_line_times_out_only_its_case(void **state) {
  fixture *f = *state;
  double start = seconds_now();
  run(f, false, "half_line", N_CASES, 0, NULL);
  double took = seconds_now() - start;
  assert_int_equal(check_innocent(f, false), 0);
  check_lost(f, LCTX_RESULT_TIMEOUT, "no answer within 2.0 s", took, 30);
}

/* A program that closes its stdin and runs on is found at once (no
 * reader on its pipe), not after the timeout x the batch. */
static void test_process_closed_stdin_marks_its_case(void **state) {
  fixture *f = *state;
  double start = seconds_now();
  run(f, false, "close_stdin", N_CASES, 0, NULL);
  double took = seconds_now() - start;
  assert_int_equal(check_innocent(f, false), 3);
  check_lost(f, LCTX_RESULT_CRASH, "closed its stdin", took, 15);
}

static void test_process_leak_is_recycled(void **state) {
  fixture *f = *state;
  size_t recycles = 0;
  assert_int_equal(run(f, false, "leak", 6, 70, &recycles), 0);
  assert_int_equal(check_innocent(f, false), 0);
  assert_true(recycles >= 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clean_run_answers_every_case),
      cmocka_unit_test(test_plugin_start_then_run),
      cmocka_unit_test(test_plugin_fork_has_one_answerer),
      cmocka_unit_test(test_plugin_fork_sleep_leaves_nothing),
      cmocka_unit_test(test_plugin_huge_record_marks_only_its_case),
      cmocka_unit_test(test_plugin_garbage_is_a_protocol_error),
      cmocka_unit_test(test_plugin_slow_case_after_staged_ones),
      cmocka_unit_test(test_plugin_hang_after_staged_ones_marks_only_it),
      cmocka_unit_test(test_plugin_text_limits_mark_the_case),
      cmocka_unit_test(test_plugin_long_mlir_marks_the_case),
      cmocka_unit_test(test_plugin_output_goes_to_the_log),
      cmocka_unit_test(test_plugin_longest_texts_come_back_whole),
      cmocka_unit_test(test_process_longest_texts_come_back_whole),
      cmocka_unit_test(test_plugin_leak_is_recycled),
      cmocka_unit_test(test_plugin_death_after_state_is_flaky),
      cmocka_unit_test(test_process_huge_line_marks_only_its_case),
      cmocka_unit_test(test_process_fork_gives_no_foreign_result),
      cmocka_unit_test(test_process_fork_sleep_leaves_nothing),
      cmocka_unit_test(test_process_nul_text_marks_the_case),
      cmocka_unit_test(test_process_exit_after_requests_is_flaky),
      cmocka_unit_test(test_process_leak_is_recycled),
      cmocka_unit_test(test_process_half_line_times_out_only_its_case),
      cmocka_unit_test(test_process_closed_stdin_marks_its_case),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
