import { availableParallelism } from "node:os";
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

/** Starts the throwaway PostgreSQL and Redis servers; only the projects that use them name it. */
const realServers = "./tests/setup/real-servers.ts";

/** KITH_OPTIMISATIONS_OFF=all (or some names) runs the tests with those speed-ups off (docs/optimisations.md). */
const setupFiles = process.env.KITH_OPTIMISATIONS_OFF ? ["./tests/setup/optimisations-off.ts"] : [];

/** `kith serve` in processes, which reads the test Redis when there is one. */
const serveTest = "apps/server/src/serve.test.ts";

/**
 * Four projects, run together by `vitest run` and one by one with
 * `--project <name>` (the test:* scripts):
 * - unit: the tests beside the code of core, the HTTP adapter, the server app
 *   and the examples; no database server, seconds to run;
 * - engines: the storage, queue and blob adapters and their contract suites,
 *   storage and queue behaviour on each engine, the server as a process;
 * - api: the Mastodon API, the compatibility suites (masto.js) and the
 *   browser pages, each on SQLite and on PostgreSQL;
 * - federation: inboxes, deliveries and instances talking over HTTP, on both
 *   engines.
 */
export default defineConfig({
  resolve: { alias },
  test: {
    exclude: ["**/node_modules/**", "**/dist/**"],
    expect: { requireAssertions: true },
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One test file per core (vitest's default leaves one core out, which on a two-core machine runs the files one
    // by one): the slow files mostly wait on server processes, PostgreSQL and timers rather than compute.
    // `--maxWorkers=<n>` overrides it.
    maxWorkers: availableParallelism(),
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "packages/core/src/**/*.test.ts",
            "packages/http-adapter-node/src/**/*.test.ts",
            "apps/*/src/**/*.test.ts",
            "examples/*/src/**/*.test.ts",
            "tests/lint/**/*.test.ts",
            "tests/build/**/*.test.ts",
          ],
          exclude: ["**/node_modules/**", "**/dist/**", serveTest],
          setupFiles,
        },
      },
      {
        test: {
          name: "engines",
          include: [
            "packages/storage-*/src/**/*.test.ts",
            "packages/queue-*/src/**/*.test.ts",
            "packages/blob-*/src/**/*.test.ts",
            serveTest,
            "tests/storage/**/*.test.ts",
            "tests/queue/**/*.test.ts",
            "tests/adapters/**/*.test.ts",
            "tests/server/**/*.test.ts",
            "tests/e2e/**/*.test.ts",
          ],
          globalSetup: [realServers],
          setupFiles,
        },
      },
      {
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts", "tests/compat/**/*.test.ts", "tests/browser/**/*.test.ts"],
          globalSetup: [realServers],
          setupFiles,
        },
      },
      {
        test: {
          name: "federation",
          include: ["tests/federation/**/*.test.ts"],
          globalSetup: [realServers],
          setupFiles,
        },
      },
    ],
  },
});
