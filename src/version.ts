/** The agent's version, read once from package.json. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string; name: string };

export const VERSION: string = pkg.version;
export const PRODUCT: string = pkg.name;
