/**
 * What the global setup (`tests/setup/real-servers.ts`) hands the test
 * workers through vitest's provide/inject: the URLs of the throwaway servers
 * it started, or null when the server is not installed here.
 */
declare module "vitest" {
  export interface ProvidedContext {
    /** Superuser URL of the test PostgreSQL server, on its `postgres` database. */
    postgresUrl: string | null;
    /** The same server over its Unix socket (the benchmark connects so, as a one-machine install would). */
    postgresSocketUrl: string | null;
    /**
     * Name of this run's migrated template database on the test PostgreSQL
     * server (made by the first test that needs it; see `migrated-postgres.ts`).
     */
    postgresTemplate: string;
    /** URL of the test Redis server. */
    redisUrl: string | null;
  }
}

export {};
