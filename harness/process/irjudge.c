/*
 * irjudge.c - judging implementation modules in a child process (see
 * irjudge.h).
 *
 * The judge is a fork of lctx, a peer (peer.h) with pipes to lctx. Jobs go
 * down as records (native endianness, same machine):
 *   job:     u32 JOB_MAGIC | u32 seq | u32 n | case packed (n, case_pack.h:
 *            the judge is a fork of lctx) | u32 op | u32 m | module text (m)
 *   verdict: u32 VERDICT_MAGIC | u32 seq | u32 status | u32 passed |
 *            u32 applicable | u32 passes_at | char row[8] | u32 k |
 *            reason (k)
 * Both sides are driven with poll(); lctx never blocks on the judge, and
 * queues at most a window of jobs ahead of the verdicts.
 */
#define _GNU_SOURCE
#include "irjudge.h"
#include "peer.h"
#include "sys.h"

#include "case_pack.h"
#include "irexpect.h"
#include "irmemo.h"
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define JOB_MAGIC 0x6c6a6f62u     /* "ljob" */
#define VERDICT_MAGIC 0x6c766572u /* "lver" */
/* The bytes of jobs queued ahead of the verdicts. */
#define WINDOW (4u << 20)
#define VERDICT_HEAD (6 * 4 + 8 + 4)

/* What the judge shares with lctx: the job it began last, and when, so that
 * a hang is put on that job although the verdicts before it were not yet
 * written (the judge writes them when it has read every job sent). */
typedef struct judge_shared {
  _Atomic int64_t since; /* CLOCK_MONOTONIC ns */
  _Atomic uint32_t job;  /* its number + 1; 0 before the first */
} judge_shared;

struct lctx_irjudge {
  const lctx_release *release; /* what the model judges modules as */
  double timeout;
  char log_path[4096];
  lctx_peer peer;       /* the judge, its pipes and their buffers */
  judge_shared *shared; /* the current judge's; NULL when none */
  size_t kills;
  size_t unstarted; /* modules left unjudged: no judge could start */
  /* Judges lost and the module run again alone (retries), and whether a
   * retry is under way (a retry is never retried). */
  size_t retries;
  bool retrying;
  /* The jobs lctx_irjudge_start handed over (NULL: none), their verdicts,
   * and how many of them are queued. */
  const lctx_irjudge_job *started;
  lctx_irjudge_verdict *started_verdicts;
  size_t started_n, started_queued;
  /* The case whose bytes case_bytes holds (queue_job), valid within one
   * list of jobs (NULL: none). */
  const lctx_case *encoded;
  size_t encoded_length;
  uint8_t case_bytes[LCTX_CASE_PACKED_MAX];
};

//===----------------------------------------------------------------------===//
// The judge process
//===----------------------------------------------------------------------===//

/* What the judge works with, one module at a time (heap: large). */
typedef struct judge_state {
  const lctx_release *release;
  judge_shared *shared; /* the watchdog's clock (judge_main's) */
  lctx_ircheck *ck;
  lctx_ir_memo *memo; /* NULL: out of memory, every module judged anew */
  lctx_case c;
  lctx_runner runner;
  lctx_ir_expect_store store;
  lctx_ir_report report;
  lctx_ir_verdict verdict;
  uint8_t bytes[LCTX_CASE_PACKED_MAX];
  char mlir[LCTX_CASE_IMPL_MLIR_CAPACITY + 1];
} judge_state;

/* The judge's input, read many jobs at a time; the verdicts written so far
 * go out whenever no more jobs came yet (the reader's idle step). */
typedef struct job_reader {
  lctx_sys_reader r;
  uint8_t buf[1u << 20];
} job_reader;

static bool job_read(job_reader *in, void *dst, size_t n) {
  return lctx_sys_reader_read(&in->r, dst, n);
}

static void flush_verdicts(void *out) {
  if (fflush(out) != 0)
    _exit(1);
}

static bool read_u32(job_reader *in, uint32_t *v) {
  return job_read(in, v, 4);
}

static bool write_all(FILE *out, const void *p, size_t n) {
  return fwrite(p, 1, n, out) == n;
}

