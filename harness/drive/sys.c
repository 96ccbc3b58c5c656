/*
 * sys.c - clock, directories, default paths, helper programs (see sys.h).
 */
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double lctx_sys_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

const char *lctx_sys_default_spec_path(void) {
  const char *env = getenv("LCTX_SPEC");
  return env && *env ? env
                     : LCTX_SOURCE_DIR
             "/conformance/spec/backend-selection.lspec";
}

const char *lctx_sys_default_cases_path(void) {
  const char *env = getenv("LCTX_CASES");
  return env && *env ? env : LCTX_SOURCE_DIR "/conformance/cases";
}

int lctx_sys_run_limited(char *const argv[], const char *log,
                         const char *stdin_path, const char *env_name,
                         const char *env_value, double timeout,
                         double *seconds) {
  double start = lctx_sys_now();
  if (seconds)
    *seconds = 0;
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    if (in >= 0) {
      dup2(in, 0);
      close(in);
    }
    if (env_name)
      setenv(env_name, env_value, 1);
    execv(argv[0], argv);
    _exit(127);
  }
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid)
      break;
    if (r < 0) {
      status = -1;
      break;
    }
    if (lctx_sys_now() - start > timeout) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    struct timespec ts = {0, 2000000}; /* 2 ms */
    nanosleep(&ts, NULL);
  }
  if (seconds)
    *seconds = lctx_sys_now() - start;
  return status;
}
