/**
 * parseIni against a bare `ini.decode` on a generated large settings file
 * (10,000 client targets and 1,000 web users, about 170,000 lines).
 * Prints the median time of each and the ratio parseIni / ini.decode.
 * Run: npx tsc -p . && node dist/test/bench/read-ini.bench.js
 */
import ini from 'ini';
import { parseIni } from '../../src/settings/read-ini.js';

const ROUNDS = 15;

const text = generate(10_000, 1_000);
const lineCount = text.split('\n').length - 1;

// Warm both up, then alternate so that neither profits from the machine's mood.
for (let i = 0; i < 3; i++) {
  ini.decode(text);
  parseIni(text, 'bench.ini');
}
const decodeTimes: number[] = [];
const parseTimes: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  decodeTimes.push(time(() => ini.decode(text)));
  parseTimes.push(time(() => parseIni(text, 'bench.ini')));
}
const doc = parseIni(text, 'bench.ini');
const decodeMs = median(decodeTimes);
const parseMs = median(parseTimes);
console.log(`read-ini: ${lineCount} lines, ${(text.length / 1e6).toFixed(1)} MB, ${doc.sections.length} sections, ${doc.problems.length} problems`);
console.log(`read-ini: ini.decode median ${decodeMs.toFixed(1)} ms, parseIni median ${parseMs.toFixed(1)} ms (${ROUNDS} rounds)`);
console.log(`read-ini: ratio parseIni / ini.decode = ${(parseMs / decodeMs).toFixed(2)}`);

function time(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A settings file shaped like a big real one: commented targets and users. */
function generate(targets: number, users: number): string {
  const out: string[] = ['; generated for the read-ini benchmark', '[/modules]', 'RemoteClient = enabled', 'WEBServer = enabled', ''];
  out.push('[/settings/remote/client/targets/default]', 'timeout = 30', 'use ssl = true', 'payload length = 1024', '');
  for (let i = 0; i < targets; i++) {
    out.push(
      `; target ${i}`,
      `[/settings/remote/client/targets/host${i}.example.com]`,
      `address = host${i}.example.com:5666`,
      'parent = default',
      'use ssl = true',
      'verify mode = peer-cert',
      'allowed ciphers = ALL:!ADH:!LOW:!EXP:!MD5:@STRENGTH',
      'ca = ${certificate-path}/ca.pem',
      `certificate = \${certificate-path}/host${i}.pem`,
      'timeout = 30',
      'payload length = 1024',
      'retries = 2',
      `password = pw;${i}#x=y`,
      `comment = web server number ${i}`,
      'allowed hosts = 127.0.0.1, ::1',
      '; end of target',
      '',
    );
  }
  out.push('[/settings/web/roles]', 'full = *', 'view = info.get,modules.list', '');
  for (let i = 0; i < users; i++) {
    out.push(`[/settings/web/users/user${i}]`, `password = secret ${i}`, i % 2 === 0 ? 'role = full' : 'role = view', '');
  }
  return out.join('\n');
}
