/*
 * sys.c - clock, files and directories, default paths, helper programs,
 * interrupts (see sys.h).
 */
#include "sys.h"

#include "data_paths.h"
#include "escape.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
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

bool lctx_sys_cwd(char *dst, size_t n) {
  if (n == 0)
    return false;
  if (!getcwd(dst, n)) {
    dst[0] = '\0';
    return false;
  }
  return true;
}

/* The errno lctx_sys_open_file gives for a file of MODE that is not a
 * regular one. */
static int not_regular_errno(mode_t mode) {
  if (S_ISLNK(mode))
    return ELOOP;
  if (S_ISDIR(mode))
    return EISDIR;
  if (S_ISFIFO(mode))
    return ESPIPE;
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return ENODEV;
  return ENXIO;
}

int lctx_sys_open_file(const char *path, int flags, bool follow) {
  bool truncate = (flags & O_TRUNC) != 0;
  int fd = open(path,
                (flags & ~O_TRUNC) | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
                    (follow ? 0 : O_NOFOLLOW),
                0666);
  struct stat st;
  if (fd < 0) {
    int e = errno;
    /* A FIFO without a reader (ENXIO), a socket, a link: say which. */
    if ((follow ? stat(path, &st) : lstat(path, &st)) == 0 &&
        !S_ISREG(st.st_mode))
      e = not_regular_errno(st.st_mode);
    errno = e;
    return -1;
  }
  int e = 0;
  if (fstat(fd, &st) != 0)
    e = errno;
  else if (!S_ISREG(st.st_mode))
    e = not_regular_errno(st.st_mode);
  else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
           (truncate && ftruncate(fd, 0) != 0))
    e = errno;
  if (e) {
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

/* FILE streams over lctx_sys_open_file. */
static FILE *open_stream(const char *path, const char *mode, bool follow) {
  int flags = mode[0] == 'w'   ? O_WRONLY | O_CREAT | O_TRUNC
              : mode[0] == 'a' ? O_WRONLY | O_CREAT | O_APPEND
                               : O_RDONLY;
  int fd = lctx_sys_open_file(path, flags, follow);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, mode[0] == 'w' ? "w" : mode[0] == 'a' ? "a" : "r");
  if (!f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

FILE *lctx_sys_fopen_in(const char *path, const char *mode) {
  return open_stream(path, mode, false);
}

FILE *lctx_sys_fopen_input(const char *path) {
  return open_stream(path, "r", true);
}

const char *lctx_sys_file_error(int errnum) {
  switch (errnum) {
  case ELOOP:
    return "a symbolic link, not followed (lctx writes and reads its "
           "folders' files themselves, never through a link)";
  case EISDIR:
    return "not a regular file (a folder)";
  case ESPIPE:
    return "not a regular file (a FIFO)";
  case ENODEV:
    return "not a regular file (a device)";
  case ENXIO:
    return "not a regular file (a socket)";
  default:
    return strerror(errnum ? errnum : EIO);
  }
}

bool lctx_sys_mkdir_in(const char *path) {
  if (mkdir(path, 0777) == 0)
    return true;
  if (errno != EEXIST)
    return false;
  struct stat st;
  if (lstat(path, &st) != 0)
    return false;
  if (S_ISDIR(st.st_mode))
    return true;
  errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
  return false;
}

bool lctx_sys_write_file(const char *path, const void *data, size_t size) {
  int fd = lctx_sys_open_file(path, O_WRONLY | O_CREAT | O_TRUNC, false);
  if (fd < 0)
    return false;
  const char *p = data;
  size_t done = 0;
  while (done < size) {
    ssize_t w = write(fd, p + done, size - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      int e = w < 0 ? errno : EIO;
      close(fd);
      errno = e;
      return false;
    }
    done += (size_t)w;
  }
  return close(fd) == 0;
}

size_t lctx_sys_read_tail(const char *path, char *buf, size_t cap) {
  buf[0] = '\0';
  FILE *f = lctx_sys_fopen_in(path, "r");
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

int lctx_sys_lock_run_dir(const char *dir, const char *who, const char *option,
                          char *why, size_t cap) {
  char holder[256] = "";
  bool busy;
  int fd = lctx_sys_lock_dir(dir, who, &busy, holder, sizeof holder);
  lctx_escaped d, h;
  if (fd < 0 && busy)
    snprintf(why, cap,
             "%s %s is in use by another run (%s); wait for it or choose "
             "another folder",
             option, lctx_esc(&d, dir),
             holder[0] ? lctx_esc(&h, holder) : "unknown");
  else if (fd < 0)
    snprintf(why, cap, "%s/.lock: %s", lctx_esc(&d, dir),
             lctx_sys_file_error(errno));
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

/* The first signal that asked lctx to stop (0: none): process-wide by
 * nature, the one thing the handler sets. */
static volatile sig_atomic_t g_signal;
/* The actions the fault signals had, for a fault of lctx's own. */
static struct sigaction g_old[LCTX_SYS_SIGNALS];
/* Whether lctx is catching (then a fork's child starts with defaults). */
static volatile sig_atomic_t g_catching;

/* The signals that end a process by default and that a fault of the
 * process itself raises too. */
static bool is_fault(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
         sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS;
}

/* Whether lctx takes `sig` over: every signal whose default ends the
 * process but SIGKILL; not SIGSTOP (it cannot be caught), the job control
 * stops, SIGCHLD, SIGCONT, SIGURG or SIGWINCH (they do not end it). */
static bool is_taken(int sig) {
  switch (sig) {
  case SIGHUP:
  case SIGINT:
  case SIGQUIT:
  case SIGUSR1:
  case SIGUSR2:
  case SIGALRM:
  case SIGTERM:
  case SIGVTALRM:
  case SIGPROF:
  case SIGXCPU:
  case SIGXFSZ:
  case SIGIO:
#ifdef SIGPWR
  case SIGPWR:
#endif
#ifdef SIGSTKFLT
  case SIGSTKFLT:
#endif
    return true;
  default:
    return is_fault(sig) || (sig >= SIGRTMIN && sig <= SIGRTMAX);
  }
}

static void defaults_in_child(void);

static void register_atfork(void) {
  (void)pthread_atfork(NULL, NULL, defaults_in_child);
}

static void on_signal(int sig, siginfo_t *info, void *context) {
  /* A fault of lctx's own (the kernel's si_code > 0) or its own raise()
   * or abort() (SI_TKILL from itself, which no other process can send):
   * the action it had. */
  if (is_fault(sig) && info &&
      (info->si_code > 0 ||
       (info->si_code == SI_TKILL && info->si_pid == getpid()))) {
    struct sigaction *old = &g_old[sig];
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction != on_signal) {
      old->sa_sigaction(sig, info, context);
      return;
    }
    if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
        old->sa_handler != SIG_IGN) {
      old->sa_handler(sig);
      return;
    }
    signal(sig, SIG_DFL);
    if (info->si_code <= 0)
      raise(sig); /* delivered when this returns */
    return;       /* a fault faults again, now with the default action */
  }
  if (!g_signal)
    g_signal = sig;
}

/* In the child of a fork: the signals as a fresh process has them. */
static void defaults_in_child(void) {
  if (!g_catching)
    return;
  g_catching = 0;
  for (int sig = 1; sig < LCTX_SYS_SIGNALS && sig <= SIGRTMAX; sig++) {
    if (is_taken(sig) || sig == SIGPIPE)
      signal(sig, SIG_DFL);
  }
}

void lctx_sys_catch_interrupts(lctx_sys_interrupts *saved) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  (void)pthread_once(&once, register_atfork);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigfillset(&sa.sa_mask);
  g_signal = 0;
  memset(saved->taken, 0, sizeof saved->taken);
  for (int sig = 1; sig < LCTX_SYS_SIGNALS && sig <= SIGRTMAX; sig++) {
    if (!is_taken(sig) && sig != SIGPIPE)
      continue;
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    saved->taken[sig] =
        sigaction(sig, sig == SIGPIPE ? &ignore : &sa, &saved->old[sig]) == 0;
    if (saved->taken[sig])
      g_old[sig] = saved->old[sig];
  }
  g_catching = 1;
}

bool lctx_sys_interrupted(void) {
  return g_signal != 0;
}

int lctx_sys_interrupt_signal(void) {
  return (int)g_signal;
}

const char *lctx_sys_signal_name(int sig, char *buf, size_t cap) {
  static const struct {
    int sig;
    const char *name;
  } names[] = {
      {SIGHUP, "SIGHUP"},       {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
      {SIGILL, "SIGILL"},       {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
      {SIGBUS, "SIGBUS"},       {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
      {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"},     {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
      {SIGCHLD, "SIGCHLD"},     {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"},
      {SIGTSTP, "SIGTSTP"},     {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},
      {SIGURG, "SIGURG"},       {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
      {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
      {SIGIO, "SIGIO"},         {SIGSYS, "SIGSYS"},
#ifdef SIGPWR
      {SIGPWR, "SIGPWR"},
#endif
#ifdef SIGSTKFLT
      {SIGSTKFLT, "SIGSTKFLT"},
#endif
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (names[i].sig == sig) {
      snprintf(buf, cap, "%s", names[i].name);
      return buf;
    }
  }
  if (sig == SIGRTMIN || sig == SIGRTMAX)
    snprintf(buf, cap, "SIGRTM%s", sig == SIGRTMIN ? "IN" : "AX");
  else if (sig > SIGRTMIN && sig < SIGRTMAX)
    snprintf(buf, cap, "SIGRTMIN+%d", sig - SIGRTMIN);
  else
    snprintf(buf, cap, "signal %d", sig);
  return buf;
}

void lctx_sys_release_interrupts(const lctx_sys_interrupts *saved) {
  g_catching = 0;
  for (int sig = 1; sig < LCTX_SYS_SIGNALS; sig++) {
    if (saved->taken[sig])
      sigaction(sig, &saved->old[sig], NULL);
  }
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