/* Judges module `s->mlir` of operation `op` of `s->c`; the status. */
static uint32_t judge_one(judge_state *s, size_t op) {
  if (!s->ck && !(s->ck = lctx_ircheck_create()))
    _exit(3);
  lctx_runner_init_at(&s->runner, &s->c, s->release);
  lctx_outcome outcome;
  for (size_t i = 0; i <= op; i++) {
    if (!lctx_runner_op(&s->runner, &s->c.ops[i], &outcome, NULL))
      return LCTX_IRJUDGE_NOT_JUDGED;
  }
  if (outcome.kind == LCTX_OUTCOME_RAISE ||
      !lctx_ir_expect_from_lowering(&s->runner.lowering, s->runner.result,
                                    s->c.ops[op].x64, &s->store))
    return LCTX_IRJUDGE_NOT_JUDGED;
  if (s->memo)
    lctx_ir_memo_judge(s->memo, s->ck, lctx_str_from_cstr(s->mlir), &s->store,
                       &s->report, &s->verdict);
  else
    lctx_ir_judge(s->ck, lctx_str_from_cstr(s->mlir), &s->store, &s->report,
                  &s->verdict);
  return LCTX_IRJUDGE_JUDGED;
}

/* A module that failed at the judged release: the releases of the model
 * (a bit per lctx_release_at index) whose reference lowering of the same
 * operation gives an expectation the module meets. Clobbers the runner,
 * the store and the report; keeps the verdict. */
static uint32_t passes_elsewhere(judge_state *s, size_t op) {
  uint32_t mask = 0;
  lctx_ir_verdict judged_verdict = s->verdict;
  const lctx_release *judged = lctx_release_resolve(s->release);
  for (size_t r = 0; r < lctx_release_count() && r < 32; r++) {
    const lctx_release *at = lctx_release_at(r);
    if (at == judged)
      continue;
    lctx_runner_init_at(&s->runner, &s->c, at);
    lctx_outcome outcome;
    bool ran = true;
    for (size_t i = 0; i <= op && ran; i++)
      ran = lctx_runner_op(&s->runner, &s->c.ops[i], &outcome, NULL);
    if (!ran || outcome.kind == LCTX_OUTCOME_RAISE ||
        !lctx_ir_expect_from_lowering(&s->runner.lowering, s->runner.result,
                                      s->c.ops[op].x64, &s->store))
      continue;
    /* Each judgement has the time limit of one: the watchdog's clock
     * starts again, so a module near the limit is not killed for being
     * judged at several releases. */
    atomic_store_explicit(&s->shared->since, (int64_t)(lctx_sys_now() * 1e9),
                          memory_order_relaxed);
    lctx_ir_judge(s->ck, lctx_str_from_cstr(s->mlir), &s->store, &s->report,
                  &s->verdict);
    if (s->verdict.ok)
      mask |= 1u << r;
  }
  s->verdict = judged_verdict;
  return mask;
}

/* Serves jobs from `in_fd` until it closes, verdicts to `out_fd`; never
 * returns. */
static void judge_main(judge_shared *shared, const lctx_release *release,
                       int in_fd, int out_fd) {
  judge_state *s = calloc(1, sizeof *s);
  job_reader *in = malloc(sizeof *in);
  if (!s || !in)
    _exit(3);
  s->release = release;
  s->shared = shared;
  lctx_case_init(&s->c);
  s->memo = lctx_ir_memo_new();
  FILE *out = fdopen(out_fd, "wb");
  if (!out || setvbuf(out, NULL, _IOFBF, 1u << 16) != 0)
    _exit(3);
  lctx_sys_reader_init(&in->r, in_fd, in->buf, sizeof in->buf, flush_verdicts,
                       out);
  for (;;) {
    uint32_t magic, seq, n, op, m;
    if (!read_u32(in, &magic))
      _exit(0);
    if (magic != JOB_MAGIC || !read_u32(in, &seq) || !read_u32(in, &n) ||
        n > sizeof s->bytes || !job_read(in, s->bytes, n) ||
        !read_u32(in, &op) || !read_u32(in, &m) ||
        m > LCTX_CASE_IMPL_MLIR_CAPACITY || !job_read(in, s->mlir, m))
      _exit(2);
    atomic_store_explicit(&shared->since, (int64_t)(lctx_sys_now() * 1e9),
                          memory_order_relaxed);
    atomic_store_explicit(&shared->job, seq + 1, memory_order_release);
    s->mlir[m] = '\0';
    bool unpacked = lctx_case_unpack(s->bytes, n, &s->c);
    memset(&s->verdict, 0, sizeof s->verdict);
    uint32_t status = unpacked && op < s->c.op_count ? judge_one(s, op)
                                                     : LCTX_IRJUDGE_NOT_JUDGED;
    uint32_t passes_at = 0;
    if (status == LCTX_IRJUDGE_JUDGED && !s->verdict.ok)
      passes_at = passes_elsewhere(s, op);
    uint32_t head[6] = {VERDICT_MAGIC,         seq,      status, s->verdict.ok,
                        s->verdict.applicable, passes_at};
    char row[8];
    memcpy(row, s->verdict.row, sizeof row);
    uint32_t k = (uint32_t)strnlen(s->verdict.reason, LCTX_IR_MESSAGE_MAX);
    if (!write_all(out, head, sizeof head) || !write_all(out, row, 8) ||
        !write_all(out, &k, 4) || !write_all(out, s->verdict.reason, k))
      _exit(1);
  }
}

