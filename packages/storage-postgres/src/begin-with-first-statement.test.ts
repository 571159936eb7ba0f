import { coreMigrations } from "@kith/core";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createPostgresDatabase, dropPostgresDatabase } from "./admin.js";
import { TransactionStart } from "./begin-with-first-statement.js";
import { createPostgresStorage } from "./postgres-storage.js";

// The ProvidedContext keys are declared in contract.test.ts.
const serverUrl = inject("postgresUrl") ?? null;

const AT = "2026-03-01T10:00:00.000Z";

/** The protocol connection under a pg client, whose messages it emits as events. */
function connectionOf(client: pg.ClientBase): NodeJS.EventEmitter {
  return (client as unknown as { connection: NodeJS.EventEmitter }).connection;
}

describe.skipIf(serverUrl === null)("a transaction's begin sent with its first statement", () => {
  const name = `kith_begin_${process.pid}_${randomBytes(3).toString("hex")}`;
  let url = "";
  let pool: pg.Pool;
  let storage: ReturnType<typeof createPostgresStorage>;
  /** Round trips of the storage's connection: one ReadyForQuery closes each. */
  let roundTrips = 0;
  let other: pg.Client;

  beforeAll(async () => {
    url = await createPostgresDatabase(serverUrl ?? "", name);
    // One connection, lent by the test so that its answers can be counted.
    pool = new pg.Pool({ connectionString: url, max: 1 });
    pool.on("connect", (client) => {
      connectionOf(client).on("readyForQuery", () => roundTrips++);
    });
    // On even when a run turns the speed-ups off (KITH_OPTIMISATIONS_OFF): it is what these tests are about.
    storage = createPostgresStorage({ pool, beginWithFirstStatement: true });
    await storage.migrate(coreMigrations);
    other = new pg.Client({ connectionString: url });
    await other.connect();
  });

  afterAll(async () => {
    await other?.end();
    await storage?.close();
    await pool?.end();
    if (serverUrl) await dropPostgresDatabase(serverUrl, name);
  });

  beforeEach(async () => {
    await storage.db.deleteFrom("instance_settings").execute();
  });

  const insert = (db: typeof storage.db, key: string) =>
    db.insertInto("instance_settings").values({ key, value: "1", updated_at: AT }).execute();

  /** The keys another connection sees: what has been committed. */
  async function committedKeys(): Promise<string[]> {
    const { rows } = await other.query<{ key: string }>("SELECT key FROM instance_settings ORDER BY key");
    return rows.map((row) => row.key);
  }

  it("costs its statements and a commit, one round trip fewer than begin apart", async () => {
    await storage.db.selectFrom("instance_settings").selectAll().execute();
    roundTrips = 0;
    await storage.transaction(async (trx) => {
      await insert(trx, "a");
      await insert(trx, "b");
    });
    expect(roundTrips).toBe(3);
    expect(await committedKeys()).toEqual(["a", "b"]);
  });

  it("runs its first statement inside the transaction: unseen until the commit, undone by a rollback", async () => {
    await storage.transaction(async (trx) => {
      await insert(trx, "a");
      expect(await committedKeys()).toEqual([]);
    });
    expect(await committedKeys()).toEqual(["a"]);
    const failure = new Error("changed my mind");
    await expect(
      storage.transaction(async (trx) => {
        await insert(trx, "b");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await committedKeys()).toEqual(["a"]);
  });

  it("sends a held-back begin on its own ahead of what cannot carry it, which then runs inside the transaction", async () => {
    const client = await pool.connect();
    try {
      const start = new TransactionStart(client);
      // Outside a transaction block PostgreSQL refuses a savepoint: the refusal tells whether `begin` went first.
      await expect(client.query("savepoint outside")).rejects.toThrow(/transaction blocks/);
      await start.control("begin", []);
      start.flush();
      await client.query("savepoint inside");
      await client.query("insert into instance_settings (key, value, updated_at) values ('flushed', '1', $1)", [AT]);
      expect(await committedKeys()).toEqual([]);
      await client.query("rollback");
      expect(await committedKeys()).toEqual([]);
      // Nothing held: a second flush sends nothing, and the client is back outside any transaction.
      roundTrips = 0;
      // pg rejects a query on its error, which may come before the ReadyForQuery that ends its round trip.
      const answered = new Promise((resolve) => connectionOf(client).once("readyForQuery", resolve));
      start.flush();
      await expect(client.query("savepoint after")).rejects.toThrow(/transaction blocks/);
      await answered;
      expect(roundTrips).toBe(1);
    } finally {
      client.release();
    }
  });

  it("sends begin apart, a round trip of its own, when turned off", async () => {
    // Its statement names would clash with those of `storage` on the same connection: it names none.
    const plain = createPostgresStorage({ pool, beginWithFirstStatement: false, prepareStatements: false });
    await plain.db.selectFrom("instance_settings").selectAll().execute();
    roundTrips = 0;
    await plain.transaction(async (trx) => {
      await insert(trx, "a");
      await insert(trx, "b");
    });
    expect(roundTrips).toBe(4);
    expect(await committedKeys()).toEqual(["a", "b"]);
  });

  it("sends nothing for a transaction without statements", async () => {
    roundTrips = 0;
    await storage.transaction(async () => {});
    expect(roundTrips).toBe(0);
  });

  it("rolls back when the first statement fails, and leaves the connection outside any transaction", async () => {
    await insert(storage.db, "a");
    await expect(storage.transaction((trx) => insert(trx, "a"))).rejects.toThrow(/duplicate key/);
    // Autocommitted: another connection sees it at once.
    await insert(storage.db, "b");
    expect(await committedKeys()).toEqual(["a", "b"]);
  });

  it("begins apart before a prepared statement new to the connection, and with it once the connection knows it", async () => {
    const read = (db: typeof storage.db, key: string) =>
      db.selectFrom("instance_settings").select("key").where("key", "=", key).where("updated_at", "<", AT).execute();
    // The second run of a text is the first under its name: not yet parsed on this connection.
    await read(storage.db, "x");
    roundTrips = 0;
    await storage.transaction(async (trx) => {
      await read(trx, "x");
      await insert(trx, "a");
    });
    expect(roundTrips).toBe(4);
    roundTrips = 0;
    await storage.transaction(async (trx) => {
      await read(trx, "x");
      await insert(trx, "b");
    });
    expect(roundTrips).toBe(3);
    expect(await committedKeys()).toEqual(["a", "b"]);
  });
});
