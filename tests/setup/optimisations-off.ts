/**
 * Vitest setup file, loaded when `KITH_OPTIMISATIONS_OFF` is set (vitest.config.ts): the speed-ups it names (or all
 * of them) are off by default in every Kith and PostgreSQL storage the tests make, as `kith serve` turns them off
 * with the same variable (docs/optimisations.md). A test that states an option keeps it: the tests of a speed-up
 * state it on. Servers the tests start as processes read the variable themselves.
 *
 *   KITH_OPTIMISATIONS_OFF=all pnpm -s vitest run
 */
import { vi } from "vitest";
import type * as CoreConfig from "../../packages/core/src/config.js";
import type * as PostgresStorage from "../../packages/storage-postgres/src/postgres-storage.js";

const off = new Set((process.env.KITH_OPTIMISATIONS_OFF ?? "").split(",").map((name) => name.trim()));
const on = (name: string): boolean => !off.has("all") && !off.has(name);

vi.mock(import("../../packages/core/src/config.js"), async (importOriginal) => {
  const original: typeof CoreConfig = await importOriginal();
  const defaults = {
    inboxFront: on("inbox-front"),
    compactActivities: on("compact-activities"),
    batchDelivery: on("batch-delivery"),
    kvMemory: on("kv-memory"),
  };
  return {
    ...original,
    resolveConfig: (input, limits) => original.resolveConfig({ ...input, optimisations: { ...defaults, ...input.optimisations } }, limits),
  };
});

vi.mock(import("../../packages/storage-postgres/src/postgres-storage.js"), async (importOriginal) => {
  const original: typeof PostgresStorage = await importOriginal();
  const defaults = { beginWithFirstStatement: on("pg-begin-with-first-statement"), pipelining: on("pg-pipelining") };
  return { ...original, createPostgresStorage: (options) => original.createPostgresStorage({ ...defaults, ...options }) };
});
