import pg from "pg";

/** The URL of database `name` on the server `serverUrl` points at: the same URL with its path replaced. */
export function postgresDatabaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

async function onServer(serverUrl: string, statement: string): Promise<void> {
  // CREATE/DROP DATABASE cannot run inside a transaction block, so a plain client, not Kysely.
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Creates an empty database `name` on the server `serverUrl` points at (as a
 * role allowed to create databases), and returns its URL. For provisioning
 * and for tests that each want a database of their own.
 */
export async function createPostgresDatabase(serverUrl: string, name: string): Promise<string> {
  await onServer(serverUrl, `CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  return postgresDatabaseUrl(serverUrl, name);
}

/** PostgreSQL's "object in use" error: another session is connected to the database. */
const OBJECT_IN_USE = "55006";

/**
 * Drops database `name` if it exists. Sessions still closing are waited for
 * (PostgreSQL gives them a few seconds); sessions still open after that are
 * terminated, so a leaked connection cannot keep the database alive.
 */
export async function dropPostgresDatabase(serverUrl: string, name: string): Promise<void> {
  const drop = `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)}`;
  try {
    await onServer(serverUrl, drop);
  } catch (error) {
    if ((error as { code?: unknown }).code !== OBJECT_IN_USE) throw error;
    await onServer(serverUrl, `${drop} WITH (FORCE)`);
  }
}
