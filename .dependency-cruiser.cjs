/**
 * Layers of src/, bottom to top; an import may point to its own layer or a
 * lower one, never up (docs/development.md "Layers"). `npm run check:layers` runs this
 * in .ci/run. Type-only imports count too (tsPreCompilationDeps).
 *
 *   base       errors.ts, error-codes.ts, in-range.ts, log.ts, log-escape.ts, log-journal.ts, log-throttle.ts, retry-policy.ts, version.ts, package-root.ts, hide-paths.ts, path-inside.ts, open-writers.ts, abort-link.ts, native-addon.ts
 *   formats    src/formats/    value and file formats that settings validation
 *                              checks and the code above runs: allowed hosts,
 *                              command allow-lists, script command lines,
 *                              alias commands, wrapped scripts, TLS/PEM files
 *   settings   src/settings/   the settings model: read, validate, plan, the
 *                              module table (names, sections, queries)
 *   core       src/core/       queries, channels, results, the plugin message
 *                              codec (core/plugin/), the control types
 *   protocols  src/protocols/  clients and listeners of the wire protocols
 *   checks     src/checks/     the checks
 *   web        src/web/        the HTTP app (library of WEBServer)
 *   modules    src/modules/    lifecycle wrappers over the above, the loaders
 *   reconciler src/reconciler/ runs the modules
 *   top        src/cli/, src/agent.ts, src/main.ts, src/launcher.cjs, src/tools/, src/packaging/
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
      name: 'no-circular',
      comment: 'no import cycles between files (a cycle of type-only imports is harmless at run time and allowed)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/(settings|core/plugin)/generated/' },
  },
};
