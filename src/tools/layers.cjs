// The layers of src/, bottom to top, as path patterns: the one list that .dependency-cruiser.cjs
// builds its rules from and test/unit/layers.test.ts checks every file of src/ against (each file in
// exactly one). What each layer holds: docs/architecture.md "Layers".
module.exports = [
  [
    'base',
    '^src/(errors|error-codes|in-range|iso-time|log|log-escape|log-journal|log-throttle|retry-policy|version|package-root|package-require|hide-paths|path-inside|abort-link|native-addon)\\.ts$',
  ],
  ['formats', '^src/formats/'],
  // settings/, bottom to top: the INI grammar, the pure model (compile files to a snapshot; its
  // generated/ beside it), the store (reads, watches and writes the settings files), the source (pulls
  // settings from git or https into its cache, checks them, reads the cache back; the store and the
  // source are the only code that touches settings files), the import of NSClient++ and nrpe files.
  ['settings-ini', '^src/settings/ini/'],
  ['settings-model', '^src/settings/(model|generated)/'],
  ['settings-store', '^src/settings/store/'],
  ['settings-source', '^src/settings/source/'],
  ['settings-import', '^src/settings/import/'],
  ['core', '^src/core/'],
  ['protocols', '^src/protocols/'],
  ['checks', '^src/checks/'],
  ['web', '^src/web/'],
  ['modules', '^src/modules/'],
  ['reconciler', '^src/reconciler/'],
  ['top', '^src/(cli/|tools/|packaging/|agent\\.ts$|main\\.ts$|launcher\\.cjs$)'],
];
