/**
 * Layers of src/, bottom to top (src/tools/layers.cjs, described once in
 * docs/architecture.md "Layers"); an import may point to its own layer or a
 * lower one, never up. `npm run check:layers` runs this in .ci/run.
 * Type-only imports count too (tsPreCompilationDeps).
 */
// The one list of layers (src/tools/layers.cjs), also checked file by file by test/unit/layers.test.ts.
const layers = require('./src/tools/layers.cjs');

const upward = layers.slice(0, -1).map(([name, path], i) => ({
  name: `no-upward-from-${name}`,
  comment: `${name} may import only ${layers
    .slice(0, i + 1)
    .map(([n]) => n)
    .join(', ')}`,
  severity: 'error',
  from: { path },
  to: {
    path: layers
      .slice(i + 1)
      .map(([, p]) => `(${p})`)
      .join('|'),
  },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'web-only-for-webserver',
      comment: 'src/web/ is the library of the WEBServer module; other modules use protocols/ or core/',
      severity: 'error',
      from: { path: '^src/modules/', pathNot: '^src/modules/web-server/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'control-only-for-webserver',
      comment:
        'the control interface (load, unload, edit settings, the whole snapshot: core/control.ts) reaches WEBServer alone, through its context (modules/catalogue.ts controlFor hands it over; agent.ts builds it on the reconciler); no other module, check or protocol imports it',
      severity: 'error',
      from: {
        path: '^src/(core|protocols|checks|modules)/',
        pathNot: '^src/(core/control\\.ts$|modules/web-server/|modules/catalogue\\.ts$)',
      },
      to: { path: '^src/core/control\\.ts$' },
    },
    {
      name: 'modules-isolated',
      comment:
        'a module folder does not import another module folder (shared code goes to modules/*.ts or lower layers); generated/loaders.ts, made by npm run gen, imports each module lazily',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: '^src/modules/generated/' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'reconciler-reads-no-settings-files',
      comment:
        'the reconciler takes the loads the store reads and hands it (settings/store/change-stream.ts) and imports no other file of the store, nor the settings source (settings/source/: the pull, its cache and its checks), so it touches no settings file',
      severity: 'error',
      from: { path: '^src/reconciler/' },
      to: { path: '^src/settings/(store/(?!change-stream\\.ts$)|source/)' },
    },
    {
      name: 'no-circular',
      comment:
        'no import cycles between files, type-only ones included: two files that name each other are one job split by size (a shared type goes to a file of its own)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/(settings|core/plugin)/generated/' },
  },
};
