/*
 * proc.c - running a helper program with a time limit (see proc.h).
 */
#include "proc.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int lctx_run_limited(char *const argv[], const char *log,
                     const char *stdin_path, const char *env_name,
                     const char *env_value, double timeout, double *seconds) {
  double start = now_seconds();
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
    if (now_seconds() - start > timeout) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    struct timespec ts = {0, 2000000}; /* 2 ms */
    nanosleep(&ts, NULL);
  }
  if (seconds)
    *seconds = now_seconds() - start;
  return status;
}
