// `npm run check:size` (in .ci/run): no hand-written TypeScript file under
// src/ over 300 lines (generated code excepted). The files listed in KNOWN
// are over the limit today and waiting for a split by responsibility (issue
// 19 item 6); each may not grow past the count given, and the check fails
// once one of them is back under the limit, so the list only shrinks.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const LIMIT = 300;
const KNOWN = {
  'src/cli/web.ts': 311,
};

const root = fileURLToPath(new URL('../..', import.meta.url));
const problems = [];
const walk = (dir) => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'generated') walk(path);
    } else if (e.name.endsWith('.ts')) {
      const rel = relative(root, path);
      const text = readFileSync(path, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      const max = KNOWN[rel] ?? LIMIT;
      if (lines > max) problems.push(`${rel}: ${lines} lines (at most ${max}${KNOWN[rel] ? ', listed as over the limit: it may not grow' : ''}); split it by responsibility`);
      else if (KNOWN[rel] && lines <= LIMIT) problems.push(`${rel}: ${lines} lines, under ${LIMIT} now: remove it from KNOWN in src/tools/check-file-size.mjs`);
    }
  }
};
walk(join(root, 'src'));
for (const p of problems) process.stderr.write(`${p}\n`);
if (problems.length > 0) process.exit(1);
process.stdout.write(`every hand-written file under src/ has at most ${LIMIT} lines (${Object.keys(KNOWN).length} known exceptions)\n`);
