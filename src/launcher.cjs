#!/usr/bin/env node
'use strict';
// The `config-agent` command as `npm run build` makes it: copied to dist/agent.cjs, it runs the bundled
// agent dist/agent/main.cjs (src/tools/bundle.mjs) with the V8 code cache the build wrote beside
// it (main.cjs.cache), so a start neither resolves ~170 files nor parses a megabyte of code.
// A cache that does not fit the node binary running it (another Node version, other V8 flags) is
// rejected by V8 and the bundle is compiled as usual: slower, same behaviour. Plain CommonJS, not
// TypeScript: it must run as is, before anything else is loaded, and the build (code-cache.mjs)
// requires compile() from it to write the cache, so both compile the very same text.
// The process is named by its command, not Node 24's `MainThread`: `pgrep config-agent` and
// `check_procs -C config-agent` find it (the kernel's comm, which libuv sets with the title).
process.title = 'config-agent';
const { readFileSync, writeFileSync } = require('node:fs');
const { basename, dirname, join } = require('node:path');
const vm = require('node:vm');

// Before the bundle and its code cache (about 1 MB each) are read and freed: from here on, malloc
// gives every block of 128 KiB or more a mapping of its own, which free() returns to the kernel,
// instead of letting its threshold rise to the largest block freed so far (src/cli/heap-settle.ts).
// Without the addon (a build without a C compiler): malloc as glibc sets it.
optionalAddon(join(__dirname, 'bin', 'heap-settle.node'))?.fixMmapThreshold(128 * 1024);
// How the bundle and its cache are read: without a copy into V8's heap, the cache mapped (src/cli/bundle-read-c/).
const bundleRead = optionalAddon(join(__dirname, 'bin', 'bundle-read.node'));

/** The exports of the addon at `file`, or undefined when it is not there or does not load (a build without a C compiler). */
function optionalAddon(file) {
  try {
    const addon = { exports: {} };
    process.dlopen(addon, file);
    return addon.exports;
  } catch {
    return undefined;
  }
}

/**
 * The bundle at `file` as a vm.Script whose value is a CommonJS module function: the build writes
 * the bundle already wrapped in `(function (exports, require, module, __filename, __dirname) {…})`,
 * so the text read is the text compiled (wrapping it here made a second string of a megabyte, which
 * V8 copies into one piece before it looks at the cache). Read as latin1: the build checks that the
 * bundle is ASCII, so the source is a one-byte string (half the memory of a UTF-16 one, kept for
 * the agent's life by V8). With the bundle-read addon the string's bytes stay outside V8's heap,
 * read once (readFileSync reads them into a buffer, then copies them into the heap).
 */
function compile(file, cachedData) {
  const source = bundleRead?.readLatin1(file) ?? readFileSync(file, 'latin1');
  return new vm.Script(source, { filename: file, cachedData });
}

/** The code cache beside `file`, mapped when the addon is there, else read; undefined when there is none. */
function readCache(file) {
  try {
    return bundleRead?.mapBuffer(`${file}.cache`) ?? readFileSync(`${file}.cache`);
  } catch {
    return undefined; // no cache: compile as usual
  }
}

/**
 * Runs the bundle at `file` as a CommonJS module, with its code cache when there is one, and
 * returns its exports. `more` goes onto its `module` object beside `loadBundle`, which loads
 * another bundle of the same folder the same way (src/tools/bundle-split.mjs: main.cjs loads
 * on-demand.cjs, passing it `fromMain`).
 */
function load(file, more = {}) {
  const script = compile(file, readCache(file));
  // The build's warm-up run (src/tools/code-cache.mjs): at exit, the cache of every function this start
  // compiled in each bundle it loaded, not only the top level, so a start after the build compiles almost nothing.
  const warmOut = process.env.AGENT_BUILD_CODE_CACHE;
  if (warmOut)
    process.on('exit', () => writeFileSync(join(warmOut, `${basename(file)}.cache`), script.createCachedData()));
  const fn = script.runInThisContext();
  const module = {
    exports: {},
    filename: file,
    loadBundle: (name, extra) => load(join(dirname(file), name), extra),
    ...more,
  };
  fn.call(module.exports, module.exports, bundleRequire(file), module, file, dirname(file));
  return module.exports;
}

/**
 * `require` for the bundle at `file`, which calls it as a function and for nothing else: a built-in
 * (`node:fs`) comes from process.getBuiltinModule() and then from its own map: esbuild's CommonJS
 * output requires a built-in in every module that imports it (about 150 calls at a default start
 * for 15 built-ins), and each went through node's whole module load (resolution, diagnostics
 * channels, checks): so many calls that V8 compiled three of node's own helpers of that path with
 * Maglev during the start. Anything else (`selfsigned`, which stays outside the bundle) goes to a
 * `require` of the bundle's folder, made at its first use: node:module, which makes it, is not
 * loaded by a start that needs none.
 */
function bundleRequire(file) {
  const builtins = new Map();
  let outside;
  return (id) => {
    if (!id.startsWith('node:')) return (outside ??= require('node:module').createRequire(file))(id);
    let m = builtins.get(id);
    // An id that names no built-in goes to node's require, which says so.
    if (m === undefined) builtins.set(id, (m = process.getBuiltinModule(id) ?? require(id)));
    return m;
  };
}

module.exports = { compile };
if (require.main === module) load(join(__dirname, 'agent', 'main.cjs'));
