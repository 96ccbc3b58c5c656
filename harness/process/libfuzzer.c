/*
 * libfuzzer.c - a libFuzzer build's command line and its log (see
 * libfuzzer.h).
 */
#include "libfuzzer.h"

#include "file.h"
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Trims blanks (spaces, tabs, CR) around [*s, *e). */
static void trim(const char **s, const char **e) {
  while (*s < *e && (**s == ' ' || **s == '\t'))
    (*s)++;
  while (*e > *s && ((*e)[-1] == ' ' || (*e)[-1] == '\t' || (*e)[-1] == '\r'))
    (*e)--;
}

/* Adds the `[libfuzzer]` options of `path` as -key=value to `a` from slot
 * `*slot` of its text; returns how many. */
static size_t add_options(const char *path, lctx_libfuzzer_argv *a, int *n,
                          size_t *slot) {
  char *text = NULL;
  size_t length = 0, added = 0;
  if (!path || !lctx_file_read(path, 65535, &text, &length, NULL))
    return 0;
  const char *slash = strrchr(path, '/');
  int folder = slash ? (int)(slash - path) : 1;
  const char *dir = slash ? path : ".";
  bool section = false;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '[') {
      section = strncmp(line, "[libfuzzer]", 11) == 0;
      continue;
    }
    char *eq = strchr(line, '=');
    if (!section || !eq || line[0] == '#' ||
        added == LCTX_LIBFUZZER_MAX_OPTIONS)
      continue;
    const char *ks = line, *ke = eq, *vs = eq + 1, *ve = eq + strlen(eq);
    trim(&ks, &ke);
    trim(&vs, &ve);
    char *arg = a->text[(*slot)++];
    if (ke - ks == 4 && strncmp(ks, "dict", 4) == 0 && *vs != '/')
      snprintf(arg, sizeof a->text[0], "-dict=%.*s/%.*s", folder, dir,
               (int)(ve - vs), vs);
    else
      snprintf(arg, sizeof a->text[0], "-%.*s=%.*s", (int)(ke - ks), ks,
               (int)(ve - vs), vs);
    a->argv[(*n)++] = arg;
    added++;
  }
  free(text);
  return added;
}

void lctx_libfuzzer_argv_build(const lctx_libfuzzer_run *run,
                               lctx_libfuzzer_argv *a) {
  size_t cap = sizeof a->text[0], slot = 0;
  int n = 0;
  a->argv[n++] = (char *)run->binary;
  if (run->fork > 0) {
    snprintf(a->text[slot], cap, "-fork=%zu", run->fork);
    a->argv[n++] = a->text[slot++];
    a->argv[n++] = "-ignore_crashes=1";
    a->argv[n++] = "-ignore_timeouts=1";
    a->argv[n++] = "-ignore_ooms=1";
  }
  if (run->has_seed) {
    snprintf(a->text[slot], cap, "-seed=%llu", run->seed);
    a->argv[n++] = a->text[slot++];
  }
  if (run->seconds > 0) {
    snprintf(a->text[slot], cap, "-max_total_time=%.0f", run->seconds);
    a->argv[n++] = a->text[slot++];
  }
  if (run->timeout > 0) {
    snprintf(a->text[slot], cap, "-timeout=%d", run->timeout);
    a->argv[n++] = a->text[slot++];
  }
  if (run->artifacts) {
    snprintf(a->text[slot], cap, "-artifact_prefix=%s/", run->artifacts);
    a->argv[n++] = a->text[slot++];
  }
  a->argv[n++] = "-print_final_stats=1";
  if (run->dict && lctx_sys_is_file(run->dict)) {
    snprintf(a->text[slot], cap, "-dict=%s", run->dict);
    a->argv[n++] = a->text[slot++];
  }
  add_options(run->options_file, a, &n, &slot);
  for (size_t i = 0; i < LCTX_LIBFUZZER_MAX_CORPORA && run->corpora[i]; i++)
    a->argv[n++] = (char *)run->corpora[i];
  a->argv[n] = NULL;
}

void lctx_libfuzzer_parse(const char *log, lctx_libfuzzer_stats *s) {
  s->execs = 0;
  s->execs_per_sec = 0;
  /* `#N` starts a status line; the final stats give the units run. */
  for (const char *p = log; (p = strchr(p, '#')) != NULL; p++) {
    if ((p == log || p[-1] == '\n') && p[1] >= '0' && p[1] <= '9') {
      unsigned long long n = strtoull(p + 1, NULL, 10);
      s->execs = n > s->execs ? n : s->execs;
    }
  }
  static const char units_said[] = "stat::number_of_executed_units:";
  const char *units = strstr(log, units_said);
  if (units) {
    unsigned long long n = strtoull(units + sizeof units_said - 1, NULL, 10);
    s->execs = n > s->execs ? n : s->execs;
  }
  /* `exec/s: N` in a job's status line, `exec/s N` in -fork's. */
  const char *last = NULL;
  for (const char *p = log; (p = strstr(p, "exec/s")) != NULL; p++)
    last = p;
  if (!last)
    return;
  const char *num = last + 6;
  num += *num == ':';
  s->execs_per_sec = strtod(num, NULL);
}

void lctx_libfuzzer_job_started(lctx_libfuzzer_job *j, double now) {
  j->started = now;
  j->restart_at = 0;
  j->execs_per_sec = 0;
}

void lctx_libfuzzer_job_read(lctx_libfuzzer_job *j, const char *log) {
  lctx_libfuzzer_stats s;
  lctx_libfuzzer_parse(log, &s);
  j->execs_now = s.execs > j->execs_now ? s.execs : j->execs_now;
  j->execs_per_sec = s.execs_per_sec;
}

void lctx_libfuzzer_job_ended(lctx_libfuzzer_job *j, double now,
                              size_t dropped) {
  j->execs_done += j->execs_now;
  j->execs_now = 0;
  j->quick = now - j->started < LCTX_LIBFUZZER_QUICK_SECONDS ? j->quick + 1 : 0;
  j->idle = j->execs_done == 0 && dropped == 0 ? j->idle + 1 : 0;
  j->cannot_start = j->idle >= LCTX_LIBFUZZER_IDLE_ENDS;
  j->given_up = j->cannot_start ||
                j->quick >= LCTX_LIBFUZZER_QUICK_ENDS * (dropped > 0 ? 8 : 1);
  double wait = 0;
  for (int k = 1; dropped == 0 && k <= j->quick && wait < 8; k++)
    wait = wait > 0 ? wait * 2 : 0.25;
  j->restart_at = j->given_up ? 0 : now + (wait < 8 ? wait : 8);
}
