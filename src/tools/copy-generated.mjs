// Part of `npm run build`: tsc does not emit a .js file that has a .d.ts
// beside it, so the generated protobuf code and validators are copied into dist/ here.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
for (const rel of [
  'src/core/plugin/generated/plugin.js',
  'src/settings/generated/validators.js',
  'src/web/generated/body-validators.js',
]) {
  const to = join(root, 'dist', rel);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(join(root, rel), to);
}
