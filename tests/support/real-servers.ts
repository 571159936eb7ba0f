import { randomBytes } from "node:crypto";
import { createPostgresDatabase, dropPostgresDatabase } from "@kith/storage-postgres";
import { describe, inject } from "vitest";
import type {} from "./provided-context.js";

/** Superuser URL of the run's PostgreSQL server, or null when PostgreSQL is not installed here. */
export function postgresUrl(): string | null {
  return inject("postgresUrl") ?? null;
}

/** URL of the run's Redis server, or null when Redis is not installed here. */
export function redisUrl(): string | null {
  return inject("redisUrl") ?? null;
}

export interface FreshPostgresDatabase {
  /** Name of the database, unique to this run and worker. */
  readonly name: string;
  /** URL of the database, as its owner. */
  readonly url: string;
  /** Drops the database, disconnecting any client still on it. */
  drop(): Promise<void>;
}

let created = 0;

/** Creates an empty database on the run's PostgreSQL server. Call only where `postgresUrl()` is set. */
export async function freshPostgresDatabase(): Promise<FreshPostgresDatabase> {
  const server = postgresUrl();
  if (!server) throw new Error("No test PostgreSQL server: guard the suite with describeIfPostgres");
  // Unique across parallel workers (pid) and reruns against an external server (random part).
  const name = `kith_test_${process.pid}_${++created}_${randomBytes(3).toString("hex")}`;
  const url = await createPostgresDatabase(server, name);
  return { name, url, drop: () => dropPostgresDatabase(server, name) };
}

type SuiteBody = () => void;

/**
 * `describe` when the backend is available; otherwise the suite is still
 * collected but skipped, its name saying why, so the report shows what did
 * not run.
 */
function describeIf(available: boolean, reason: string): (name: string, body: SuiteBody) => void {
  return (name, body) => {
    if (available) describe(name, body);
    else describe.skip(`${name} [skipped: ${reason}]`, body);
  };
}

/** A suite that needs the test PostgreSQL server; skipped, visibly, without one. */
export function describeIfPostgres(name: string, body: SuiteBody): void {
  describeIf(postgresUrl() !== null, "PostgreSQL not installed")(name, body);
}

/** A suite that needs the test Redis server; skipped, visibly, without one. */
export function describeIfRedis(name: string, body: SuiteBody): void {
  describeIf(redisUrl() !== null, "Redis not installed")(name, body);
}
