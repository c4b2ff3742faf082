/*
 * One run of a script (see spawner.h): started with posix_spawn in its own
 * process group, stdin from /dev/null, stdout and stderr to two pipes;
 * its output read and capped; reaped; answered with a D reply.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawner.h"

/* After the script exits, how long its pipes are read before it is answered without them. */
#define PIPE_GRACE_MS 1000

struct run *runs;          /* not answered yet */
static struct run *done;   /* answered, freed at the top of the next round */
int lingering;             /* reaped, pipes still held open by what the script left */
int has_deadline;
int64_t next_deadline;     /* earliest deadline of a script still running */

static int null_fd;
posix_spawnattr_t attr;

/* Set up once: /dev/null for the scripts' stdin and the attributes every spawn shares. */
void runs_init(void) {
  null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) die("/dev/null");
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  /* The spawner ignores SIGPIPE and blocks SIGCHLD (read through a signalfd): not so in a script. */
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGCHLD);
  if (posix_spawnattr_init(&attr) != 0
      || posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) != 0
      || posix_spawnattr_setpgroup(&attr, 0) != 0
      || posix_spawnattr_setsigmask(&attr, &none) != 0
      || posix_spawnattr_setsigdefault(&attr, &defaults) != 0)
    die("posix_spawnattr");
}

static void kill_group(struct run *r) {
  kill(-r->pid, SIGKILL);
}

void kill_all(void) {
  for (struct run *r = runs; r; r = r->next) kill_group(r);
}

static void add_flag(struct run *r, char flag) {
  if (!strchr(r->flags, flag)) r->flags[strlen(r->flags)] = flag;
}

/* The D reply of a run that never started: only its errno. */
static void done_early(unsigned long id, int err) {
  char idtext[24], errtext[16];
  snprintf(idtext, sizeof idtext, "%lu", id);
  snprintf(errtext, sizeof errtext, "%d", err);
  reply_start();
  const char *fields[] = {"D", idtext, "", "", "", errtext, "0"};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) reply_field(fields[i]);
  reply_end();
}

void start_run(unsigned long id, long timeout_ms, size_t max, const char *cwd, char *const argv[], char *const envp[]) {
  char program[PATH_MAX];
  int err = find_program(argv[0], cwd, envp, program, sizeof program);
  if (err) return done_early(id, err);
  int out[2], errp[2];
  if (pipe2(out, O_CLOEXEC) < 0) return done_early(id, errno);
  if (pipe2(errp, O_CLOEXEC) < 0) {
    err = errno;
    close(out[0]);
    close(out[1]);
    return done_early(id, err);
  }
  /* In the child, before the exec: /dev/null in, the pipes out (dup2 clears close-on-exec), the working folder. */
  posix_spawn_file_actions_t actions;
  pid_t pid = 0;
  err = posix_spawn_file_actions_init(&actions);
  if (!err) err = posix_spawn_file_actions_adddup2(&actions, null_fd, 0);
  if (!err) err = posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  if (!err) err = posix_spawn_file_actions_adddup2(&actions, errp[1], 2);
  if (!err && *cwd) err = posix_spawn_file_actions_addchdir_np(&actions, cwd);
  /* Returns once the child has exec'd, or with the errno of what failed (glibc then reaps the child). */
  if (!err) err = spawn_program(&pid, program, &actions, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(errp[1]);
  if (err) {
    close(out[0]);
    close(errp[0]);
    return done_early(id, err);
  }
  struct run *r = calloc(1, sizeof *r);
  if (!r) die("out of memory");
  r->id = id;
  r->pid = pid;
  r->max = max;
  r->deadline = now_ms() + timeout_ms;
  r->open = 2;
  r->out = (struct stream){.run = r, .fd = out[0]};
  r->err = (struct stream){.run = r, .fd = errp[0]};
  watch_fd(out[0], &r->out);
  watch_fd(errp[0], &r->err);
  r->next = runs;
  if (runs) runs->prev = r;
  runs = r;
  if (!has_deadline || r->deadline < next_deadline) next_deadline = r->deadline;
  has_deadline = 1;
  char idtext[24], pidtext[24];
  snprintf(idtext, sizeof idtext, "%lu", id);
  snprintf(pidtext, sizeof pidtext, "%d", (int)pid);
  reply_start();
  reply_field("S");
  reply_field(idtext);
  reply_bytes(pidtext, strlen(pidtext));
  reply_end();
}

static void finish(struct run *r);

static void close_stream(struct stream *s) {
  if (s->fd < 0) return;
  /*
   * Out of the epoll set before the close: a close takes it out only when
   * it drops the last reference to the pipe, and a child that posix_spawn
   * just started may still hold a copy (the spawner resumes when the exec
   * releases its memory, a moment before the exec closes the copies).
   * Its events would then name a run already freed.
   */
  unwatch_fd(s->fd);
  close(s->fd);
  s->fd = -1;
  struct run *r = s->run;
  if (--r->open == 0 && r->reaped && !r->finished) {
    lingering--;
    finish(r);
  }
}

/* Answers the run (D reply) and moves it to the list freed next round. */
static void finish(struct run *r) {
  if (r->finished) return;
  if (r->reaped && r->open > 0) lingering--;
  r->finished = 1;
  close_stream(&r->out);
  close_stream(&r->err);
  char idtext[24], code[16] = "", sig[16] = "", outlen[24];
  snprintf(idtext, sizeof idtext, "%lu", r->id);
  if (WIFEXITED(r->status)) snprintf(code, sizeof code, "%d", WEXITSTATUS(r->status));
  if (WIFSIGNALED(r->status)) snprintf(sig, sizeof sig, "%d", WTERMSIG(r->status));
  snprintf(outlen, sizeof outlen, "%zu", r->out.data.len);
  reply_start();
  const char *fields[] = {"D", idtext, code, sig, r->flags, "", outlen};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) reply_field(fields[i]);
  reply_bytes(r->out.data.p, r->out.data.len);
  reply_bytes(r->err.data.p, r->err.data.len);
  reply_end();
  if (r->prev) r->prev->next = r->next;
  else runs = r->next;
  if (r->next) r->next->prev = r->prev;
  r->next = done;
  done = r;
}

