/**
 * The frames between the agent and its script spawner (the C program of
 * spawner-c/): requests are encoded here, replies are split and decoded
 * here. A reply that does not parse means the stream can no longer be
 * trusted; the caller then stops the spawner.
 *
 * Protocol (stdin: requests, stdout: replies, each a frame of a 4-byte
 * big-endian length and a body whose fields are separated by NUL; no field
 * before the output bytes holds a NUL):
 *   R id timeoutMs maxBytes cwd argc argv... env...   run a program
 *   K id                                              kill its process group (abort)
 *   S id pid                                          (reply) started
 *   D id code signal flags errno outLen out err       (reply) done; code or signal
 *     empty when not applicable; flags: t timed out, a aborted, x truncated;
 *     errno set when it never started (pipe, chdir or exec failed)
 *
 * Guarantees (run-types.ts): each program runs in its own process group
 * with stdin from /dev/null, no shell (exec of the argument list; a bare
 * name is looked up in the PATH of the program's environment, a file
 * without a #! line runs through /bin/sh); at its deadline or on K the
 * group gets SIGKILL; once the program exits the rest of its group is
 * killed too and its pipes are read for at most 1 s more; output beyond
 * maxBytes per stream is read and dropped. On end of stdin (the agent is
 * gone) every running group is killed and the spawner exits. Spawn and
 * pipe failures are answered per run; the spawner only dies on a broken
 * protocol, which the agent sees as its exit.
 */
import { constants } from 'node:os';

export type Reply =
  | { kind: 'started'; id: number; pid: number }
  | {
      kind: 'done';
      id: number;
      code: number | null;
      signal: NodeJS.Signals | null;
      timedOut: boolean;
      aborted: boolean;
      truncated: boolean;
      errno?: string;
      stdout: Buffer;
      stderr: Buffer;
    };

/** Largest reply accepted: two capped streams and the header. */
export function maxReply(maxOutputBytes: number): number {
  return 2 * maxOutputBytes + 4096;
}

/**
 * `R id timeoutMs maxBytes cwd argc argv... env...` as one frame; `env` is
 * the environment already encoded by envBlock. The strings must hold no
 * NUL (checked by the caller).
 */
export function runRequest(
  id: number,
  timeoutMs: number,
  maxBytes: number,
  cwd: string,
  argv: readonly string[],
  env: Buffer,
): Buffer {
  const head = [
    'R',
    String(id),
    String(Math.max(0, Math.ceil(timeoutMs))),
    String(maxBytes),
    cwd,
    String(argv.length),
    ...argv,
  ].join('\0');
  const n = Buffer.byteLength(head);
  const out = Buffer.allocUnsafe(4 + n + env.length);
  out.writeUInt32BE(n + env.length, 0);
  out.write(head, 4);
  env.copy(out, 4 + n);
  return out;
}

export function killRequest(id: number): Buffer {
  return frame(`K\0${id}`);
}

/**
 * The environment part of a run request, `\0NAME=value` for each
 * variable (empty for none), encoded once so that it can be sent with many
 * runs; or the first key or value that holds a NUL.
 */
export function envBlock(env: NodeJS.ProcessEnv): Buffer | { bad: string } {
  let out = '';
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (k.includes('\0') || k.includes('=') || v.includes('\0')) return { bad: k };
    out += `\0${k}=${v}`;
  }
  return Buffer.from(out);
}

/**
 * Splits the spawner's stdout into replies. Chunks of a partial frame are
 * kept in a list and joined once, when the frame is complete.
 */
export class ReplyReader {
  private chunks: Buffer[] = [];
  private held = 0;

  constructor(private readonly maxBody: number) {}

  /** Every complete reply so far; throws Error when the stream is broken. */
  push(chunk: Buffer): Reply[] {
    this.chunks.push(chunk);
    this.held += chunk.length;
    const replies: Reply[] = [];
    while (this.held >= 4) {
      const first = this.chunks[0];
      const head = first && first.length >= 4 ? first : this.join();
      const length = head.readUInt32BE(0);
      if (length > this.maxBody) throw new Error(`reply of ${length} bytes exceeds ${this.maxBody}`);
      if (this.held < 4 + length) break;
      const buf = this.chunks.length === 1 && first ? first : this.join();
      replies.push(decode(buf.subarray(4, 4 + length)));
      const rest = buf.subarray(4 + length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.held = rest.length;
    }
    return replies;
  }

  private join(): Buffer {
    const all = Buffer.concat(this.chunks, this.held);
    this.chunks = [all];
    return all;
  }
}

function frame(body: string): Buffer {
  const n = Buffer.byteLength(body);
  const out = Buffer.allocUnsafe(4 + n);
  out.writeUInt32BE(n, 0);
  out.write(body, 4);
  return out;
}

/** Fields up to the `count`-th NUL, then the bytes after it. */
function fields(body: Buffer, count: number): { words: string[]; rest: Buffer } {
  const words: string[] = [];
  let pos = 0;
  for (let i = 0; i < count; i++) {
    const nul = body.indexOf(0, pos);
    if (nul < 0) throw new Error('truncated reply');
    words.push(body.toString('latin1', pos, nul));
    pos = nul + 1;
  }
  return { words, rest: body.subarray(pos) };
}

function decode(body: Buffer): Reply {
  if (body[0] === 0x53) {
    const [, id, pid] = body.toString('latin1').split('\0');
    return { kind: 'started', id: Number(id), pid: Number(pid) };
  }
  if (body[0] !== 0x44) throw new Error(`unknown reply type ${body[0]}`);
  const { words, rest } = fields(body, 7);
  // fields() gives 7 words or throws: the default is never used.
  const [, id, code, signal, flags = '', errno, outLength] = words;
  const outLen = Number(outLength);
  if (!(outLen <= rest.length)) throw new Error('reply output length out of range');
  const reply: Reply = {
    kind: 'done',
    id: Number(id),
    code: code === '' ? null : Number(code),
    signal: signal === '' ? null : signalName(Number(signal)),
    timedOut: flags.includes('t'),
    aborted: flags.includes('a'),
    truncated: flags.includes('x'),
    stdout: rest.subarray(0, outLen),
    stderr: rest.subarray(outLen),
  };
  if (errno !== '') reply.errno = errnoName(Number(errno));
  return reply;
}

let signalNames: Map<number, NodeJS.Signals> | undefined;
let errnoNames: Map<number, string> | undefined;

function signalName(n: number): NodeJS.Signals {
  signalNames ??= new Map(Object.entries(constants.signals).map(([k, v]) => [v, k as NodeJS.Signals]));
  return signalNames.get(n) ?? (`SIG${n}` as NodeJS.Signals);
}

function errnoName(n: number): string {
  errnoNames ??= new Map(Object.entries(constants.errno).map(([k, v]) => [v, k]));
  return errnoNames.get(n) ?? `errno ${n}`;
}
