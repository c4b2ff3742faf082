// Removes what tsc compiled from a source that is gone: dist/src and dist/test keep every .js a
// build ever wrote, so a test file deleted or moved in the tree would still run from dist (and fail,
// or pass against code that no longer exists). Run before tsc by `npm run build` and `npm run test:unit`;
// an output is kept when its source exists as .ts, or as the .js/.mjs/.cjs copy-generated.mjs copies.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
let removed = 0;
const walk = (dir) => {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) walk(full);
    else {
      const m = /^(.*)\.(js|js\.map|d\.ts)$/.exec(relative(join(root, 'dist'), full));
      if (!m) continue;
      const base = join(root, m[1]);
      if (['.ts', '.js', '.mjs', '.cjs'].some((ext) => existsSync(base + ext))) continue;
      rmSync(full);
      removed++;
    }
  }
};
walk(join(root, 'dist/src'));
walk(join(root, 'dist/test'));
if (removed > 0) console.log(`prune-compiled: removed ${removed} files of dist/ whose source is gone`);
