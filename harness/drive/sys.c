/*
 * sys.c - clock, files and directories, default paths, helper programs,
 * interrupts (see sys.h).
 */
#include "sys.h"

#include "data_paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double lctx_sys_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void lctx_sys_sleep(double seconds) {
  struct timespec ts = {(time_t)seconds,
                        (long)((seconds - (double)(time_t)seconds) * 1e9)};
  nanosleep(&ts, NULL);
}

void *lctx_sys_alloc(size_t size, const char *who, FILE *err) {
  void *p = calloc(1, size);
  if (!p)
    fprintf(err, "%s: out of memory\n", who);
  return p;
}

bool lctx_sys_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool lctx_sys_is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool lctx_sys_write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

size_t lctx_sys_read_tail(const char *path, char *buf, size_t cap) {
  buf[0] = '\0';
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  long keep = (long)cap - 1;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, size > keep ? size - keep : 0, SEEK_SET);
  size_t n = fread(buf, 1, cap - 1, f);
  fclose(f);
  buf[n] = '\0';
  return n;
}

void lctx_sys_each_entry(const char *dir,
                         void (*visit)(void *user, const char *path),
                         void *user) {
  DIR *d = opendir(dir);
  if (!d)
    return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.')
      continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    visit(user, path);
  }
  closedir(d);
}

/* lctx_sys_each_file's visitor and its user, behind a filter. */
typedef struct file_filter {
  void (*visit)(void *user, const char *path);
  void *user;
} file_filter;

static void visit_if_file(void *user, const char *path) {
  const file_filter *filter = user;
  if (lctx_sys_is_file(path))
    filter->visit(filter->user, path);
}

void lctx_sys_each_file(const char *dir,
                        void (*visit)(void *user, const char *path),
                        void *user) {
  file_filter filter = {visit, user};
  lctx_sys_each_entry(dir, visit_if_file, &filter);
}

static void count_one(void *user, const char *path) {
  (void)path;
  ++*(size_t *)user;
}

size_t lctx_sys_count_entries(const char *dir) {
  size_t n = 0;
  lctx_sys_each_entry(dir, count_one, &n);
  return n;
}

bool lctx_sys_mkdir_p(const char *path) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return false;
  }
  for (char *p = tmp + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
        return false;
      *p = '/';
    }
  }
  return mkdir(tmp, 0777) == 0 || errno == EEXIST;
}

bool lctx_sys_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return errno == ENOENT;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (!d)
      return false;
    bool ok = true;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char sub[4096];
      if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >=
          (int)sizeof sub) {
        errno = ENAMETOOLONG;
        ok = false;
        continue;
      }
      ok = lctx_sys_remove_tree(sub) && ok;
    }
    closedir(d);
    return ok && rmdir(path) == 0;
  }
  return unlink(path) == 0;
}

const char *lctx_sys_default_spec_path(void) {
  return lctx_data_paths_current()->spec;
}

const char *lctx_sys_default_cases_path(void) {
  return lctx_data_paths_current()->cases;
}

/* Whether the NUL-separated entries of /proc/PID/environ hold `entry`. */
static bool environ_holds(const char *pid, const char *entry, char *buf,
                          size_t cap) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%s/environ", pid);
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return false;
  size_t n = 0;
  for (ssize_t r; n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0;)
    n += (size_t)r;
  close(fd);
  buf[n] = '\0';
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
    if (strcmp(buf + i, entry) == 0)
      return true;
  }
  return false;
}

size_t lctx_sys_signal_marked(const char *entry, int sig) {
  size_t cap = 1u << 20, count = 0;
  char *buf = malloc(cap);
  DIR *d = buf ? opendir("/proc") : NULL;
  if (!d) {
    free(buf);
    return 0;
  }
  char self[32];
  snprintf(self, sizeof self, "%ld", (long)getpid());
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    const char *name = e->d_name;
    if (name[0] < '1' || name[0] > '9' ||
        name[strspn(name, "0123456789")] != '\0' || strcmp(name, self) == 0)
      continue;
    if (environ_holds(name, entry, buf, cap) &&
        kill((pid_t)strtol(name, NULL, 10), sig) == 0)
      count++;
  }
  closedir(d);
  free(buf);
  return count;
}

