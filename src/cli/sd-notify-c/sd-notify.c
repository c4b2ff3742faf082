/*
 * The agent's own sd_notify(3): one datagram to systemd's notification socket, sent from the
 * agent's process, so the unit's default NotifyAccess=main accepts it (a `systemd-notify` child
 * sends from another PID, which systemd refuses unless NotifyAccess=all). Node cannot send on a
 * Unix datagram socket, hence this Node-API addon of one function:
 *
 *   send(socketPath, state) -> 0 on success, else a positive errno
 *
 * socketPath is $NOTIFY_SOCKET as systemd sets it: a file path, or an abstract name written with a
 * leading '@'. The socket is opened, used and closed on each call (a few calls a minute at most:
 * READY, RELOADING, STOPPING and the watchdog), non-blocking, so a full queue is an error, never a
 * stall of the event loop. Built by `npm run build` (src/tools/build-sd-notify.mjs) against the
 * Node-API headers of the runtime package; Node-API is ABI-stable across Node versions.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define STATE_MAX 4096

static int send_state(const char *path, size_t path_len, const char *state, size_t state_len) {
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (path_len == 0 || path_len >= sizeof addr.sun_path) return EINVAL;
  if (path[0] != '/' && path[0] != '@') return EAFNOSUPPORT; /* vsock and other forms: not ours */
  memcpy(addr.sun_path, path, path_len);
  if (path[0] == '@') addr.sun_path[0] = '\0'; /* abstract namespace */
  socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + path_len);
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno;
  ssize_t sent = sendto(fd, state, state_len, MSG_NOSIGNAL, (struct sockaddr *)&addr, len);
  int result = sent < 0 ? errno : ((size_t)sent == state_len ? 0 : EMSGSIZE);
  close(fd);
  return result;
}

static napi_value js_send(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  napi_value out;
  char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
  char state[STATE_MAX];
  size_t path_len = 0;
  size_t state_len = 0;
  int result = EINVAL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 2 &&
      napi_get_value_string_utf8(env, argv[0], path, sizeof path, &path_len) == napi_ok &&
      napi_get_value_string_utf8(env, argv[1], state, sizeof state, &state_len) == napi_ok &&
      path_len < sizeof path - 1 && state_len < sizeof state - 1) {
    result = send_state(path, path_len, state, state_len);
  }
  napi_create_int32(env, result, &out);
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "send", NAPI_AUTO_LENGTH, js_send, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "send", fn) != napi_ok) return NULL;
  return exports;
}
