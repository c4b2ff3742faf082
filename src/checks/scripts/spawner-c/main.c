/*
 * The C script spawner's event loop (see spawner.h; the protocol is
 * documented in spawner-frames.ts). Each round: free what was answered,
 * reap, enforce deadlines, answer runs whose pipes outlived their grace,
 * send the replies in one write, then wait (epoll) for the agent, a pipe
 * or SIGCHLD (a signalfd: no race between a child's exit and the wait).
 * Work per round follows what happened, not the number of running scripts
 * (only a passed deadline or a lingering run looks at all of them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "spawner.h"

/* Larger request frames mean a broken stream (the agent's environment is far smaller). */
#define MAX_FRAME (64u << 20)

static int epfd;
static struct buf in, out;
static size_t reply_at; /* offset in `out` of the reply being written */
static char stdin_tag, signal_tag; /* epoll tags of the two fds that are not pipes of a run */

void die(const char *what) {
  fprintf(stderr, "script spawner: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
  kill_all();
  exit(2);
}

/* Room for n more bytes. */
static void buf_reserve(struct buf *b, size_t n) {
  if (b->len + n <= b->cap) return;
  size_t cap = b->cap ? b->cap : 4096;
  while (cap < b->len + n) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) die("out of memory");
  b->p = p;
  b->cap = cap;
}

void buf_add(struct buf *b, const void *src, size_t n) {
  if (n == 0) return;
  buf_reserve(b, n);
  memcpy(b->p + b->len, src, n);
  b->len += n;
}

int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void watch_fd(int fd, void *tag) {
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = tag};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) die("epoll_ctl");
}

void unwatch_fd(int fd) {
  if (epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL) < 0) die("epoll_ctl");
}

/* A reply: a 4-byte big-endian length, then fields joined by NUL. */
void reply_start(void) {
  reply_at = out.len;
  buf_add(&out, "\0\0\0\0", 4);
}

/* A field and the NUL after it. */
void reply_field(const char *text) {
  buf_add(&out, text, strlen(text) + 1);
}

void reply_bytes(const void *bytes, size_t n) {
  buf_add(&out, bytes, n);
}

void reply_end(void) {
  uint32_t n = (uint32_t)(out.len - reply_at - 4);
  unsigned char *p = (unsigned char *)out.p + reply_at;
  p[0] = n >> 24, p[1] = n >> 16, p[2] = n >> 8, p[3] = n;
}

/* The replies of the round, in one write when the pipe takes them. */
static void flush(void) {
  size_t at = 0;
  while (at < out.len) {
    ssize_t n = write(1, out.p + at, out.len - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      kill_all();
      _exit(3);
    }
    at += (size_t)n;
  }
  out.len = 0;
}

static unsigned long number(const char *text) {
  char *end;
  errno = 0;
  unsigned long n = strtoul(text, &end, 10);
  if (*text == '\0' || *end != '\0' || errno) die("a number field is not a number");
  return n;
}

/* One request; `body` holds `count` NUL-terminated fields. */
static void handle(char *body, size_t count) {
  char **f = malloc((count + 2) * sizeof *f);
  if (!f) die("out of memory");
  for (size_t i = 0; i < count; i++) {
    f[i] = body;
    body += strlen(body) + 1;
  }
  errno = 0;
  if (strcmp(f[0], "R") == 0 && count >= 6) {
    /* R id timeoutMs maxBytes cwd argc argv... env... */
    size_t argc = number(f[5]);
    if (argc < 1 || argc > count - 6) die("a run request with a wrong argument count");
    /* argv gets its NULL where env starts: env moves up one place. */
    char **argv = f + 6, **envp = f + 7 + argc;
    memmove(envp, argv + argc, (count - 6 - argc) * sizeof *f);
    envp[count - 6 - argc] = NULL;
    argv[argc] = NULL;
    start_run(number(f[1]), (long)number(f[2]), number(f[3]), f[4], argv, envp);
  } else if (strcmp(f[0], "K") == 0 && count == 2) {
    abort_run(number(f[1]));
  } else {
    die("unknown request type");
  }
  free(f);
}

/* Reads what the agent sent and handles every complete frame; end of input: kill everything, exit. */
static void read_requests(void) {
  buf_reserve(&in, 65536);
  ssize_t got = read(0, in.p + in.len, in.cap - in.len);
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (got <= 0) {
    kill_all();
    exit(got == 0 ? 0 : 2);
  }
  in.len += (size_t)got;
  size_t at = 0;
  while (in.len - at >= 4) {
    const unsigned char *p = (const unsigned char *)in.p + at;
    uint32_t n = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    if (n > MAX_FRAME) die("request frame too large");
    if (in.len - at - 4 < n) break;
    /* The fields, NUL-terminated: a copy with one NUL more than the frame. */
    char *body = malloc((size_t)n + 1);
    if (!body) die("out of memory");
    memcpy(body, p + 4, n);
    body[n] = '\0';
    size_t count = 1;
    for (uint32_t i = 0; i < n; i++) count += body[i] == '\0';
    handle(body, count);
    free(body);
    at += 4 + (size_t)n;
  }
  memmove(in.p, in.p + at, in.len - at);
  in.len -= at;
}

int main(void) {
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0) die("sigprocmask");
  int sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd < 0) die("signalfd");
  epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) die("epoll_create1");
  watch_fd(0, &stdin_tag);
  watch_fd(sigfd, &signal_tag);
  runs_init();
  struct epoll_event events[64];
  for (;;) {
    free_finished();
    reap();
    int64_t now = now_ms();
    if (has_deadline && now >= next_deadline) check_deadlines(now);
    int64_t wait = has_deadline ? next_deadline - now : -1;
    wait = finish_lingering(now, wait);
    flush();
    int n = epoll_wait(epfd, events, sizeof events / sizeof *events, wait > 0x7fffffff ? 0x7fffffff : (int)wait);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("epoll_wait");
    for (int i = 0; i < n; i++) {
      void *tag = events[i].data.ptr;
      if (tag == &signal_tag) {
        struct signalfd_siginfo info;
        while (read(sigfd, &info, sizeof info) > 0) continue; /* the reaping is done at the top of the round */
      } else if (tag == &stdin_tag) {
        read_requests();
      } else {
        read_stream(tag);
      }
    }
  }
}
