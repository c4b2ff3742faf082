/*
 * The script spawner: the one way the agent starts programs (scripts, host
 * commands, ping). src/checks/scripts/spawner-frames.ts documents the
 * protocol and the guarantees; `npm run build` compiles it
 * (src/tools/build-spawner.mjs; the build fails without a C compiler).
 * It starts each script with posix_spawn, which glibc implements with
 * clone(CLONE_VM | CLONE_VFORK): no copy of the spawner's page tables, and
 * the spawner learns the exec's errno from posix_spawn's return value.
 *
 *   main.c     the event loop, the frames in and out, the requests
 *   run.c      one run: start it, read its pipes, reap it, answer it
 *   program.c  what a run execs: the PATH search, the /bin/sh fallback
 */
#ifndef SCRIPT_SPAWNER_H
#define SCRIPT_SPAWNER_H

#include <spawn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A growable byte buffer. */
struct buf {
  char *p;
  size_t len, cap;
};

struct run;

/* One of a run's two pipes (the script's stdout or stderr); fd -1 once closed. */
struct stream {
  struct run *run;
  int fd;
  struct buf data;
};

struct run {
  struct run *next, *prev; /* in the list of runs not answered yet, or of answered runs to free */
  unsigned long id;
  pid_t pid;               /* also the id of its process group */
  size_t max;              /* bytes kept per stream */
  int64_t deadline;        /* ms, CLOCK_MONOTONIC */
  int reaped, status;      /* status as waitpid gives it, once reaped */
  int64_t reaped_at;
  int open;                /* pipes not closed yet */
  int finished;            /* answered */
  char flags[4];           /* t timed out, a aborted, x truncated; in the order they happened */
  struct stream out, err;
};

/* main.c */
void die(const char *what);
void buf_add(struct buf *b, const void *src, size_t n);
int64_t now_ms(void);
void watch_fd(int fd, void *tag);
void unwatch_fd(int fd);
void reply_start(void);
void reply_field(const char *text);
void reply_bytes(const void *bytes, size_t n);
void reply_end(void);

/* program.c */
int find_program(const char *file, const char *cwd, char *const envp[], char *out, size_t size);
int spawn_program(pid_t *pid, const char *program, const posix_spawn_file_actions_t *actions, char *const argv[], char *const envp[]);

/* run.c */
extern posix_spawnattr_t attr; /* what every spawn shares: own group, empty mask, default signals */
extern struct run *runs;
extern int lingering;
extern int has_deadline;
extern int64_t next_deadline;
void runs_init(void);
void start_run(unsigned long id, long timeout_ms, size_t max, const char *cwd, char *const argv[], char *const envp[]);
void read_stream(struct stream *s);
void reap(void);
void check_deadlines(int64_t now);
int64_t finish_lingering(int64_t now, int64_t wait);
void abort_run(unsigned long id);
void kill_all(void);
void free_finished(void);

#endif
