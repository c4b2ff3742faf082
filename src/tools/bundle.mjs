// Part of `npm run build`, after tsc: bundles the compiled agent (dist/src/main.js and everything
// it imports, lazy imports included) into CommonJS: dist/agent/main.cjs, what a start on the
// default settings runs, and dist/agent/on-demand.cjs, the rest (bundle-split.mjs); writes V8's
// code cache of each (main.cjs.cache, on-demand.cjs.cache) and copies the launcher
// src/launcher.cjs to dist/agent.cjs, which the `agent` bin and `npm start` run. Loading ~170 ES
// modules one by one (resolve, read, compile, link each) was most of the agent's start; one
// file, compiled at build time, is not.
// dist/src/ stays as tsc wrote it, for the unit tests. Everything comes from the imports of
// main.js, never from a list of files, so files can move between folders.
//
// Why CommonJS: esbuild hoists every node: import of an ES module bundle to its top, so node
// would load dgram, zlib, webcrypto, … for modules that are not enabled; in CommonJS they stay
// inside the lazily run module bodies. Whitespace and syntax are minified, names are kept, so a
// stack trace still names the functions.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeCodeCache } from './code-cache.mjs';
import { ON_DEMAND, splitBuild } from './bundle-split.mjs';
import { unwrapBundle } from './bundle-unwrap.mjs';

// A checkout installed before esbuild was added has no esbuild: say what to do.
const { build } = await import('esbuild').catch((err) => {
  console.error(
    `bundle: cannot load esbuild (${err.message}); run npm ci (or npm install) to install the devDependencies`,
  );
  process.exit(1);
});

// TypeScript's parser, for the rewrites of bundle-unwrap.mjs.
const { default: ts } = await import('typescript').catch((err) => {
  console.error(
    `bundle: cannot load typescript (${err.message}); run npm ci (or npm install) to install the devDependencies`,
  );
  process.exit(1);
});

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'dist/agent/main.cjs');
// The settings schema files (schema/**/*.json, without their indentation) by their path under
// schema/, written into the bundle as __bundleSchemas (src/settings/model/schema-set.ts): a start reads
// none of the ~25 files.
const schemas = Object.fromEntries(
  readdirSync(join(root, 'schema'), { recursive: true })
    .filter((rel) => rel.endsWith('.json'))
    .sort()
    .map((rel) => [
      rel.split('\\').join('/'),
      JSON.stringify(JSON.parse(readFileSync(join(root, 'schema', rel), 'utf8'))),
    ]),
);
// Their hash as the settings code computes it (ajv-setup.ts schemaSetHash, from dist/src/ as tsc
// just wrote it), written in as __bundleSchemaHash: a start compares it with the precompiled
// validators' instead of hashing ~100 KB of schemas (ajv-instance.ts).
const { loadSchemaSet } = await import(pathToFileURL(join(root, 'dist/src/settings/model/schema-set.js')).href);
const { schemaSetHash } = await import(pathToFileURL(join(root, 'dist/src/settings/model/ajv-setup.js')).href);
const schemaHash = schemaSetHash(loadSchemaSet(root));
// The same for the request-body schemas and their precompiled validators (web/bodies.ts): __bundleBodySchemasHash.
const { bodySchemasHash } = await import(pathToFileURL(join(root, 'dist/src/web/body-hash.js')).href);
const bodyHash = bodySchemasHash();
// Two files, one instance of every module (bundle-split.mjs): main.cjs, what a default start runs,
// and on-demand.cjs, what it does not.
const split = await splitBuild({
  build,
  root,
  options: {
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // import() of a CommonJS package (selfsigned) becomes a require() in a promise: the launcher
    // runs the bundle through vm.Script, which has no loader for import().
    supported: { 'dynamic-import': false },
    // import.meta in a CommonJS bundle: the bundle's own folder and file (package root, require of
    // ajv), and its URL, made only when asked for (node:url's URL at start cost 0.2 ms, issue 41).
    define: {
      'import.meta.dirname': '__dirname',
      'import.meta.filename': '__filename',
      'import.meta.url': '__bundleMeta.url',
    },
    // Loaded from node_modules when first needed: selfsigned (and its ASN.1 libraries, about half of
    // the bundle otherwise) only creates a missing certificate.
    external: ['selfsigned'],
    plugins: [withoutLong(), lazyFsPromises()],
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    // The generated protobuf code repeats a case label (protobufjs' pbjs output): harmless, not ours to edit.
    logOverride: { 'duplicate-case': 'silent' },
    logLevel: 'warning',
  },
  banner: (onDemand) =>
    [
      "const __bundleMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };",
      ...(onDemand
        ? // main.cjs's instance of a module it holds, by path (the launcher passes main.cjs's table).
          ['const __agentMain = module.fromMain;']
        : [
            // A Map made from an array literal: an object literal of ~50 keys made V8 build its
            // map key by key at every start.
            `const __bundleSchemas = new Map(${JSON.stringify(Object.entries(schemas))});`,
            `const __bundleSchemaHash = ${JSON.stringify(schemaHash)};`,
            `const __bundleBodySchemasHash = ${JSON.stringify(bodyHash)};`,
            // Filled by main.cjs's entry: the modules on-demand.cjs takes from it.
            'let __agentMainModules;',
            // A module of on-demand.cjs, loading that file (once) through the launcher.
            'let __agentOnDemandTable;',
            `const __agentOnDemand = (id) => (__agentOnDemandTable ??= module.loadBundle(${JSON.stringify(ON_DEMAND)}, { fromMain: (rel) => __agentMainModules[rel]() }))[id]();`,
          ]),
    ].join('\n'),
});
// A fresh folder: every *.cjs in it is a bundle file to cache and to package (code-cache.mjs bundleFiles).
rmSync(dirname(out), { recursive: true, force: true });
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, wrapped(split.main, out));
writeFileSync(join(dirname(out), ON_DEMAND), wrapped(split.onDemand, join(dirname(out), ON_DEMAND)));
const launcher = join(root, 'dist/agent.cjs');
copyFileSync(join(root, 'src/launcher.cjs'), launcher);
chmodSync(launcher, 0o755);
// The code cache, made by the node that builds (the one that will run it: `npm ci` builds).
await writeCodeCache({ bundle: out, launcher, node: [process.execPath], who: 'bundle' });

