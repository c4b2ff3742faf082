/** One settings file as read (includes.ts, drop-ins.ts): its path, its bytes' hash and the parsed document. */
import type { IniDocument } from './read-ini.js';

export interface SourceFile {
  file: string;
  hash: string;
  doc: IniDocument;
}
