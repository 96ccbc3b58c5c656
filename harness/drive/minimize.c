/*
 * minimize.c - shrinking findings while they keep their key (see
 * minimize.h).
 */
#include "minimize.h"

#include "case_bytes.h"
#include "escape.h"
#include "file.h"
#include "sys.h"

#include <stdlib.h>
#include <string.h>

/* Whether `trial[0..size)` still has the key `want`. */
static bool same_key(const lctx_findings *f, const uint8_t *trial, size_t size,
                     const char *want) {
  char key[512];
  return lctx_findings_key_of_bytes(f, trial, size, key, sizeof key) &&
         strcmp(key, want) == 0;
}

/* fuzz_model, fuzz_differential: the canonical encoding of the decoded case,
 * when it is shorter and keeps the key. Returns the new size. */
static size_t canonical(const lctx_findings *f, uint8_t *data, size_t size,
                        uint8_t *trial, const char *want) {
  lctx_case *decoded = malloc(sizeof *decoded);
  if (!decoded)
    return size;
  lctx_case_decode(data, size, decoded);
  size_t m = lctx_case_encode(decoded, trial, LCTX_FINDINGS_MAX_INPUT);
  free(decoded);
  if (m <= LCTX_FINDINGS_MAX_INPUT && m < size && same_key(f, trial, m, want)) {
    memcpy(data, trial, m);
    return m;
  }
  return size;
}

size_t lctx_minimize_input(const lctx_findings *f, uint8_t *data, size_t size,
                           const char *want, int budget) {
  uint8_t *trial = malloc(LCTX_FINDINGS_MAX_INPUT);
  if (!trial)
    return size;
  int trials = 0;
  const char *target = f->target->name;
  if (strcmp(target, "fuzz_model") == 0 ||
      strcmp(target, "fuzz_differential") == 0) {
    size = canonical(f, data, size, trial, want);
    trials++;
  }
  for (size_t chunk = size / 2;
       chunk >= 1 && trials < budget && !lctx_sys_interrupted(); chunk /= 2) {
    for (size_t i = 0;
         i + chunk <= size && trials < budget && !lctx_sys_interrupted();) {
      memcpy(trial, data, i);
      memcpy(trial + i, data + i + chunk, size - i - chunk);
      trials++;
      if (same_key(f, trial, size - chunk, want)) {
        memcpy(data, trial, size - chunk);
        size -= chunk;
      } else {
        i += chunk;
      }
    }
  }
  free(trial);
  return size;
}

/* The pass over the findings directory (lctx_minimize_pending). */
typedef struct pending {
  const lctx_findings *f;
  uint8_t *data;
  double end;
  FILE *out;
  size_t done;
} pending;

/* Minimizes one finding directory when it waits for it. */
static void minimize_one(void *user, const char *dir) {
  pending *p = user;
  if (!lctx_findings_unminimized(dir) || lctx_sys_interrupted() ||
      lctx_sys_now() > p->end)
    return;
  char file[4400], key[512];
  snprintf(file, sizeof file, "%s/key.txt", dir);
  char *text = NULL, *input = NULL;
  size_t n = 0;
  if (!lctx_file_read(file, sizeof key - 1, &text, &n, NULL))
    return;
  snprintf(key, sizeof key, "%.*s", (int)strcspn(text, "\n"), text);
  free(text);
  snprintf(file, sizeof file, "%s/input", dir);
  if (!lctx_file_read(file, LCTX_FINDINGS_MAX_INPUT, &input, &n, NULL))
    return;
  memcpy(p->data, input, n);
  free(input);
  lctx_escaped b;
  fprintf(p->out, "minimizing %s ...", lctx_esc(&b, key));
  fflush(p->out);
  size_t m = lctx_minimize_input(p->f, p->data, n, key, 200);
  bool finished = !lctx_sys_interrupted();
  fprintf(p->out, " %zu -> %zu bytes%s\n", n, m,
          finished ? "" : " (interrupted: left for the next run)");
  lctx_findings_write(p->f, dir, key, file, n, p->data, m);
  if (finished && lctx_findings_set_minimized(dir, true))
    p->done++;
}

size_t lctx_minimize_pending(const lctx_findings *f, double seconds,
                             FILE *out) {
  pending p = {f, malloc(LCTX_FINDINGS_MAX_INPUT), lctx_sys_now() + seconds,
               out, 0};
  if (p.data)
    lctx_sys_each_entry(f->dir, minimize_one, &p);
  free(p.data);
  return p.done;
}
