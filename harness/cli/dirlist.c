/*
 * dirlist.c - a directory's files by suffix, sorted (see dirlist.h).
 */
#include "dirlist.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends `dir/name` to `*paths` (NULL-terminated); false when out of
 * memory. */
static bool append(char ***paths, size_t *count, size_t *capacity,
                   const char *dir, const char *name) {
  if (*count + 1 >= *capacity) {
    size_t grown = *capacity ? 2 * *capacity : 16;
    char **bigger = realloc(*paths, grown * sizeof *bigger);
    if (!bigger)
      return false;
    *paths = bigger;
    *capacity = grown;
  }
  size_t size = strlen(dir) + strlen(name) + 2;
  char *path = malloc(size);
  if (!path)
    return false;
  snprintf(path, size, "%s/%s", dir, name);
  (*paths)[(*count)++] = path;
  (*paths)[*count] = NULL;
  return true;
}

char **lctx_dirlist_read(const char *dir, const char *suffix, size_t *count) {
  *count = 0;
  DIR *d = opendir(dir);
  if (!d)
    return NULL;
  size_t capacity = 1, k = strlen(suffix);
  char **paths = calloc(capacity, sizeof *paths); /* {NULL} */
  bool ok = paths != NULL;
  for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
    size_t n = strlen(e->d_name);
    if (n > k && strcmp(e->d_name + n - k, suffix) == 0)
      ok = append(&paths, count, &capacity, dir, e->d_name);
  }
  closedir(d);
  if (!ok) {
    lctx_dirlist_free(paths);
    *count = 0;
    errno = ENOMEM;
    return NULL;
  }
  qsort(paths, *count, sizeof *paths, compare_paths);
  return paths;
}

void lctx_dirlist_free(char **paths) {
  for (size_t i = 0; paths && paths[i]; i++)
    free(paths[i]);
  free(paths);
}
