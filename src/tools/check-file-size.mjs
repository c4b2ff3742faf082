// `npm run check:size` (in .ci/run): no hand-written TypeScript file under
// src/ over 300 lines (generated code excepted). A file that grows past it
// is split by responsibility, into files whose names say what they hold.
// And no function over 100 lines unless a comment right above it (in the
// three lines before it, or its doc comment) says `long function:` and why
// it cannot be split.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const LIMIT = 300;
const FUNCTION_LIMIT = 100;
const MARK = 'long function:';

const root = fileURLToPath(new URL('../..', import.meta.url));
const problems = [];

/** Functions of a file over FUNCTION_LIMIT lines without the mark above them. */
function longFunctions(rel, text) {
  const sf = ts.createSourceFile(rel, text, ts.ScriptTarget.ES2022, true);
  const lines = text.split('\n');
  const out = [];
  const visit = (n) => {
    if (
      ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isArrowFunction(n) ||
      ts.isFunctionExpression(n)
    ) {
      const start = sf.getLineAndCharacterOfPosition(n.getStart()).line;
      const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (end - start + 1 > FUNCTION_LIMIT) {
        // The statement that holds it (a const, an export, a property) starts the search for its comment.
        let holder = n;
        while (
          holder.parent &&
          !ts.isSourceFile(holder.parent) &&
          !ts.isBlock(holder.parent) &&
          !ts.isClassLike(holder.parent)
        )
          holder = holder.parent;
        const at = sf.getLineAndCharacterOfPosition(holder.getFullStart()).line;
        const from = Math.min(at, sf.getLineAndCharacterOfPosition(holder.getStart()).line);
        const above = lines.slice(Math.max(0, from - 3), sf.getLineAndCharacterOfPosition(holder.getStart()).line + 1);
        const doc = text.slice(holder.getFullStart(), holder.getStart());
        if (!doc.includes(MARK) && !above.some((l) => l.includes(MARK)))
          out.push(
            `${rel}:${start + 1}: a function of ${end - start + 1} lines (at most ${FUNCTION_LIMIT}); split it, or say above it "${MARK}" and why it cannot be`,
          );
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

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
      problems.push(...longFunctions(rel, text));
    }
  }
};
walk(join(root, 'src'));
for (const p of problems) process.stderr.write(`${p}\n`);
if (problems.length > 0) process.exit(1);
process.stdout.write(
  `every hand-written file under src/ has at most ${LIMIT} lines, and every function over ${FUNCTION_LIMIT} says why\n`,
);