void free_finished(void) {
  while (done) {
    struct run *r = done;
    done = r->next;
    free(r->out.data.p);
    free(r->err.data.p);
    free(r);
  }
}

/* One read of a pipe that is readable; what passes the cap is dropped and flagged. */
void read_stream(struct stream *s) {
  if (s->fd < 0) return; /* closed earlier in this round */
  static char chunk[65536];
  ssize_t n = read(s->fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) return close_stream(s);
  struct run *r = s->run;
  size_t room = r->max > s->data.len ? r->max - s->data.len : 0;
  if ((size_t)n > room) add_flag(r, 'x');
  buf_add(&s->data, chunk, (size_t)n < room ? (size_t)n : room);
}

/* Reaps every exited script: what it left in its group is killed, which also closes the pipes. */
void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    struct run *r = runs;
    while (r && (r->pid != pid || r->reaped)) r = r->next;
    if (!r) continue;
    r->reaped = 1;
    r->status = status;
    kill_group(r);
    if (r->open == 0) {
      finish(r);
    } else {
      r->reaped_at = now_ms();
      lingering++;
    }
  }
}

/* Kills the groups past their deadline and finds the next deadline. */
void check_deadlines(int64_t now) {
  has_deadline = 0;
  for (struct run *r = runs; r; r = r->next) {
    if (r->reaped || strchr(r->flags, 't')) continue;
    if (now >= r->deadline) {
      add_flag(r, 't');
      kill_group(r);
      continue;
    }
    if (!has_deadline || r->deadline < next_deadline) next_deadline = r->deadline;
    has_deadline = 1;
  }
}

/* Answers the runs whose pipes outlived their grace; returns the wait (ms, -1 none) shortened to the next grace end. */
int64_t finish_lingering(int64_t now, int64_t wait) {
  if (lingering == 0) return wait;
  for (struct run *r = runs, *next; r; r = next) {
    next = r->next;
    if (!r->reaped) continue;
    int64_t end = r->reaped_at + PIPE_GRACE_MS;
    if (now >= end) finish(r);
    else if (wait < 0 || end - now < wait) wait = end - now;
  }
  return wait;
}

/* K: the group of a script that has not exited yet is killed, its run flagged aborted. */
void abort_run(unsigned long id) {
  for (struct run *r = runs; r; r = r->next) {
    if (r->id != id || r->reaped) continue;
    add_flag(r, 'a');
    kill_group(r);
  }
}
