/*
 * The agent marks itself non-dumpable: prctl(PR_SET_DUMPABLE, 0). The kernel then makes the
 * agent's /proc/<pid> files (environ, mem, maps, fd, …) root's, and lets no process of the same
 * user read them or attach to the agent (ptrace): a script or check the agent runs, as the
 * agent's user, cannot read the environment the agent was started with (where `${env:}`
 * secrets come from; Node's deletion from process.env does not erase the original block that
 * /proc/<pid>/environ shows). Root (CAP_SYS_PTRACE) still can. It also means no core dump.
 * The children the agent starts are dumpable again after their exec, as the kernel does.
 * Node-API addon of one function:
 *
 *   nodump() -> 0 on success, else a positive errno
 *
 * Built by `npm run build` (src/tools/build-addons.mjs); Node-API is ABI-stable.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <sys/prctl.h>

static napi_value js_nodump(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  int result = prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : errno;
  napi_create_int32(env, result, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "nodump", NAPI_AUTO_LENGTH, js_nodump, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "nodump", fn) != napi_ok) return NULL;
  return exports;
}
