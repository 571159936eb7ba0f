import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Workspace packages resolve to their sources, so tests need no build. */
const alias = [
  { find: /^@kith\/core\/testing$/, replacement: here("./packages/core/src/testing/index.ts") },
  { find: /^@kith\/core$/, replacement: here("./packages/core/src/index.ts") },
  { find: /^@kith\/storage-sqlite$/, replacement: here("./packages/storage-sqlite/src/index.ts") },
  { find: /^@kith\/storage-postgres$/, replacement: here("./packages/storage-postgres/src/index.ts") },
  { find: /^@kith\/queue-redis$/, replacement: here("./packages/queue-redis/src/index.ts") },
  { find: /^@kith\/blob-s3$/, replacement: here("./packages/blob-s3/src/index.ts") },
  { find: /^@kith\/http-adapter-node$/, replacement: here("./packages/http-adapter-node/src/index.ts") },
  { find: /^@kith\/server$/, replacement: here("./apps/server/src/index.ts") },
];

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts", "examples/*/src/**/*.test.ts", "tests/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    globalSetup: ["./tests/setup/real-servers.ts"],
    // KITH_OPTIMISATIONS_OFF=all (or some names) runs the tests with those speed-ups off (docs/optimisations.md).
    setupFiles: process.env.KITH_OPTIMISATIONS_OFF ? ["./tests/setup/optimisations-off.ts"] : [],
    expect: { requireAssertions: true },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
