// typescript-eslint (recommended, type-checked) over src/ and test/; `npm run lint` in .ci/run fails on any
// message. Generated code, the browser UI's plain JavaScript and build scripts are not linted.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/generated/**', 'src/web/ui/**', 'test-output/**', '**/*.cjs', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test/it/describe return promises the runner tracks itself.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] }],
      // Handlers that implement a Promise-returning interface stay async so that a throw becomes a rejection.
      '@typescript-eslint/require-await': 'off',
      // `const { secret: _secret, ...rest } = o` is how a key is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      // A variable declared first and assigned once later is read by closures made in between
      // (`need()` in agent.ts): as a const those would hit the temporal dead zone.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
);
