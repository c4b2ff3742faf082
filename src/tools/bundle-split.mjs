// Part of `npm run build` (bundle.mjs): which code goes to which bundle file. dist/agent/main.cjs
// holds what a start of the agent on its default settings runs (the `run` command and the modules
// settings/agent.ini enables: START_MODULES) and everything they import; every other target of a
// lazy import() under dist/src/ (the other commands, the other modules, the settings source's pull,
// the settings editor, …) goes, with what it alone imports, to dist/agent/on-demand.cjs, which is
// read, compiled and kept only when one of them is first loaded. A default start reads and keeps
// about a third less code (its source stays in memory for V8's lazy compilation).
//
// One instance of every module: code in on-demand.cjs that imports a module of main.cjs gets
// main.cjs's instance (the same AgentError class, logger, settings model), never a copy, through
// two tables: main.cjs lists, by path, the modules on-demand.cjs imports (__agentMainModules),
// on-demand.cjs lists its lazy import targets (module.exports). Each side reaches the other through
// the launcher (src/launcher.cjs: module.loadBundle, module.fromMain), which compiles each file with
// its own code cache. esbuild's code splitting would do this for an ES module bundle only.
import { join, relative, resolve } from 'node:path';

/** The second bundle file, beside main.cjs. */
export const ON_DEMAND = 'on-demand.cjs';

/**
 * The modules settings/agent.ini enables, by name and folder under src/modules/: their code stays
 * in main.cjs, and the build's warm-up start (src/tools/code-cache.mjs) runs them. A module outside
 * this list works all the same, loaded from on-demand.cjs.
 */
export const START_MODULES = {
  CheckHelpers: 'check-helpers',
  CheckSystem: 'check-system',
  CheckDisk: 'check-disk',
  WEBServer: 'web-server',
};

/**
 * Builds both bundles with esbuild's `build` and `options` (shared: format, targets, plugins …,
 * without entry points or banner). `banner(onDemand)` is the banner of each file. Resolves with
 * the text of each file; throws when the two passes of main.cjs disagree.
 */
export async function splitBuild({ build, root, options, banner }) {
  const mainEntry = join(root, 'dist/src/main.js');
  const atStart = new Set([
    'dist/src/cli/run.js',
    ...Object.values(START_MODULES).map((m) => `dist/src/modules/${m}/index.js`),
  ]);
  const common = { ...options, absWorkingDir: root, metafile: true, write: false, bundle: true };
  // Pass 1: main.cjs with every lazy target outside it left to on-demand.cjs, to learn what main.cjs holds.
  const lazy = new Set();
  const first = await build({
    ...common,
    entryPoints: [mainEntry],
    plugins: [...options.plugins, lazyToOnDemand({ root, atStart, lazy, inMain: new Set() })],
  });
  const inMain = inputsOf(root, first);
  const onDemandEntries = [...lazy].filter((rel) => !inMain.has(resolve(root, rel))).sort();
  // on-demand.cjs: the lazy targets main.cjs does not hold, importing main.cjs's modules from it.
  const used = new Set();
  const onDemand = await build({
    ...common,
    stdin: {
      contents: `module.exports = {\n${onDemandEntries.map((rel) => `  ${JSON.stringify(rel)}: () => require(${JSON.stringify(`./${rel}`)}),`).join('\n')}\n};`,
      resolveDir: root,
      sourcefile: 'on-demand-entries.js',
      loader: 'js',
    },
    banner: { js: banner(true) },
    plugins: [...options.plugins, fromMain({ root, inMain, used })],
  });
  // Pass 2: main.cjs again, now with the table of the modules on-demand.cjs imports from it.
  const table = [...used]
    .sort()
    .map((rel) => `  ${JSON.stringify(rel)}: () => require(${JSON.stringify(resolve(root, rel))}),`);
  const main = await build({
    ...common,
    stdin: {
      contents: `__agentMainModules = {\n${table.join('\n')}\n};\nrequire(${JSON.stringify(mainEntry)});`,
      resolveDir: root,
      sourcefile: 'main-entry.js',
      loader: 'js',
    },
    banner: { js: banner(false) },
    plugins: [
      ...options.plugins,
      lazyToOnDemand({ root, atStart, lazy: new Set(), inMain: new Set(onDemandEntries.map((rel) => `!${rel}`)) }),
    ],
  });
  const again = inputsOf(root, main);
  if (again.size !== inMain.size || [...again].some((f) => !inMain.has(f)))
    throw new Error('bundle: the two passes of main.cjs hold different modules');
  return { main: main.outputFiles[0].text, onDemand: onDemand.outputFiles[0].text, onDemandEntries, shared: used.size };
}

// ---------------------------------------------------------------- helpers

/**
 * A lazy import() under dist/src/ of a file outside `atStart` becomes a load from on-demand.cjs
 * (recorded in `lazy`), unless `inMain` (pass 1: empty; pass 2: the on-demand entries, as `!path`)
 * says it stays: in pass 2 only the on-demand entries are redirected.
 */
function lazyToOnDemand({ root, atStart, lazy, inMain }) {
  const second = inMain.size > 0;
  return {
    name: 'lazy-to-on-demand',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (a) => {
        if (a.kind !== 'dynamic-import') return undefined;
        const rel = relative(root, join(a.resolveDir, a.path));
        if (!rel.startsWith('dist/src/') || atStart.has(rel)) return undefined;
        if (second && !inMain.has(`!${rel}`)) return undefined;
        lazy.add(rel);
        return { path: rel, namespace: 'on-demand' };
      });
      b.onLoad({ filter: /.*/, namespace: 'on-demand' }, (a) => ({
        contents: `module.exports = __agentOnDemand(${JSON.stringify(a.path)});`,
        loader: 'js',
      }));
    },
  };
}

/** In on-demand.cjs: an import of a module main.cjs holds becomes main.cjs's instance (recorded in `used`). */
function fromMain({ root, inMain, used }) {
  return {
    name: 'from-main',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (a) => {
        if (a.pluginData?.fromMain || a.kind === 'entry-point' || a.namespace !== 'file') return undefined;
        const r = await b.resolve(a.path, {
          kind: a.kind,
          importer: a.importer,
          resolveDir: a.resolveDir,
          pluginData: { fromMain: true },
        });
        if (r.errors.length > 0 || r.external || r.namespace !== 'file' || !inMain.has(r.path)) return undefined;
        const rel = relative(root, r.path);
        used.add(rel);
        return { path: rel, namespace: 'from-main' };
      });
      b.onLoad({ filter: /.*/, namespace: 'from-main' }, (a) => ({
        contents: `module.exports = __agentMain(${JSON.stringify(a.path)});`,
        loader: 'js',
      }));
    },
  };
}

/** The absolute paths of the files a build's output holds (not the virtual modules: `namespace:path`, the stdin entry). */
function inputsOf(root, result) {
  const [output] = Object.values(result.metafile.outputs);
  return new Set(
    Object.keys(output.inputs)
      .filter((rel) => !/^[a-z-]+:/.test(rel) && rel !== '<stdin>' && !rel.endsWith('-entry.js'))
      .map((rel) => resolve(root, rel)),
  );
}
