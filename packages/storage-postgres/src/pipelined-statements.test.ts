import type { Database, Storage } from "@kith/core";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { createPostgresStorage } from "./postgres-storage.js";

// The ProvidedContext keys are declared in contract.test.ts.
const serverUrl = inject("postgresUrl") ?? null;

/** The statements given at once to a transaction opened with `concurrentStatements`, as they reach the socket. */
describe.skipIf(serverUrl === null)("a transaction's statements given at once", () => {
  let pool: pg.Pool;
  let storage: Storage;
  /** Writes to the database server's socket (one `write` or `writev` each), on the pool's one connection. */
  let writes = 0;
  let connection: { pipeline?: boolean } | undefined;

  beforeAll(async () => {
    // One connection, so that every statement of the test goes over the socket counted.
    pool = new pg.Pool({ connectionString: serverUrl ?? "", max: 1 });
    pool.on("connect", (client) => {
      connection = client as unknown as { pipeline?: boolean };
      const stream = (client as unknown as { connection: { stream: { _write: Counted; _writev: Counted } } }).connection.stream;
      for (const method of ["_write", "_writev"] as const) {
        const original = stream[method].bind(stream);
        stream[method] = (...args) => {
          writes++;
          return original(...args);
        };
      }
    });
    // On even when a run turns the speed-ups off (KITH_OPTIMISATIONS_OFF): it is what these tests are about.
    storage = createPostgresStorage({ pool, beginWithFirstStatement: true, pipelining: true });
    await sql`drop table if exists pipelined`.execute(storage.db);
    await sql`create table pipelined (n int primary key)`.execute(storage.db);
  });

  afterAll(async () => {
    await sql`drop table if exists pipelined`.execute(storage.db);
    await storage.close();
    await pool.end();
  });

  beforeEach(async () => {
    await sql`delete from pipelined`.execute(storage.db);
  });

  const insert = (n: number) => sql`insert into pipelined (n) values (${n})`;
  const stored = async () => (await sql<{ n: number }>`select n from pipelined order by n`.execute(storage.db)).rows.map((row) => row.n);

  it("sends the statements of one turn in one write, its `begin` with them, and commits them", async () => {
    writes = 0;
    await storage.transaction(async (trx) => Promise.all([1, 2, 3, 4].map((n) => insert(n).execute(trx))), { concurrentStatements: true });
    // One write for `begin` and the four inserts, one for `commit`.
    expect(writes).toBe(2);
    expect(await stored()).toEqual([1, 2, 3, 4]);
    // The same work without the option: a write for each insert (the first carrying `begin`), and the commit.
    writes = 0;
    await storage.transaction(async (trx) => Promise.all([5, 6, 7, 8].map((n) => insert(n).execute(trx))));
    expect(writes).toBe(5);
  });

  it("sends them one after another, without the pipelining capability, when turned off", async () => {
    const plain = createPostgresStorage({ pool, beginWithFirstStatement: true, pipelining: false, prepareStatements: false });
    expect(plain.capabilities?.pipelining).toBe(false);
    writes = 0;
    await plain.transaction(async (trx) => Promise.all([1, 2, 3, 4].map((n) => insert(n).execute(trx))), { concurrentStatements: true });
    expect(writes).toBe(5);
    expect(await stored()).toEqual([1, 2, 3, 4]);
  });

  it("runs prepared statements given at once on the same connection, each answered with its own rows", async () => {
    const double = (n: number) => sql<{ twice: number }>`select ${n}::int * 2 as twice`;
    // Seen once unprepared, then named: the first of the ones given at once prepares it for the others.
    await double(0).execute(storage.db);
    for (let round = 0; round < 3; round++) {
      const answers = await storage.transaction(
        async (trx) => Promise.all([1, 2, 3].map(async (n) => (await double(n + round).execute(trx)).rows[0]?.twice)),
        { concurrentStatements: true },
      );
      expect(answers).toEqual([1, 2, 3].map((n) => 2 * (n + round)));
    }
  });

  it("fails the statements after a failed one, rolls all back, and leaves the connection as it was", async () => {
    await insert(2).execute(storage.db);
    const outcomes = await storage
      .transaction(
        async (trx) => {
          const settled = await Promise.allSettled([1, 2, 3].map((n) => insert(n).execute(trx)));
          const failed = settled.find((outcome) => outcome.status === "rejected");
          if (failed) throw Object.assign(new Error("one failed"), { settled });
          return settled;
        },
        { concurrentStatements: true },
      )
      .catch((error: { settled: PromiseSettledResult<unknown>[] }) => error.settled);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "rejected"]);
    // The duplicate key; then the statement sent behind it, refused in the aborted transaction.
    expect(outcomes.map((outcome) => (outcome.status === "rejected" ? (outcome.reason as { code?: string }).code : null))).toEqual([
      null,
      "23505",
      "25P02",
    ]);
    expect(await stored()).toEqual([2]);
    // Back in the pool, the connection is out of pipeline mode, and its next transaction commits as any other.
    expect(connection?.pipeline).toBe(false);
    await storage.transaction(async (trx) => {
      await insert(4).execute(trx);
      await insert(5).execute(trx);
    });
    expect(await stored()).toEqual([2, 4, 5]);
  });

  it("refuses a statement given to the handle once the transaction has ended", async () => {
    let handle: Kysely<Database> | undefined;
    await storage.transaction(
      async (trx) => {
        handle = trx;
        await insert(1).execute(trx);
      },
      { concurrentStatements: true },
    );
    if (!handle) throw new Error("the work did not run");
    await expect(insert(2).execute(handle)).rejects.toThrow(/already committed/);
    expect(await stored()).toEqual([1]);
  });
});

type Counted = (...args: unknown[]) => unknown;
