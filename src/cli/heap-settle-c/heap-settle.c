/*
 * glibc's malloc, tuned for a process that runs for weeks (src/cli/heap-settle.ts says why).
 * Node-API addon of two functions:
 *
 *   fixMmapThreshold(bytes) -> 1 on success, else 0
 *     mallopt(M_MMAP_THRESHOLD, bytes): blocks of `bytes` or more get their own mapping, which
 *     free() returns to the kernel. It also ends glibc's sliding threshold, which otherwise
 *     rises to the largest block freed so far (the bundle and its code cache, about 1 MB each,
 *     read once at start): every later block below that size then comes from the main heap,
 *     whose freed middle stays resident.
 *   trim() -> 1 when memory was given back, else 0
 *     malloc_trim(0): the free pages of every arena go back to the kernel.
 *
 * Built by `npm run build` (src/tools/build-addons.mjs); Node-API is ABI-stable.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <malloc.h>

static napi_value js_fix_mmap_threshold(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t bytes = 0;
  napi_value out;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &bytes) != napi_ok || bytes <= 0) {
    napi_create_int32(env, 0, &out);
    return out;
  }
  napi_create_int32(env, mallopt(M_MMAP_THRESHOLD, bytes), &out);
  return out;
}

static napi_value js_trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  napi_create_int32(env, malloc_trim(0), &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "fixMmapThreshold", NAPI_AUTO_LENGTH, js_fix_mmap_threshold, NULL, &fn) != napi_ok)
    return NULL;
  if (napi_set_named_property(env, exports, "fixMmapThreshold", fn) != napi_ok) return NULL;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, js_trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}
