/** The agent's version, read once from package.json. */
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; name: string };

export const VERSION: string = pkg.version;
export const PRODUCT: string = pkg.name;
