/**
 * The agent under a service manager, as systemd runs it: readiness, reload, stop and watchdog
 * keep-alives sent on $NOTIFY_SOCKET by the agent's own process (the kernel's credentials of each
 * datagram name its PID, which is what NotifyAccess=main checks), console lines with syslog
 * priorities when stdout is the journal's stream, and the generated web password kept in the
 * state folder instead of written to the journal. The socket's receiving end is a small Python
 * program (test/helpers/notify-socket.py): node cannot receive Unix datagrams. The test with the
 * real systemd is package-systemd.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, fstatSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { MAIN, REPO, startAgent } from '../helpers/agent-process.js';
import { waitUntil } from '../helpers/wait-until.js';

interface Notification {
  pid: number | null;
  state: string;
}

/** The notification socket's stand-in at `path`: the datagrams so far, and a wait for one. */
async function notifySocket(path: string): Promise<{ received: Notification[]; close: () => void }> {
  const child = spawn('python3', [join(REPO, 'test/helpers/notify-socket.py'), path], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const received: Notification[] = [];
  const lines = createInterface({ input: child.stdout });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    lines.on('line', (line) => {
      if (line === 'ready') resolve();
      else received.push(JSON.parse(line) as Notification);
    });
  });
  return { received, close: () => child.stdin.end() };
}

const WEB_INI = `[/modules]
WEBServer = enabled
CheckHelpers = enabled
[/settings/WEB/server]
port = 0s
bind to = 127.0.0.1
`;

void test('READY, RELOADING, WATCHDOG and STOPPING come from the agent process itself', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-notify-'));
  const socketPath = join(dir, 'notify');
  const sock = await notifySocket(socketPath);
  try {
    const agent = await startAgent({
      ini: '[/modules]\nCheckHelpers = enabled\n',
      env: { NOTIFY_SOCKET: socketPath, WATCHDOG_USEC: '200000' },
    });
    const pid = agent.proc.pid;
    const has = (re: RegExp): Notification | undefined => sock.received.find((n) => re.test(n.state));
    await waitUntil(
      () => has(/^READY=1/m) !== undefined && has(/^WATCHDOG=1$/) !== undefined,
      10_000,
      'READY=1 and a WATCHDOG=1',
    );
    assert.equal(has(/^READY=1/m)?.pid, pid, 'READY=1 sent by the agent process');
    assert.match(has(/^READY=1/m)?.state ?? '', /^STATUS=running: 1 module\(s\) loaded; settings OK$/m);
    assert.equal(has(/^WATCHDOG=1$/)?.pid, pid, 'WATCHDOG=1 sent by the agent process');
    agent.proc.kill('SIGHUP');
    await waitUntil(
      () => has(/^RELOADING=1$/) !== undefined && sock.received.filter((n) => /^READY=1/m.test(n.state)).length >= 2,
      10_000,
      'RELOADING=1 then READY=1',
    );
    assert.equal(has(/^RELOADING=1$/)?.pid, pid);
    assert.equal(await agent.stop(), 0);
    assert.equal(has(/^STOPPING=1$/)?.pid, pid, 'STOPPING=1 sent by the agent process');
  } finally {
    sock.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('console lines carry syslog priorities on the journal stream, and the generated password stays in a 0600 file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-journal-'));
  const settings = join(dir, 'agent.ini');
  writeFileSync(settings, WEB_INI);
  const outFile = join(dir, 'journal.txt');
  const fd = openSync(outFile, 'w');
  const st = fstatSync(fd, { bigint: true });
  const child = spawn(process.execPath, [MAIN, 'run', '--settings', settings], {
    stdio: ['ignore', fd, fd],
    env: { ...process.env, JOURNAL_STREAM: `${st.dev}:${st.ino}`, AGENT_LOG_LEVEL: 'info' },
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    const journal = (): string => readFileSync(outFile, 'utf8');
    await waitUntil(() => /agent ready/.test(journal()), 20_000, 'agent ready in the journal file');
    const lines = journal().trimEnd().split('\n');
    for (const line of lines) assert.match(line, /^<[2-7]>[\w:-]+: /, `a journal line with a priority: ${line}`);
    assert.ok(
      lines.some((l) => l.startsWith('<6>agent:run: agent ready')),
      'agent ready at priority 6 (info)',
    );
    const passwordFile = join(dir, 'state', 'web-password');
    assert.ok(
      lines.some((l) => l.includes(`the password of web user root is in ${passwordFile}`)),
      'the journal says where the password is',
    );
    const password = readFileSync(passwordFile, 'utf8').trim();
    assert.match(password, /^[\w-]{24}$/);
    assert.equal(statSync(passwordFile).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'state')).mode & 0o777, 0o700);
    assert.ok(!journal().includes(password), 'the password itself never reaches the journal');
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

void test('the generated password survives a restart, and an unwritable state folder is named with the setting that moves it', async () => {
  const first = await startAgent({ ini: WEB_INI });
  let stored: string;
  try {
    const printed = (await first.waitForLog(/web password for user root: (\S+)/))[1];
    stored = readFileSync(join(first.dir, 'state', 'web-password'), 'utf8').trim();
    assert.equal(printed, stored);
  } finally {
    await first.stop({ keepDir: true });
  }
  const again = await startAgent({ ini: WEB_INI, files: { 'state/web-password': `${stored}\n` } });
  try {
    assert.equal(
      (await again.waitForLog(/web password for user root: (\S+)/))[1],
      stored,
      'the stored password is used again',
    );
  } finally {
    await again.stop();
  }
  rmSync(first.dir, { recursive: true, force: true });

  const blocked = await startAgent({ ini: `${WEB_INI}[/paths]\nstate = \${base-path}/agent.ini/state\n` });
  try {
    const warning = await blocked.waitForLog(
      /AGENT_WARN_STATE_FOLDER: cannot write web-password in the state folder (\S+) \(([^)]*)\); set \[\/paths\] state to a writable folder/,
    );
    assert.equal(warning[1], join(blocked.dir, 'agent.ini', 'state'));
    assert.equal(warning[2], 'a part of the path is not a folder');
    await blocked.waitForLog(/web server listening on https:\/\/127\.0\.0\.1:\d+/);
  } finally {
    await blocked.stop();
  }
});

void test('a FIFO where the password is kept does not block the start: a new password file replaces it', async () => {
  const state = mkdtempSync(join(tmpdir(), 'agent-state-'));
  execFileSync('mkfifo', [join(state, 'web-password')]);
  const agent = await startAgent({ ini: `${WEB_INI}[/paths]\nstate = ${state}\n` });
  try {
    const printed = (await agent.waitForLog(/web password for user root: (\S+)/))[1];
    assert.ok(statSync(join(state, 'web-password')).isFile(), 'a regular file now');
    assert.equal(readFileSync(join(state, 'web-password'), 'utf8').trim(), printed);
  } finally {
    await agent.stop();
    rmSync(state, { recursive: true, force: true });
  }
});
