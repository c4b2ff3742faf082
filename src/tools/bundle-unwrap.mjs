// Part of `npm run build` (bundle.mjs): two rewrites of esbuild's CommonJS output that keep what it
// does and drop work every start did for nothing (issue 41), found with callgrind (main-thread
// instructions of a default start, docs/benchmarks.md):
//
// 1. A module's lazy initialiser. esbuild writes `__esm({ "dist/src/x.js"() { … } })` (and
//    `__commonJS({ "path"(exports, module) { … } })`): an object literal per module, only there to
//    name the function, which its helper finds again with Object.getOwnPropertyNames at the first
//    call. V8 builds each such literal through its runtime the one time it runs: ~300 of them at
//    every start. Here the argument is the function itself, named after the module
//    (`function __init$dist_src_x_js() { … }`: stack traces still say which module), and the two
//    helpers call it directly.
// 2. A module's export table. esbuild writes `__export(x_exports, { a: () => a, … })` at the top
//    level: one getter per export defined at every start on an object that only an import() of the
//    module or on-demand.cjs reads (esbuild links every other import straight to the binding).
//    Here the table is defined at the first such read: the call moves into a function run once,
//    and every read of `x_exports` becomes `(__exports$x_exports(), x_exports)`. A table read in
//    any other way stays as esbuild wrote it.
//
// The rewrites work on the syntax tree (TypeScript's parser, a devDependency like esbuild, which is
// pinned): text edits by position, so every other byte is esbuild's. A helper not found as esbuild
// 0.28 writes it stops the build with what to do: nothing is half rewritten.

/** Each helper (as esbuild defines it), its call of the initialiser as esbuild writes it, and as rewritten. */
const HELPER_CALLS = [
  ['__esm=', '(0,fn[__getOwnPropNames(fn)[0]])(fn=0)', '(0,fn)(fn=0)'],
  [
    '__commonJS=',
    '(0,cb[__getOwnPropNames(cb)[0]])((mod={exports:{}}).exports,mod)',
    '(0,cb)((mod={exports:{}}).exports,mod)',
  ],
];

/** How a read of an export table may sit in esbuild's output: as an expression whose value is used. */
const READ_PARENTS = new Set([
  'CallExpression',
  'BinaryExpression',
  'ArrowFunction',
  'PropertyAssignment',
  'ReturnStatement',
  'ParenthesizedExpression',
  'ConditionalExpression',
]);

/**
 * `text` (one bundle file as esbuild wrote it, whitespace minified) with both rewrites; `ts` is
 * the typescript module. Returns the text and what was rewritten. Throws when esbuild's helpers
 * are not the ones this expects.
 */
export function unwrapBundle(text, ts) {
  const helpers = HELPER_CALLS.filter(([defined]) => text.includes(defined));
  for (const [, from] of helpers)
    if (!text.includes(from))
      throw new Error(
        `bundle-unwrap: esbuild's module helper no longer calls its initialiser as ${from}; update src/tools/bundle-unwrap.mjs for this esbuild`,
      );
  const sf = ts.createSourceFile('bundle.cjs', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const edits = [];
  // The export tables, by name: each `__export(name, {…})` statement at the top level.
  const tables = new Map();
  for (const st of sf.statements) {
    const call = ts.isExpressionStatement(st) ? st.expression : undefined;
    if (call && ts.isCallExpression(call) && isNamed(ts, call.expression, '__export')) {
      const [target, all] = call.arguments;
      if (target && ts.isIdentifier(target) && all && ts.isObjectLiteralExpression(all))
        tables.set(target.text, { statement: st, reads: [], lazy: true });
    }
  }
  let modules = 0;
  const visit = (node, parent) => {
    if (
      ts.isCallExpression(node) &&
      (isNamed(ts, node.expression, '__esm') || isNamed(ts, node.expression, '__commonJS'))
    ) {
      const method = initialiserOf(ts, node);
      if (method) {
        const name = `__init$${method.name.text.replace(/[^A-Za-z0-9_]/g, '_')}`;
        const params = method.parameters.map((p) => text.slice(p.getStart(sf), p.end)).join(',');
        const arg = node.arguments[0];
        edits.push([arg.getStart(sf), method.body.getStart(sf), `function ${name}(${params})`]);
        edits.push([method.body.end, arg.end, '']);
        modules++;
      }
    }
    if (ts.isIdentifier(node) && tables.has(node.text)) {
      const table = tables.get(node.text);
      const inItsCall = node.pos >= table.statement.pos && node.end <= table.statement.end;
      const declared = ts.isVariableDeclaration(parent) && parent.name === node;
      if (!inItsCall && !declared) {
        if (READ_PARENTS.has(ts.SyntaxKind[parent.kind]) && !(ts.isPropertyAssignment(parent) && parent.name === node))
          table.reads.push(node);
        else table.lazy = false;
      }
    }
    ts.forEachChild(node, (child) => visit(child, node));
  };
  visit(sf, undefined);
  let lazyTables = 0;
  for (const [name, table] of tables) {
    if (!table.lazy) continue;
    lazyTables++;
    const once = `__exports$${name}`;
    const call = text.slice(table.statement.getStart(sf), table.statement.end).replace(/;$/, '');
    edits.push([table.statement.getStart(sf), table.statement.end, `function ${once}(){${once}=__noop;${call}}`]);
    for (const read of table.reads) edits.push([read.getStart(sf), read.end, `(${once}(),${name})`]);
  }
  // Last edit first, so each position still points into the original text.
  edits.sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [start, end, replacement] of edits) out = out.slice(0, start) + replacement + out.slice(end);
  for (const [, from, to] of helpers) out = out.replace(from, to);
  // A function declaration, so it exists before any statement runs (hoisted).
  const head = /^#!.*\n/.exec(out)?.[0] ?? '';
  out = `${head}function __noop(){}${out.slice(head.length)}`;
  return { text: out, modules, lazyTables };
}

function isNamed(ts, node, name) {
  return ts.isIdentifier(node) && node.text === name;
}

/** The `"path"(…) {…}` method of `__esm({ "path"() {…} })`, or undefined when the call is not of that shape. */
function initialiserOf(ts, call) {
  if (call.arguments.length !== 1) return undefined;
  const arg = call.arguments[0];
  if (!ts.isObjectLiteralExpression(arg) || arg.properties.length !== 1) return undefined;
  const method = arg.properties[0];
  return ts.isMethodDeclaration(method) && ts.isStringLiteral(method.name) && method.body ? method : undefined;
}
