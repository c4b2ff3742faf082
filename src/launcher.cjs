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
const { createRequire } = require('node:module');
const { basename, dirname, join } = require('node:path');
const vm = require('node:vm');

// Before the bundle and its code cache (about 1 MB each) are read and freed: from here on, malloc
// gives every block of 128 KiB or more a mapping of its own, which free() returns to the kernel,
// instead of letting its threshold rise to the largest block freed so far (src/cli/heap-settle.ts).
fixMallocThreshold(join(__dirname, 'bin', 'heap-settle.node'));

/** mallopt(M_MMAP_THRESHOLD) through the optional heap-settle addon; without it, glibc's own sliding threshold. */
function fixMallocThreshold(addonFile) {
  try {
    const addon = { exports: {} };
    process.dlopen(addon, addonFile);
    addon.exports.fixMmapThreshold(128 * 1024);
  } catch {
    // No addon (a build without a C compiler): malloc as glibc sets it.
  }
}

/**
 * The bundle at `file` as a vm.Script whose value is a CommonJS module function: the build writes
 * the bundle already wrapped in `(function (exports, require, module, __filename, __dirname) {…})`,
 * so the text read is the text compiled (wrapping it here made a second string of a megabyte, which
 * V8 copies into one piece before it looks at the cache). Read as latin1: the build checks that the
 * bundle is ASCII, so the source is a one-byte string (half the memory of a UTF-16 one, kept for
 * the agent's life by V8).
 */
function compile(file, cachedData) {
  return new vm.Script(readFileSync(file, 'latin1'), { filename: file, cachedData });
}

/**
 * Runs the bundle at `file` as a CommonJS module, with its code cache when there is one, and
 * returns its exports. `more` goes onto its `module` object beside `loadBundle`, which loads
 * another bundle of the same folder the same way (src/tools/bundle-split.mjs: main.cjs loads
 * on-demand.cjs, passing it `fromMain`).
 */
function load(file, more = {}) {
  let cachedData;
  try {
    cachedData = readFileSync(`${file}.cache`);
  } catch {
    cachedData = undefined; // no cache: compile as usual
  }
  const script = compile(file, cachedData);
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
  fn.call(module.exports, module.exports, builtinsOnce(createRequire(file)), module, file, dirname(file));
  return module.exports;
}

/**
 * `require` for the bundle, answering a built-in (`node:fs`) from its own map after the first
 * time: esbuild's CommonJS output requires a built-in in every module that imports it (about 150
 * calls at a default start for 15 built-ins), and each went through node's whole module load
 * (resolution, diagnostics channels, checks): so many calls that V8 compiled three of node's own
 * helpers of that path with Maglev during the start. Anything else goes to node's require as before.
 */
function builtinsOnce(req) {
  const builtins = new Map();
  const once = (id) => {
    if (!id.startsWith('node:')) return req(id);
    let m = builtins.get(id);
    if (m === undefined) builtins.set(id, (m = req(id)));
    return m;
  };
  return Object.assign(once, { resolve: req.resolve, cache: req.cache, main: req.main, extensions: req.extensions });
}

module.exports = { compile };
if (require.main === module) load(join(__dirname, 'agent', 'main.cjs'));
