/**
 * A person editing the settings file by hand, as a process of its own: each
 * edit reads the file, adds `hand_N = check_ok` at its end and saves, the
 * way editors do: even edits write a new file and rename it over the old
 * one (vim, sed -i), odd ones append in place (echo >>). A pause of
 * 20-80 ms between edits. Usage: node hand-editor.js FILE COUNT; prints
 * "done COUNT" when every edit is saved.
 */
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const [file, countText] = process.argv.slice(2);
if (file === undefined || countText === undefined) throw new Error('usage: hand-editor FILE COUNT');
const count = Number(countText);
for (let i = 0; i < count; i++) {
  const line = `hand_${i} = check_ok\n`;
  if (i % 2 === 0) {
    const text = readFileSync(file, 'utf8');
    const temp = `${file}.hand-${i}`;
    writeFileSync(temp, text.endsWith('\n') ? text + line : `${text}\n${line}`);
    renameSync(temp, file);
  } else {
    appendFileSync(file, line);
  }
  await sleep(20 + (i % 7) * 10);
}
console.log(`done ${count}`);
