/*
 * replay_main.c - the standalone replay driver: runs inputs through a fuzz
 * target's LLVMFuzzerTestOneInput with no fuzzing engine (in the manner of
 * zstd's tests/fuzz/regression_driver.c). Linked with one target as
 * `<target>_replay`; CI replays the seeds and regressions with it.
 *
 * Usage: <target>_replay FILE|DIR...
 *   A FILE is run as one input. A DIR contributes every regular file directly
 *   inside it (not recursive), in byte order of the names, except README.md
 *   and names starting with '.'; so text twins kept in a subfolder are
 *   skipped. Each input is announced on stderr as `replaying PATH` before it
 *   runs; a failing input aborts inside the target (after its
 *   `LCTX-FINDING <key>` line), so the last announced path is the culprit.
 *   At the end `replayed N inputs` goes to stdout and the exit status is 0.
 *   A path that cannot be read is an error: a message and exit status 2,
 *   before any input runs when it is an argument.
 *
 * Before the first input it calls the target's LLVMFuzzerInitialize when
 * the target defines one, as libFuzzer does (fuzz_glue.h creates the check's
 * state and does its one-time set-up there).
 *
 * Owns nothing else: no checks here, they are all in harness/core/checks
 * and harness/ir.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *g_program = "replay";

static void fail(const char *path, const char *what) {
  fprintf(stderr, "%s: error: %s: %s\n", g_program, path, what);
  exit(2);
}

/* Reads the whole file into a buffer of exactly its size (so that ASan sees
   any read past the end) and runs it. */
static void replay_file(const char *path) {
  fprintf(stderr, "replaying %s\n", path);
  FILE *f = fopen(path, "rb");
  if (!f)
    fail(path, strerror(errno));
  size_t capacity = 4096, size = 0;
  uint8_t *data = malloc(capacity);
  if (!data)
    fail(path, "out of memory");
  for (;;) {
    size += fread(data + size, 1, capacity - size, f);
    if (size < capacity)
      break;
    capacity *= 2;
    uint8_t *bigger = realloc(data, capacity);
    if (!bigger)
      fail(path, "out of memory");
    data = bigger;
  }
  if (ferror(f))
    fail(path, "read error");
  fclose(f);
  uint8_t *exact = malloc(size ? size : 1);
  if (!exact)
    fail(path, "out of memory");
  memcpy(exact, data, size);
  free(data);
  LLVMFuzzerTestOneInput(exact, size);
  free(exact);
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool skipped(const char *name) {
  return name[0] == '.' || strcmp(name, "README.md") == 0;
}

/* Runs the regular files directly inside `dir`, sorted; returns how many. */
static size_t replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    fail(dir, strerror(errno));
  size_t count = 0, capacity = 64;
  char **paths = malloc(capacity * sizeof *paths);
  if (!paths)
    fail(dir, "out of memory");
  const struct dirent *entry;
  while ((entry = readdir(d)) != NULL) {
    if (skipped(entry->d_name))
      continue;
    size_t dir_length = strlen(dir);
    const char *separator = dir[dir_length - 1] == '/' ? "" : "/";
    size_t length = dir_length + 1 + strlen(entry->d_name) + 1;
    char *path = malloc(length);
    if (!path)
      fail(dir, "out of memory");
    snprintf(path, length, "%s%s%s", dir, separator, entry->d_name);
    struct stat st;
    if (stat(path, &st) != 0)
      fail(path, strerror(errno));
    if (!S_ISREG(st.st_mode)) {
      free(path);
      continue;
    }
    if (count == capacity) {
      capacity *= 2;
      char **bigger = realloc(paths, capacity * sizeof *paths);
      if (!bigger)
        fail(dir, "out of memory");
      paths = bigger;
    }
    paths[count++] = path;
  }
  closedir(d);
  qsort(paths, count, sizeof *paths, compare_names);
  for (size_t i = 0; i < count; i++) {
    replay_file(paths[i]);
    free(paths[i]);
  }
  free(paths);
  return count;
}

int main(int argc, char **argv) {
  if (argc > 0 && argv[0][0]) {
    const char *slash = strrchr(argv[0], '/');
    g_program = slash ? slash + 1 : argv[0];
  }
  if (argc < 2 || strcmp(argv[1], "--help") == 0 ||
      strcmp(argv[1], "-h") == 0) {
    fprintf(argc < 2 ? stderr : stdout,
            "usage: %s FILE|DIR...\n"
            "Runs each FILE, and each regular file directly inside each DIR\n"
            "(sorted; README.md and dot files skipped), through this fuzz\n"
            "target without a fuzzing engine. A failing input aborts after\n"
            "an `LCTX-FINDING <key>` line.\n",
            g_program);
    return argc < 2 ? 2 : 0;
  }
  /* Check every argument before running anything. */
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0)
      fail(argv[i], strerror(errno));
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
      fail(argv[i], "neither a regular file nor a directory");
  }
  if (LLVMFuzzerInitialize) /* a target may not define it */
    LLVMFuzzerInitialize(&argc, &argv);
  size_t total = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0)
      fail(argv[i], strerror(errno));
    if (S_ISDIR(st.st_mode)) {
      total += replay_dir(argv[i]);
    } else {
      replay_file(argv[i]);
      total++;
    }
  }
  printf("replayed %zu inputs\n", total);
  return 0;
}
