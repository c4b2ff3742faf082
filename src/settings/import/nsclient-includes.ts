/**
 * NSClient++'s [/includes]: each file it names is translated like the main
 * file and merged into the result, its lines reported under its own name.
 * A key or object the main file (or an earlier include) already sets wins,
 * and the later one is reported as dropped. A relative path, or one under
 * an NSClient++ path variable (`${shared-path}/x.ini`), resolves from the
 * including file's folder. Files are read at most once (loops), at most 100
 * deep.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { translate } from './translate.js';
import type { ImportChange, Translation } from './translation.js';
import { PATH_VARIABLES } from './nsclient-map.js';

const MAX_FILES = 100;

export function mergeIncludes(main: Translation, sourceFile: string): void {
  const seen = new Set([resolve(sourceFile)]);
  const queue = (main.includes ?? []).map((i) => ({ ...i, from: sourceFile }));
  while (queue.length > 0) {
    const inc = queue.shift()!;
    const path = includePath(inc.value, inc.from);
    const note = (action: ImportChange['action'], detail: string): void =>
      void main.changes.push({
        ...(inc.from === sourceFile ? {} : { file: inc.from }),
        line: inc.line,
        section: '/includes',
        key: inc.value,
        action,
        detail,
      });
    if (seen.has(resolve(path))) {
      note('note', `${path} is already imported (an include loop or a file named twice)`);
      continue;
    }
    if (seen.size >= MAX_FILES) {
      note('note', `${path} not imported: more than ${MAX_FILES} files`);
      continue;
    }
    seen.add(resolve(path));
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      note(
        'note',
        `${path} not imported: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (NSClient++ skips it too)`,
      );
      continue;
    }
    const t = translate(text, path);
    for (const c of t.changes) c.file = path;
    main.changes.push(...t.changes);
    main.counted?.push(...(t.counted ?? []));
    main.windowsOnly?.push(...(t.windowsOnly ?? []).map((w) => ({ ...w, name: `${w.name} (${path})` })));
    for (const m of t.unsupportedModules) if (!main.unsupportedModules.includes(m)) main.unsupportedModules.push(m);
    for (const sec of t.sections) {
      let into = main.sections.find((s) => s.path.toLowerCase() === sec.path.toLowerCase());
      if (!into) main.sections.push((into = { path: sec.path, comments: sec.comments, entries: [] }));
      const keys = new Set(into.entries.map((e) => e.key.toLowerCase()));
      for (const e of sec.entries) {
        if (keys.has(e.key.toLowerCase())) {
          main.changes.push({
            file: path,
            line: e.line,
            section: e.sourceSection,
            key: e.sourceKey,
            action: 'dropped',
            detail: `[${sec.path}] ${e.key} is already set by ${sourceFile} or an earlier include, which wins`,
          });
          continue;
        }
        into.entries.push({ ...e, file: path });
        keys.add(e.key.toLowerCase());
      }
    }
    // A line dropped in the merge was reported kept by its own translation: its fate is the drop.
    const merged = new Set(main.changes.filter((c) => c.file === path && c.action === 'dropped').map((c) => c.line));
    main.changes = main.changes.filter((c) => !(c.file === path && c.action === 'kept' && merged.has(c.line)));
    for (const i of t.includes ?? []) queue.push({ ...i, from: path });
  }
}

function includePath(value: string, from: string): string {
  let v = value.trim().replace(/^"|"$/g, '');
  for (const name of PATH_VARIABLES) v = v.replace(new RegExp(`\\$\\{${name}\\}[\\\\/]?`, 'gi'), '');
  v = v.replace(/\\/g, '/');
  return isAbsolute(v) ? v : join(dirname(from), v);
}
