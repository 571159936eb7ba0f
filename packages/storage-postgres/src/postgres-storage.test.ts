import { coreMigrations } from "@kith/core";
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPostgresDatabase, dropPostgresDatabase } from "./admin.js";
import { createPostgresStorage } from "./postgres-storage.js";

// The ProvidedContext keys are declared in contract.test.ts.
const serverUrl = inject("postgresUrl") ?? null;
const socketUrl = inject("postgresSocketUrl") ?? null;

describe("createPostgresStorage", () => {
  it("takes a pool or a connection string, not both", () => {
    expect(() => createPostgresStorage({ connectionString: "postgres://localhost/x", pool: new pg.Pool() })).toThrow(/not both/);
  });

  it("has transactions open at once only with a pool of more than one connection", async () => {
    const concurrent = async (storage: ReturnType<typeof createPostgresStorage>) => {
      const answer = storage.capabilities.concurrentTransactions;
      await storage.close();
      return answer;
    };
    const connectionString = "postgres://localhost/x";
    expect(await concurrent(createPostgresStorage({ connectionString }))).toBe(true);
    expect(await concurrent(createPostgresStorage({ connectionString, max: 2 }))).toBe(true);
    expect(await concurrent(createPostgresStorage({ connectionString, max: 1 }))).toBe(false);
    expect(await concurrent(createPostgresStorage({ pool: new pg.Pool({ connectionString }) }))).toBe(true);
    expect(await concurrent(createPostgresStorage({ pool: new pg.Pool({ connectionString, max: 1 }) }))).toBe(false);
  });
});

describe.skipIf(serverUrl === null)("createPostgresStorage on a caller's pool", () => {
  const name = `kith_pool_${process.pid}_${randomBytes(3).toString("hex")}`;
  let pool: pg.Pool;

  beforeAll(async () => {
    // pg's defaults, as a caller might have it: Dates for timestamps, strings for int8, parsed JSON.
    pool = new pg.Pool({ connectionString: await createPostgresDatabase(serverUrl ?? "", name), max: 3 });
  });

  afterAll(async () => {
    await pool?.end();
    if (serverUrl) await dropPostgresDatabase(serverUrl, name);
  });

  it("still reads rows by the schema's conventions, and leaves the pool open on close", async () => {
    const storage = createPostgresStorage({ pool });
    await storage.migrate(coreMigrations);
    await storage.db
      .insertInto("instance_settings")
      .values({ key: "k", value: '{"a": 1}', updated_at: "2026-03-01T10:00:00.000Z" })
      .execute();
    const row = await storage.db.selectFrom("instance_settings").selectAll().executeTakeFirstOrThrow();
    expect(row).toEqual({ key: "k", value: '{"a": 1}', updated_at: "2026-03-01T10:00:00.000Z" });
    const { count } = await storage.db
      .selectFrom("roles")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    expect(count).toBeTypeOf("number");
    await storage.transaction(async (trx) => {
      await trx.deleteFrom("instance_settings").execute();
    });
    await storage.close();
    // The caller's pool is untouched: open, and still with pg's own parsers.
    const { rows } = await pool.query<{ n: unknown }>("SELECT count(*) AS n FROM instance_settings");
    expect(rows[0]?.n).toBe("0");
  });
});

