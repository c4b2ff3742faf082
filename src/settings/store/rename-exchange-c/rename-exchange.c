/*
 * renameat2(2) for the settings writer (src/settings/store/checked-replace.ts). Node's fs has rename
 * only, which replaces whatever is at the target by then: a hand save that lands between the
 * writer's last look at the file and its rename is gone without a trace. With RENAME_EXCHANGE the
 * writer swaps its new copy and the target in one step and then looks at what it took out; when
 * that is not the file it read, it swaps back and reads again. A Node-API addon of one function:
 *
 *   rename2(from, to, flags) -> 0 on success, else a positive errno
 *
 * flags are renameat2's: 1 RENAME_NOREPLACE, 2 RENAME_EXCHANGE. A filesystem without them answers
 * EINVAL (the caller then renames plainly, as before). Built by `npm run build`
 * (src/tools/build-addons.mjs) against the Node-API headers of the runtime package.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rename2(const char *from, const char *to, unsigned int flags) {
#ifdef SYS_renameat2
  return syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags) == 0 ? 0 : errno;
#else
  (void)from;
  (void)to;
  (void)flags;
  return ENOSYS;
#endif
}

static napi_value js_rename2(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_value out;
  char from[PATH_MAX];
  char to[PATH_MAX];
  size_t from_len = 0;
  size_t to_len = 0;
  uint32_t flags = 0;
  int result = EINVAL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 3 &&
      napi_get_value_string_utf8(env, argv[0], from, sizeof from, &from_len) == napi_ok &&
      napi_get_value_string_utf8(env, argv[1], to, sizeof to, &to_len) == napi_ok &&
      napi_get_value_uint32(env, argv[2], &flags) == napi_ok && from_len < sizeof from - 1 &&
      to_len < sizeof to - 1 && (flags & ~3u) == 0) {
    result = rename2(from, to, flags);
  }
  napi_create_int32(env, result, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "rename2", NAPI_AUTO_LENGTH, js_rename2, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "rename2", fn) != napi_ok) return NULL;
  return exports;
}
