#!/usr/bin/env python3
"""A stand-in for systemd's notification socket, for the agent's sd_notify tests.

Usage: notify-socket.py PATH
Binds a Unix datagram socket at PATH with SO_PASSCRED, prints "ready" once bound, then one JSON
line per datagram received: {"pid": sender's pid as the kernel vouches for it, "state": text}.
Node cannot receive on a Unix datagram socket, Python's standard library can. Exits when its
standard input closes.
"""
import json
import os
import select
import socket
import struct
import sys

path = sys.argv[1]
sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
sock.bind(path)
print("ready", flush=True)
while True:
    readable, _, _ = select.select([sock, sys.stdin], [], [])
    if sys.stdin in readable and not os.read(sys.stdin.fileno(), 4096):
        break
    if sock in readable:
        data, ancillary, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(12))
        pid = None
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid, _, _ = struct.unpack("iII", payload[:12])
        print(json.dumps({"pid": pid, "state": data.decode()}), flush=True)