//===----------------------------------------------------------------------===//
// lctx's side
//===----------------------------------------------------------------------===//

lctx_irjudge *lctx_irjudge_new(double timeout, size_t memory_limit_mb,
                               const char *log_path,
                               const lctx_release *release) {
  lctx_irjudge *j = calloc(1, sizeof *j);
  if (!j)
    return NULL;
  j->release = release;
  j->timeout = timeout;
  snprintf(j->log_path, sizeof j->log_path, "%s",
           log_path ? log_path : "/dev/null");
  lctx_peer_init(&j->peer);
  j->peer.memory_limit_mb = memory_limit_mb;
  return j;
}

/* The judge's body in its process (peer.h): the pipes, the log as
 * stderr. */
static void become_judge(void *user, int in_fd, int out_fd) {
  lctx_irjudge *j = user;
  judge_main(j->shared, j->release, in_fd, out_fd);
}

static bool start(lctx_irjudge *j) {
  /* A fresh page for each judge: one killed may not be gone yet. */
  if (j->shared)
    munmap(j->shared, sizeof *j->shared);
  j->shared = mmap(NULL, sizeof *j->shared, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (j->shared == MAP_FAILED) {
    j->shared = NULL;
    return false;
  }
  /* Room for a batch's jobs, handed over at once (lctx_irjudge_start). */
  lctx_peer_spec spec = {.body = become_judge,
                         .user = j,
                         .pipes = true,
                         .log = j->log_path,
                         .isolate = true,
                         .pipe_size = 1u << 20};
  char text[256];
  lctx_buf error;
  lctx_buf_init(&error, text, sizeof text);
  return lctx_peer_start(&j->peer, &spec, &error);
}

/* Kills the judge and what it left; describes how it ended. */
static void stop(lctx_irjudge *j, char *how, size_t cap) {
  lctx_buf b;
  if (how && cap > 0)
    lctx_buf_init(&b, how, cap);
  lctx_peer_stop(&j->peer, 0, how && cap > 0 ? &b : NULL);
}

static bool queue(lctx_irjudge *j, const void *data, size_t n) {
  return lctx_peer_queue(&j->peer, data, n);
}

/* Queues job `i`. Jobs of one case (its lower_per_platform operations)
 * come one after the other: it is packed once for them (packed rather than
 * encoded, case_bytes.h: a copy of its used parts is cheaper). */
static bool queue_job(lctx_irjudge *j, const lctx_irjudge_job *job,
                      uint32_t seq) {
  const uint8_t *bytes = job->packed;
  size_t size = job->packed_size;
  if (!bytes || size > sizeof j->case_bytes) {
    if (job->c != j->encoded) {
      j->encoded_length = lctx_case_pack(job->c, j->case_bytes);
      j->encoded = job->c;
    }
    bytes = j->case_bytes;
    size = j->encoded_length;
  }
  uint32_t n = (uint32_t)size;
  size_t length = strlen(job->mlir);
  uint32_t op = (uint32_t)job->op, m = (uint32_t)length;
  uint32_t head[3] = {JOB_MAGIC, seq, n};
  return length <= LCTX_CASE_IMPL_MLIR_CAPACITY &&
         queue(j, head, sizeof head) && queue(j, bytes, n) &&
         queue(j, &op, 4) && queue(j, &m, 4) && queue(j, job->mlir, length);
}

/* The size of the complete verdict at the start of the judge's output, 0
 * while incomplete, (size_t)-1 when it is broken. */
static size_t verdict_size(const lctx_irjudge *j) {
  if (j->peer.in_length < VERDICT_HEAD)
    return 0;
  uint32_t k;
  memcpy(&k, lctx_peer_input(&j->peer) + VERDICT_HEAD - 4, 4);
  if (k > LCTX_IR_MESSAGE_MAX)
    return (size_t)-1;
  return j->peer.in_length >= VERDICT_HEAD + k ? VERDICT_HEAD + k : 0;
}

/* A pump's want (peer.h): a complete verdict, or a broken one. */
static int want_verdict(void *user) {
  lctx_irjudge *j = user;
  size_t size = verdict_size(j);
  if (size == (size_t)-1) {
    snprintf(j->peer.bad, sizeof j->peer.bad,
             "the judge wrote a broken verdict");
    return -1;
  }
  return size > 0;
}

/* Moves bytes until a verdict is complete (1), the judge ends or breaks
 * (0, why in `why`), or the deadline passes (-1). */
static int pump(lctx_irjudge *j, double deadline, char *why, size_t cap) {
  lctx_peer_end r = lctx_peer_pump(&j->peer, deadline, want_verdict, j);
  if (r == LCTX_PEER_BAD)
    snprintf(why, cap, "%s", j->peer.bad);
  else if (r == LCTX_PEER_MEMORY)
    snprintf(why, cap, "the judge used more than %zu MB of memory on it",
             j->peer.memory_limit_mb);
  return r == LCTX_PEER_DONE ? 1 : r == LCTX_PEER_TIMEOUT ? -1 : 0;
}

/* Waits for the verdict of job `next` (of `n`): pump()'s result. Each job
 * has the timeout from when the judge began it (the shared page), never
 * more than a timeout from now; when the judge was lost on a later job,
 * the verdicts before it still unwritten, that job is `*hung`. */
static int await_verdict(lctx_irjudge *j, size_t next, size_t n, char *why,
                         size_t cap, size_t *hung) {
  double deadline = lctx_sys_now() + j->timeout;
  uint32_t seen = (uint32_t)next;
  int r;
  while ((r = pump(j, deadline, why, cap)) == -1 && j->shared) {
    uint32_t job = atomic_load_explicit(&j->shared->job, memory_order_acquire);
    double since =
        (double)atomic_load_explicit(&j->shared->since, memory_order_relaxed) /
        1e9;
    if (job <= seen || job > n)
      break;
    seen = job; /* job - 1 began at `since` */
    double now = lctx_sys_now(), until = since + j->timeout;
    deadline = until < now + j->timeout ? until : now + j->timeout;
    if (deadline <= now) {
      *hung = job - 1;
      return -1;
    }
  }
  /* Lost (hung, died or over its memory) while on a later job: that job,
   * unless what came is a broken verdict, which is next's. */
  if (r != 1 && j->shared && verdict_size(j) != (size_t)-1) {
    uint32_t job = atomic_load_explicit(&j->shared->job, memory_order_acquire);
    if (job > next + 1 && job <= n)
      *hung = job - 1;
  }
  return r;
}

/* Takes the verdict at the start of j->in for job `seq`; false when it
 * answers another job. */
static bool take_verdict(lctx_irjudge *j, uint32_t seq,
                         lctx_irjudge_verdict *v) {
  size_t size = verdict_size(j);
  const uint8_t *in = lctx_peer_input(&j->peer);
  uint32_t head[6], k;
  memcpy(head, in, sizeof head);
  memcpy(&k, in + VERDICT_HEAD - 4, 4);
  bool good = head[0] == VERDICT_MAGIC && head[1] == seq &&
              head[2] <= LCTX_IRJUDGE_NOT_JUDGED;
  if (good) {
    v->status = (lctx_irjudge_status)head[2];
    v->passed = head[3] != 0;
    v->applicable = head[4];
    v->passes_at = head[5];
    memcpy(v->row, in + 24, 8);
    v->row[7] = '\0';
    snprintf(v->reason, sizeof v->reason, "%.*s", (int)k,
             (const char *)in + VERDICT_HEAD);
  }
  lctx_peer_consume(&j->peer, size);
  return good;
}

/* The judge did not give job `v`'s verdict (r: 0 it broke, -1 it hung). */
static void lose_judge(lctx_irjudge *j, int r, const char *why,
                       lctx_irjudge_verdict *v) {
  char how[160] = "";
  stop(j, how, sizeof how);
  j->kills++;
  v->status = LCTX_IRJUDGE_KILLED;
  v->passed = false;
  snprintf(v->row, sizeof v->row, "IR-000");
  if (r < 0)
    snprintf(v->reason, sizeof v->reason,
             "judging the module took more than %.1f s (not judged)",
             j->timeout);
  else
    snprintf(v->reason, sizeof v->reason,
             "the module killed the MLIR judge (%s; not judged)",
             how[0] ? how : why);
}

/* Judges `job` again, alone, in a fresh judge, after a judge was lost on
 * it: true with its verdict in `v` when that judge gave one; false (the
 * module loses this judge too, or none could start) leaves `v` to the
 * caller. */
static bool retry_alone(lctx_irjudge *j, const lctx_irjudge_job *job,
                        lctx_irjudge_verdict *v) {
  stop(j, NULL, 0);
  j->retries++;
  j->retrying = true;
  size_t unstarted = j->unstarted;
  lctx_irjudge_verdict again;
  lctx_irjudge_run(j, job, 1, &again);
  j->retrying = false;
  j->unstarted = unstarted;
  if (again.status == LCTX_IRJUDGE_KILLED ||
      (again.status == LCTX_IRJUDGE_NOT_JUDGED && j->peer.pid <= 0))
    return false;
  *v = again;
  return true;
}

/* Queues jobs from `*queued` while the window has room. */
static void fill_window(lctx_irjudge *j, const lctx_irjudge_job *jobs, size_t n,
                        lctx_irjudge_verdict *verdicts, size_t *queued) {
  lctx_peer *p = &j->peer;
  if (p->out_sent > 0) { /* keep only what is still to be written */
    memmove(p->out, p->out + p->out_sent, p->out_length - p->out_sent);
    p->out_length -= p->out_sent;
    p->out_sent = 0;
  }
  while (*queued < n && p->out_length - p->out_sent < WINDOW) {
    size_t i = (*queued)++;
    if (verdicts[i].status == LCTX_IRJUDGE_JUDGED &&
        !queue_job(j, &jobs[i], (uint32_t)i))
      verdicts[i].status = LCTX_IRJUDGE_NOT_JUDGED;
  }
}

/* Clears the verdicts; those of modules nested too deep to be parsed are
 * IR-000 at once. */
static void begin_verdicts(lctx_irjudge *j, const lctx_irjudge_job *jobs,
                           size_t n, lctx_irjudge_verdict *verdicts) {
  j->encoded = NULL; /* a case of another list may be where it was */
  for (size_t i = 0; i < n; i++) {
    lctx_irjudge_verdict *v = &verdicts[i];
    /* Its texts are strings: their first bytes clear them. */
    v->status = LCTX_IRJUDGE_JUDGED;
    v->passed = false;
    v->applicable = 0;
    memset(v->row, 0, sizeof v->row);
    v->reason[0] = '\0';
    if (!lctx_irjudge_depth_ok(jobs[i].mlir, LCTX_IRJUDGE_MAX_DEPTH, v->reason,
                               sizeof v->reason)) {
      v->status = LCTX_IRJUDGE_REFUSED;
      snprintf(v->row, sizeof v->row, "IR-000");
    }
  }
}

void lctx_irjudge_start(lctx_irjudge *j, const lctx_irjudge_job *jobs, size_t n,
                        lctx_irjudge_verdict *verdicts) {
  if (j->started)
    stop(j, NULL, 0); /* what it was handed is not collected: drop it */
  j->started = NULL;
  if (n == 0)
    return;
  begin_verdicts(j, jobs, n, verdicts);
  if (j->peer.pid <= 0 && !start(j))
    return; /* the run starts one, or says why not */
  size_t queued = 0;
  j->peer.out_length = j->peer.out_sent = 0;
  fill_window(j, jobs, n, verdicts, &queued);
  ssize_t w = write(j->peer.to_fd, j->peer.out, j->peer.out_length);
  if (w > 0)
    j->peer.out_sent = (size_t)w;
  j->started = jobs;
  j->started_verdicts = verdicts;
  j->started_n = n;
  j->started_queued = queued;
}

void lctx_irjudge_run(lctx_irjudge *j, const lctx_irjudge_job *jobs, size_t n,
                      lctx_irjudge_verdict *verdicts) {
  bool resumed = j->started == jobs && j->started_verdicts == verdicts &&
                 j->started_n == n && j->peer.pid > 0 && n > 0;
  if (j->started && !resumed && j->peer.pid > 0)
    stop(j, NULL, 0); /* it holds another's jobs */
  j->started = NULL;
  if (!resumed)
    begin_verdicts(j, jobs, n, verdicts);
  size_t next = 0, queued = resumed ? j->started_queued : 0;
  while (next < n) {
    if (j->peer.pid <= 0 && !start(j)) {
      for (; next < n; next++) {
        j->unstarted += verdicts[next].status == LCTX_IRJUDGE_JUDGED;
        verdicts[next].status = LCTX_IRJUDGE_NOT_JUDGED;
      }
      return;
    }
    if (!resumed) {
      queued = next;
      j->peer.out_length = j->peer.out_sent = 0;
    }
    resumed = false;
    for (; next < n; next++) {
      fill_window(j, jobs, n, verdicts, &queued);
      if (verdicts[next].status != LCTX_IRJUDGE_JUDGED)
        continue;
      char why[128] = "it stopped answering";
      size_t hung = next;
      int r = await_verdict(j, next, n, why, sizeof why, &hung);
      if (r != 1 || !take_verdict(j, (uint32_t)next, &verdicts[next])) {
        /* A later job hung (its verdicts before it were never written):
         * only it is marked, those before it go to the fresh judge. A
         * judge can also be lost for reasons that are not the module's
         * (killed or stopped by another process): the module is first
         * judged again, alone, by a fresh judge, and marked only when
         * that judge is lost on it too. */
        if (!j->retrying && retry_alone(j, &jobs[hung], &verdicts[hung])) {
          next += hung == next;
          break;
        }
        lose_judge(j, r, why, &verdicts[hung]);
        next += hung == next;
        break; /* a fresh judge for the rest */
      }
    }
  }
}

size_t lctx_irjudge_kills(const lctx_irjudge *j) {
  return j->kills;
}

size_t lctx_irjudge_retries(const lctx_irjudge *j) {
  return j->retries;
}

size_t lctx_irjudge_unstarted(const lctx_irjudge *j) {
  return j->unstarted;
}

void lctx_irjudge_free(lctx_irjudge *j) {
  if (!j)
    return;
  /* The judge (lctx's own code) ends on EOF at once; a moment for it to do
   * so, rather than a kill, lets a tool that writes at exit (callgrind's
   * counts) finish. */
  lctx_peer_stop(&j->peer, 1.0, NULL);
  lctx_peer_free(&j->peer);
  if (j->shared)
    munmap(j->shared, sizeof *j->shared);
  free(j);
}

/* Skips a string literal starting at s[*i] == '"'. */
static void skip_string(const char *s, size_t *i) {
  for ((*i)++; s[*i] && s[*i] != '"'; (*i)++) {
    if (s[*i] == '\\' && s[*i + 1])
      (*i)++;
  }
}

/* How many of the `n` bytes at `s` open a bracket: the most the depth
 * can reach, strings or not (a loop the compiler vectorizes). */
static size_t count_openers(const char *s, size_t n) {
  size_t count = 0;
  for (size_t i = 0; i < n; i++)
    count += (s[i] == '(') | (s[i] == '[') | (s[i] == '{') | (s[i] == '<');
  return count;
}

bool lctx_irjudge_depth_ok(const char *mlir, size_t max_depth, char *why,
                           size_t cap) {
  /* Each level opens with a byte: a module with no more opening brackets
   * than the limit is within it, without the scan below. */
  size_t n = strlen(mlir);
  if (n <= max_depth || count_openers(mlir, n) <= max_depth)
    return true;
  size_t depth = 0, line = 1, column = 1, line_start = 0;
  for (size_t i = 0; mlir[i]; i++) {
    char c = mlir[i];
    if (c == '"') {
      skip_string(mlir, &i);
      if (!mlir[i])
        break;
    } else if (c == '\n') {
      line++;
      line_start = i + 1;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > max_depth) {
        column = i - line_start + 1;
        snprintf(why, cap,
                 "the module nests brackets deeper than %zu levels at "
                 "%zu:%zu (not parsed)",
                 max_depth, line, column);
        return false;
      }
    } else if ((c == ')' || c == ']' || c == '}' ||
                (c == '>' && (i == 0 || mlir[i - 1] != '-'))) &&
               depth > 0) {
      depth--;
    }
  }
  return true;
}
