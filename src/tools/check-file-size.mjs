// `npm run check:size` (in .ci/run): no hand-written TypeScript file under
// src/ over 300 lines (generated code excepted). A file that grows past it
// is split by responsibility, into files whose names say what they hold.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const LIMIT = 300;

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
      if (lines > LIMIT) problems.push(`${rel}: ${lines} lines (at most ${LIMIT}); split it by responsibility`);
    }
  }
};
walk(join(root, 'src'));
for (const p of problems) process.stderr.write(`${p}\n`);
if (problems.length > 0) process.exit(1);
process.stdout.write(`every hand-written file under src/ has at most ${LIMIT} lines\n`);
