/**
 * Migrated PostgreSQL databases, made quickly. Running every migration takes
 * far longer than copying a database, and the feature suites make one
 * database per test Kith on PostgreSQL, so the first caller of the run
 * migrates a template database and everyone copies it (CREATE DATABASE ...
 * TEMPLATE). The template's name comes from the global setup, new each run,
 * so a template made from older migrations is never copied.
 */
import { randomBytes } from "node:crypto";
import { coreMigrations } from "@kith/core";
import { createPostgresStorage, dropPostgresDatabase } from "@kith/storage-postgres";
import pg from "pg";
import { inject } from "vitest";
import type {} from "./provided-context.js";
import { type FreshPostgresDatabase, postgresUrl } from "./real-servers.js";

/** Any constant: the key of the advisory lock under which the template is made. */
const TEMPLATE_LOCK = 4_604_046;

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

async function withServerClient<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  // CREATE DATABASE cannot run in a transaction block, hence a plain client.
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Makes the run's template unless a worker already did. Test files run in
 * parallel workers, so the lock makes one of them migrate and the others wait.
 * It is migrated under another name and renamed when done, so a worker that
 * dies half way leaves no half-migrated template behind.
 */
async function ensureTemplate(serverUrl: string, template: string): Promise<void> {
  await withServerClient(serverUrl, async (client) => {
    await client.query("SELECT pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    try {
      const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
      if (found.rowCount) return;
      const building = `${template}_building_${randomBytes(3).toString("hex")}`;
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(building)}`);
      try {
        const storage = createPostgresStorage({ connectionString: databaseUrl(serverUrl, building), max: 1 });
        try {
          await storage.migrate(coreMigrations);
        } finally {
          await storage.close();
        }
        // Nobody connects to a template by accident: a connection to it would make copying it fail.
        await client.query(`ALTER DATABASE ${pg.escapeIdentifier(building)} RENAME TO ${pg.escapeIdentifier(template)}`);
        await client.query(`ALTER DATABASE ${pg.escapeIdentifier(template)} WITH ALLOW_CONNECTIONS false`);
      } catch (error) {
        await dropPostgresDatabase(serverUrl, building).catch(() => {});
        throw error;
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [TEMPLATE_LOCK]);
    }
  });
}

/** This worker's wait for the template: made once per worker process, whichever test file asks first. */
let templateReady: Promise<void> | undefined;

let created = 0;

/**
 * A database on the run's PostgreSQL server that already holds the current
 * schema: a copy of the run's migrated template. Call only where
 * `postgresUrl()` is set.
 */
export async function freshMigratedPostgresDatabase(): Promise<FreshPostgresDatabase> {
  const server = postgresUrl();
  if (!server) throw new Error("No test PostgreSQL server: declare the suite with describeOnEngines");
  const template = inject("postgresTemplate");
  templateReady ??= ensureTemplate(server, template);
  try {
    await templateReady;
  } catch (error) {
    templateReady = undefined;
    throw error;
  }
  // Unique across parallel workers (pid) and reruns against an external server (random part).
  const name = `kith_test_${process.pid}_m${++created}_${randomBytes(3).toString("hex")}`;
  await withServerClient(server, (client) =>
    client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`),
  );
  return { name, url: databaseUrl(server, name), drop: () => dropPostgresDatabase(server, name) };
}
