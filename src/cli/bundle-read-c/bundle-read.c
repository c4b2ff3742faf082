/*
 * How the launcher (src/launcher.cjs) reads the bundle and its code cache, about 1 MB each, at
 * every start. Node-API addon of two functions:
 *
 *   readLatin1(path) -> string, or undefined
 *     The file's bytes as a one-byte string that V8 keeps outside its heap (an external string):
 *     read once into memory of its own, where readFileSync(path, 'latin1') reads into a buffer
 *     and then copies the bytes into the heap (0.5-1 ms of a start, issue 41). The memory lives
 *     as long as the string, which is the bundle's source for the life of the process.
 *   mapBuffer(path) -> Buffer, or undefined
 *     The file mapped read-only (a private mapping, its pages read in at once) as a Buffer over
 *     that mapping, unmapped when the Buffer is collected: the code cache, which V8 reads once
 *     while it compiles the bundle, without a copy into freshly zeroed memory. Only the cache is
 *     mapped, never the source: a file overwritten in place would take a mapped page from under
 *     V8 (SIGBUS) whenever it next read it.
 *
 * undefined for anything that is not a regular file of at most 64 MiB that reads whole; the
 * launcher then reads it with node's fs, which reports the error.
 *
 * Node-API 10 (Node 22.14 and later) for node_api_create_external_string_latin1. Built by
 * `npm run build` (src/tools/build-addons.mjs); optional: without it the launcher uses fs.
 */
#define NAPI_VERSION 10
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LIMIT (64L * 1024 * 1024)

typedef struct {
  void *addr;
  size_t len;
} mapping;

/* The open file of argv[0] and its size, or -1 (not a path, not a regular file, too large, empty). */
static int open_arg(napi_env env, napi_callback_info info, size_t *size) {
  size_t argc = 1, n = 0;
  napi_value argv[1];
  char path[4096];
  struct stat st;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return -1;
  if (napi_get_value_string_utf8(env, argv[0], path, sizeof path, &n) != napi_ok || n >= sizeof path - 1) return -1;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return -1;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > LIMIT) {
    close(fd);
    return -1;
  }
  *size = (size_t)st.st_size;
  return fd;
}

static napi_value undefined(napi_env env) {
  napi_value out;
  napi_get_undefined(env, &out);
  return out;
}

static void free_text(node_api_basic_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

static napi_value js_read_latin1(napi_env env, napi_callback_info info) {
  size_t size = 0, got = 0;
  int fd = open_arg(env, info, &size);
  if (fd < 0) return undefined(env);
  char *text = malloc(size);
  while (text != NULL && got < size) {
    ssize_t r = read(fd, text + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  if (text == NULL || got != size) {
    free(text);
    return undefined(env);
  }
  napi_value out;
  /* When the runtime copies the text instead (copied = true), it has already called free_text. */
  bool copied = false;
  if (node_api_create_external_string_latin1(env, text, size, free_text, NULL, &out, &copied) != napi_ok) {
    free(text);
    return undefined(env);
  }
  return out;
}

static void unmap(napi_env env, void *data, void *hint) {
  (void)env;
  (void)data;
  mapping *m = hint;
  munmap(m->addr, m->len);
  free(m);
}

static napi_value js_map_buffer(napi_env env, napi_callback_info info) {
  size_t size = 0;
  int fd = open_arg(env, info, &size);
  if (fd < 0) return undefined(env);
  void *addr = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  close(fd);
  if (addr == MAP_FAILED) return undefined(env);
  mapping *m = malloc(sizeof *m);
  napi_value out;
  if (m == NULL) {
    munmap(addr, size);
    return undefined(env);
  }
  m->addr = addr;
  m->len = size;
  if (napi_create_external_buffer(env, size, addr, unmap, m, &out) != napi_ok) {
    unmap(env, NULL, m);
    return undefined(env);
  }
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "readLatin1", NAPI_AUTO_LENGTH, js_read_latin1, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "readLatin1", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "mapBuffer", NAPI_AUTO_LENGTH, js_map_buffer, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "mapBuffer", fn) != napi_ok) return NULL;
  return exports;
}
