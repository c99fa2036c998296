import { defineConfig } from 'vitest/config';

export default defineConfig({
  // type-graphql loads graphql's CommonJS build; point our imports there too so there is one graphql instance.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['reflect-metadata', 'test/setup/openapi-contract.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One module graph per worker, not per file: loading the gateway's modules again for each of the ~85 files cost a
    // fifth of a leg's CPU (docs/development.md, "Test time"). No test file stubs modules or globals; each starts its own
    // gateway and database.
    isolate: false,
  },
});