describe.skipIf(socketUrl === null)("createPostgresStorage over a Unix socket", () => {
  it("connects where the URL's host parameter names the socket's directory", async () => {
    const name = `kith_socket_${process.pid}_${randomBytes(3).toString("hex")}`;
    const url = await createPostgresDatabase(socketUrl ?? "", name);
    expect(new URL(url).searchParams.get("host")).toMatch(/^\//);
    const storage = createPostgresStorage({ connectionString: url });
    try {
      await storage.migrate(coreMigrations);
      const { rows } = await sql<{ tcp: boolean }>`SELECT inet_client_addr() IS NOT NULL AS tcp`.execute(storage.db);
      expect(rows[0]?.tcp).toBe(false);
    } finally {
      await storage.close();
      await dropPostgresDatabase(socketUrl ?? "", name);
    }
  });
});

/** A database of the suite's own, made before its tests and dropped after them; the getter gives its URL. */
function suiteDatabase(prefix: string): () => string {
  const name = `${prefix}_${process.pid}_${randomBytes(3).toString("hex")}`;
  let url = "";
  beforeAll(async () => {
    url = await createPostgresDatabase(serverUrl ?? "", name);
  });
  afterAll(async () => {
    if (serverUrl) await dropPostgresDatabase(serverUrl, name);
  });
  return () => url;
}

describe.skipIf(serverUrl === null)("prepared statements", () => {
  const databaseUrl = suiteDatabase("kith_prepared");

  /** The statements the pool's one connection has prepared. */
  async function prepared(storage: ReturnType<typeof createPostgresStorage>): Promise<string[]> {
    const { rows } = await sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`.execute(storage.db);
    return rows.map((row) => row.statement);
  }

  const readSettings = (storage: ReturnType<typeof createPostgresStorage>) =>
    storage.db.selectFrom("instance_settings").selectAll().where("key", "=", "k").execute();

  it("prepares a statement on its second run, and runs it again anew after another process changed its table", async () => {
    const storage = createPostgresStorage({ connectionString: databaseUrl(), max: 1 });
    try {
      await storage.migrate(coreMigrations);
      await storage.db.insertInto("instance_settings").values({ key: "k", value: "1", updated_at: "2026-03-01T10:00:00.000Z" }).execute();
      await readSettings(storage);
      expect((await prepared(storage)).some((text) => text.includes('from "instance_settings"'))).toBe(false);
      await readSettings(storage);
      expect((await prepared(storage)).some((text) => text.includes('from "instance_settings"'))).toBe(true);
      expect(await readSettings(storage)).toEqual([{ key: "k", value: "1", updated_at: "2026-03-01T10:00:00.000Z" }]);

      const other = new pg.Client({ connectionString: databaseUrl() });
      await other.connect();
      await other.query("ALTER TABLE instance_settings ADD COLUMN note text");
      await other.end();
      // The prepared `SELECT *` no longer describes the table: that run is repeated unnamed, later ones prepared anew.
      const changed = [{ key: "k", value: "1", updated_at: "2026-03-01T10:00:00.000Z", note: null }];
      expect(await readSettings(storage)).toEqual(changed);
      await readSettings(storage);
      expect(await readSettings(storage)).toEqual(changed);
      expect((await prepared(storage)).filter((text) => text.includes('from "instance_settings"'))).toHaveLength(2);
    } finally {
      await storage.close();
    }
  });

  it("tells a transaction that ran into a stale prepared statement why it failed", async () => {
    const storage = createPostgresStorage({ connectionString: databaseUrl(), max: 1 });
    try {
      await storage.migrate(coreMigrations);
      await readSettings(storage);
      await readSettings(storage);
      const other = new pg.Client({ connectionString: databaseUrl() });
      await other.connect();
      await other.query("ALTER TABLE instance_settings ADD COLUMN remark text");
      await other.end();
      await expect(
        storage.transaction((trx) => trx.selectFrom("instance_settings").selectAll().where("key", "=", "k").execute()),
      ).rejects.toThrow(/cached plan must not change result type/);
      expect((await readSettings(storage))[0]).toHaveProperty("remark", null);
    } finally {
      await storage.close();
    }
  });

  it("keeps a statement prepared in a transaction that was rolled back", async () => {
    const storage = createPostgresStorage({ connectionString: databaseUrl(), max: 1 });
    try {
      await storage.migrate(coreMigrations);
      const failed = storage.transaction(async (trx) => {
        await trx.selectFrom("roles").select("id").where("id", "=", "none").execute();
        await trx.selectFrom("roles").select("id").where("id", "=", "none").execute();
        throw new Error("rolled back");
      });
      await expect(failed).rejects.toThrow("rolled back");
      expect((await prepared(storage)).some((text) => text.includes('from "roles"'))).toBe(true);
      expect(await storage.db.selectFrom("roles").select("id").where("id", "=", "none").execute()).toEqual([]);
    } finally {
      await storage.close();
    }
  });

  it("runs every statement unnamed when told to", async () => {
    const storage = createPostgresStorage({ connectionString: databaseUrl(), max: 1, prepareStatements: false });
    try {
      for (let i = 0; i < 3; i++) await readSettings(storage);
      expect(await prepared(storage)).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});

describe.skipIf(serverUrl === null)("session settings", () => {
  const databaseUrl = suiteDatabase("kith_settings");

  it("runs without JIT on every connection of its pool, as the server's default has it on", async () => {
    const storage = createPostgresStorage({ connectionString: databaseUrl(), max: 3 });
    try {
      // Three connections at once, each asked on its own: the setting must hold for every one the pool opens.
      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          storage.transaction(async (trx) => {
            const { rows } = await sql<{
              jit: string;
              pid: number;
            }>`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(trx);
            return rows[0];
          }),
        ),
      );
      expect(answers.map((answer) => answer?.jit)).toEqual(["off", "off", "off"]);
      expect(new Set(answers.map((answer) => answer?.pid)).size).toBe(3);
      const { rows } = await sql<{ jit: string }>`SELECT reset_val AS jit FROM pg_settings WHERE name = 'jit'`.execute(storage.db);
      expect(rows[0]?.jit).toBe("on");
    } finally {
      await storage.close();
    }
  });
});
