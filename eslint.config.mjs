// @ts-check
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * `npm run lint` (in CI, zero warnings): ESLint's and typescript-eslint's recommended rules with type information
 * (floating and misused promises, unsafe `any`, unused code), Prettier for the layout (its own check, and the
 * layout rules off here).
 */
export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'bench/results/', 'bench/strict/'] },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: { allowDefaultProject: ['*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Async methods that implement an interface (Apollo plugins, outboxes) need not await anything.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read untyped JSON answers: member access on them is the point, not a leak.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // The explorer page's own script: a browser script with GraphiQL's UMD globals, not a TypeScript module; the
    // pages' script likewise (a plain browser script).
    files: ['src/api/rest/explorer/explorer.js', 'src/api/pages/assets/pages.js'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'script',
      globals: { ...globals.browser, React: 'readonly', ReactDOM: 'readonly', GraphiQL: 'readonly' },
    },
  },
  {
    // The typed-client example compiles against the types generated from the OpenAPI document (dist/client/), which
    // only `npm run lint:openapi` makes, and which then type-checks it (tsconfig.client.json). Without them every
    // type here is unresolved: ESLint checks it with the rules that need no types, alike with or without them.
    files: ['docs/examples/**/*.ts'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