int lctx_sys_lock_dir(const char *dir, const char *who, bool *busy,
                      char *holder, size_t cap) {
  *busy = false;
  char path[4200];
  if (snprintf(path, sizeof path, "%s/.lock", dir) >= (int)sizeof path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0)
    return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    *busy = e == EWOULDBLOCK;
    ssize_t n = cap > 0 ? pread(fd, holder, cap - 1, 0) : -1;
    if (cap > 0) {
      holder[n > 0 ? n : 0] = '\0';
      holder[strcspn(holder, "\n")] = '\0';
    }
    close(fd);
    errno = e;
    return -1;
  }
  char when[32] = "";
  time_t now = time(NULL);
  struct tm tm;
  if (gmtime_r(&now, &tm))
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  char line[256];
  int n = snprintf(line, sizeof line, "%s, pid %ld, started %s\n", who,
                   (long)getpid(), when);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n) {
    int e = errno;
    close(fd);
    errno = e ? e : EIO;
    return -1;
  }
  return fd;
}

int lctx_sys_statm_open(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/statm", (long)pid);
  return open(path, O_RDONLY | O_CLOEXEC);
}

double lctx_sys_resident_bytes(pid_t pid) {
  int fd = lctx_sys_statm_open(pid);
  if (fd < 0)
    return 0;
  double bytes = lctx_sys_resident_bytes_at(fd);
  close(fd);
  return bytes;
}

double lctx_sys_resident_bytes_at(int fd) {
  /* Read with plain system calls: it is polled between cases, where
   * fopen and fscanf would cost more than a case. */
  char text[128];
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  if (n <= 0)
    return 0;
  text[n] = '\0';
  /* "SIZE RESIDENT ...": the second number. */
  const char *p = text;
  unsigned long field[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    if (*p < '0' || *p > '9')
      return 0;
    while (*p >= '0' && *p <= '9')
      field[k] = field[k] * 10 + (unsigned long)(*p++ - '0');
    if (k == 0 && *p++ != ' ')
      return 0;
  }
  return (double)field[1] * (double)sysconf(_SC_PAGESIZE);
}

/* The one flag a signal handler may set: process-wide by nature. */
static volatile sig_atomic_t g_interrupted;

static void on_interrupt(int sig) {
  (void)sig;
  g_interrupted = 1;
}

void lctx_sys_catch_interrupts(lctx_sys_interrupts *saved) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  g_interrupted = 0;
  sigaction(SIGINT, &sa, &saved->old_int);
  sigaction(SIGTERM, &sa, &saved->old_term);
}

bool lctx_sys_interrupted(void) {
  return g_interrupted != 0;
}

void lctx_sys_release_interrupts(const lctx_sys_interrupts *saved) {
  sigaction(SIGINT, &saved->old_int, NULL);
  sigaction(SIGTERM, &saved->old_term, NULL);
}

void lctx_sys_reader_init(lctx_sys_reader *r, int fd, uint8_t *buf,
                          size_t capacity, void (*idle)(void *), void *user) {
  *r = (lctx_sys_reader){fd, idle, user, buf, capacity, 0, 0};
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

bool lctx_sys_reader_read(lctx_sys_reader *r, void *dst, size_t n) {
  uint8_t *to = dst;
  while (n > 0) {
    if (r->at == r->length) {
      ssize_t got = read(r->fd, r->buf, r->capacity);
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        r->idle(r->user);
        struct pollfd in = {r->fd, POLLIN, 0};
        (void)poll(&in, 1, -1);
        continue;
      }
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        return false;
      r->at = 0;
      r->length = (size_t)got;
    }
    size_t k = r->length - r->at < n ? r->length - r->at : n;
    memcpy(to, r->buf + r->at, k);
    r->at += k;
    to += k;
    n -= k;
  }
  return true;
}

long lctx_sys_read_line(FILE *f, char *buf, size_t cap, bool *over) {
  size_t n = 0;
  int c;
  *over = false;
  while ((c = getc_unlocked(f)) != EOF && c != '\n') {
    if (n + 1 < cap)
      buf[n++] = (char)c;
    else
      *over = true;
  }
  buf[n] = '\0';
  return c == EOF && n == 0 && !*over ? -1 : (long)n;
}