/**
 * A bundle's text as written: esbuild's module initialisers and export tables rewritten
 * (bundle-unwrap.mjs), wrapped in the function the launcher calls as a CommonJS module
 * (src/launcher.cjs compiles the file as it is); main.ts's #! line would be a syntax error there.
 * esbuild writes strings and names in ASCII, but not the characters of regular expression
 * literals (`/[\s\u25cf*]/` written with the character itself): those are escaped here, the same
 * character to the regular expression. The launcher reads the bundle as a one-byte string.
 */
function wrapped(output, file) {
  const text = unwrapBundle(output, ts)
    .text.replace(/^#!.*\n/, '')
    .replace(/(?<!\\)[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const nonAscii = /[^\x00-\x7f]/.exec(text);
  if (nonAscii) {
    const context = text.slice(Math.max(0, nonAscii.index - 80), nonAscii.index + 40);
    console.error(
      `bundle: ${file}: a non-ASCII character after a backslash, in:\n  ${context}\nWrite it as \\u${nonAscii[0].charCodeAt(0).toString(16).padStart(4, '0')} in the source.`,
    );
    process.exit(1);
  }
  return `(function (exports, require, module, __filename, __dirname) {${text}\n})`;
}

/**
 * node:fs/promises, loaded at its first use rather than when the first module that imports it is
 * initialised (at every start): loading it loads node's readline and REPL history modules too
 * (internal/fs/promises requires them for FileHandle.readLines), about 1 ms and 1.3 MB of
 * resident memory in a bare node, where a default start calls none of its functions until a
 * check, an edit or a new certificate needs one. The bundle gets an ES module in its place with a
 * function per function the real module exports (the names of the node that builds, which is
 * the node that runs the bundle: its code cache is made for it), each loading that module on its
 * first call and passing the call on, and `constants`, which is node:fs's own object. An ES
 * module, not a CommonJS object of getters: esbuild links its exports straight to the importers,
 * where an object went through `__toESM` once per importing module (38 of them), each call
 * copying every export onto a new object (about 1 ms of every start, issue 41).
 */
function lazyFsPromises() {
  return {
    name: 'lazy-fs-promises',
    setup(b) {
      b.onResolve({ filter: /^(node:)?fs\/promises$/ }, () => ({ path: 'fs/promises', namespace: 'lazy-fs-promises' }));
      b.onLoad({ filter: /.*/, namespace: 'lazy-fs-promises' }, async () => {
        const real = await import('node:fs/promises');
        const names = Object.keys(real).filter((name) => name !== 'default' && name !== 'constants');
        const other = names.filter((name) => typeof real[name] !== 'function');
        if (other.length > 0) throw new Error(`node:fs/promises exports more than functions: ${other.join(', ')}`);
        return {
          contents: [
            'let real;',
            "const load = () => (real ??= process.getBuiltinModule('node:fs/promises'));",
            "export const constants = process.getBuiltinModule('node:fs').constants;",
            ...names.map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
          ].join('\n'),
          loader: 'js',
        };
      });
    },
  };
}

/**
 * protobufjs requires long.js when it is installed (it is: a dependency of protobufjs) and then
 * decodes int64 fields as Long objects. The bundle gets an empty module in its place, so
 * protobufjs decodes them as numbers, as src/core/plugin/codec.ts configures it anyway. Loading
 * long.js compiled a WebAssembly module (its fast multiply) at every start: 2.3 ms and 3.8 MB of
 * resident memory (the WebAssembly compiler's pages and data), for nothing the agent uses.
 */
function withoutLong() {
  return {
    name: 'without-long',
    setup(b) {
      b.onResolve({ filter: /^long$/ }, () => ({ path: 'long', namespace: 'without-long' }));
      b.onLoad({ filter: /.*/, namespace: 'without-long' }, () => ({
        contents: 'module.exports = null;',
        loader: 'js',
      }));
    },
  };
}
