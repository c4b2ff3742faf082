/*
 * What a run execs, as execvp would (see spawner.h): the program found in
 * the PATH of the script's own environment, and a file the kernel cannot
 * exec run through /bin/sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawner.h"

/* What execvp searches when the environment has no PATH. */
#define DEFAULT_PATH "/bin:/usr/bin"

/* The value of NAME in an environment, or NULL. */
static const char *env_get(char *const envp[], const char *name) {
  size_t n = strlen(name);
  for (; *envp; envp++)
    if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=') return *envp + n + 1;
  return NULL;
}

/*
 * The program to exec, as execvp would find it in the script's own
 * environment (not the spawner's, which is what posix_spawnp would search):
 * a name with a slash as it is; else the first executable regular file in
 * its PATH (an empty entry is the working folder; a relative entry is taken
 * from the script's working folder, where execvp would run). Returns 0 and
 * fills `out`, or the errno execvp would give: EACCES when a candidate was
 * there but not executable, else ENOENT.
 */
int find_program(const char *file, const char *cwd, char *const envp[], char *out, size_t size) {
  if (*file == '\0') return ENOENT;
  if (strchr(file, '/')) {
    if (strlen(file) >= size) return ENAMETOOLONG;
    strcpy(out, file);
    return 0;
  }
  const char *path = env_get(envp, "PATH");
  if (!path) path = DEFAULT_PATH;
  int denied = 0;
  for (const char *p = path;; p++) {
    const char *end = strchrnul(p, ':');
    int dirlen = (int)(end - p);
    const char *dir = dirlen > 0 ? p : ".";
    if (dirlen == 0) dirlen = 1;
    int n = *dir != '/' && *cwd ? snprintf(out, size, "%s/%.*s/%s", cwd, dirlen, dir, file) : snprintf(out, size, "%.*s/%s", dirlen, dir, file);
    struct stat st;
    if (n > 0 && (size_t)n < size) {
      if (stat(out, &st) == 0) {
        if (S_ISREG(st.st_mode) && access(out, X_OK) == 0) return 0;
        denied = 1;
      } else if (errno == EACCES) {
        denied = 1;
      }
    }
    if (*end == '\0') break;
    p = end;
  }
  return denied ? EACCES : ENOENT;
}

/* posix_spawn of the program; a file the kernel cannot exec (ENOEXEC) runs through /bin/sh, as execvp does. */
int spawn_program(pid_t *pid, const char *program, const posix_spawn_file_actions_t *actions, char *const argv[], char *const envp[]) {
  int err = posix_spawn(pid, program, actions, &attr, argv, envp);
  if (err != ENOEXEC) return err;
  size_t argc = 0;
  while (argv[argc]) argc++;
  char **shell = malloc((argc + 2) * sizeof *shell);
  if (!shell) return ENOMEM;
  shell[0] = "/bin/sh";
  shell[1] = (char *)program;
  memcpy(shell + 2, argv + 1, argc * sizeof *shell); /* argv[1..], and its NULL */
  err = posix_spawn(pid, "/bin/sh", actions, &attr, shell, envp);
  free(shell);
  return err;
}
