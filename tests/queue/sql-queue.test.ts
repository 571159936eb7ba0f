import { type JobHandler, MonotonicIdGenerator, SqlQueue, type Storage, systemClock, systemRandom } from "@kith/core";
import { eventually, sleep } from "@kith/core/testing";
import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  sql,
} from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeIfPostgres } from "../support/real-servers.js";
import { type QueueStore, endJob, finishJob } from "../../packages/core/src/platform/queue/job-transitions.js";
import { StatementCounter, countedStorage } from "../support/statement-counter.js";
import { type TestDatabase, postgresDatabase, sqliteMemoryDatabase } from "./engines.js";

/**
 * What the SQL queue does beyond the port's contract (which the storage
 * adapters' packages run): deduplication keys when jobs go back to waiting,
 * jobs of dead workers, rows written by hand, configuration changed through
 * another process, schedules replaced, shutdown in the middle of a job.
 */

const ids = new MonotonicIdGenerator(systemClock, systemRandom);

function queueOn(
  storage: Storage,
  options: {
    processId?: string;
    leaseMs?: number;
    pollIntervalMs?: number;
    idlePollIntervalMs?: number;
    finishedJobRetentionMs?: number;
  } = {},
): SqlQueue {
  return new SqlQueue({ storage, ids, pollIntervalMs: 20, heartbeatIntervalMs: 100, ...options });
}

/** A job row as an older version, another tool or a dead process may have left it. */
async function insertRow(
  storage: Storage,
  row: { id: string; state: string; payload: string; tries: number; maxAttempts: number; lockedUntil?: string; finishedAt?: string },
): Promise<void> {
  const now = new Date().toISOString();
  const ranAt = row.finishedAt ?? now;
  await storage.db
    .insertInto("jobs")
    .values({
      id: row.id,
      queue: "work",
      state: row.state as "waiting",
      payload: row.payload,
      tries: row.tries,
      max_attempts: row.maxAttempts,
      backoff_base_ms: 10,
      backoff_max_ms: 100,
      run_at: ranAt,
      deduplication_key: null,
      ordering_key: null,
      locked_by: row.state === "active" ? "a-process-that-died" : null,
      locked_until: row.lockedUntil ?? null,
      last_error: null,
      created_at: now,
      started_at: row.state === "active" ? now : (row.finishedAt ?? null),
      finished_at: row.finishedAt ?? null,
      updated_at: now,
    })
    .execute();
}

/** Counts the statements that claim jobs. */
class ClaimCounter implements KyselyPlugin {
  claims = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (args.node.kind === "RawNode" && args.node.sqlFragments.join("").includes("SET state = 'active'")) this.claims++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

function latch(): { promise: Promise<void>; open(): void } {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

function defineCases(openDatabase: () => Promise<TestDatabase>, options: { multiProcess: boolean }): void {
  let database: TestDatabase;
  let queues: SqlQueue[];

  beforeEach(async () => {
    database = await openDatabase();
    queues = [];
  });

  afterEach(async () => {
    await Promise.all(queues.map((queue) => queue.stop()));
    await database.close();
  });

  function track(queue: SqlQueue): SqlQueue {
    queues.push(queue);
    return queue;
  }

  it("refills a busy queue's slots half its concurrency at a time, not with one claim per finished job", async () => {
    const counter = new ClaimCounter();
    // Polls only when woken (an enqueue here, a finished job), so every claim is one the jobs caused.
    const queue = track(queueOn(countedStorage(database.storage, counter), { pollIntervalMs: 600_000 }));
    let done = 0;
    queue.handle(
      "deliveries",
      async () => {
        await sleep(1);
        done += 1;
      },
      { concurrency: 16 },
    );
    await queue.start();
    counter.claims = 0;
    await queue.enqueueMany(
      "deliveries",
      Array.from({ length: 100 }, (_, n) => ({ n })),
    );
    await eventually(async () => expect((await queue.counts("deliveries")).finished).toBe(100));
    expect(done).toBe(100);
    // 16 at first, then 8 at a time: about 12 claims (one per finished job would be about 90).
    expect(counter.claims).toBeLessThanOrEqual(16);
  });

  it("polls an idle queue less and less often, and still works a job enqueued here at once", async () => {
    const counter = new ClaimCounter();
    const queue = track(queueOn(countedStorage(database.storage, counter), { pollIntervalMs: 20, idlePollIntervalMs: 640 }));
    const seen: unknown[] = [];
    queue.handle("quiet", async (payload) => {
      seen.push(payload);
    });
    await queue.start();
    counter.claims = 0;
    await sleep(1_000);
    // Every 20 ms that would be about 50 claims; waits of 20, 40, 80, 160, 320 and 640 ms make at most 7.
    expect(counter.claims).toBeLessThanOrEqual(8);
    expect(counter.claims).toBeGreaterThan(0);
    await queue.enqueue("quiet", { n: 1 });
    await eventually(() => expect(seen).toEqual([{ n: 1 }]));
  });

  it("looks again within the poll interval for a job written in a transaction, however long the idle wait had grown", async () => {
    // An idle wait of ten minutes: only the transaction's enqueue can bring the poll back in time.
    const queue = track(queueOn(database.storage, { pollIntervalMs: 20, idlePollIntervalMs: 600_000 }));
    const seen: unknown[] = [];
    queue.handle("later", async (payload) => {
      seen.push(payload);
    });
    await queue.start();
    await sleep(400);
    await database.storage.transaction(async (trx) => {
      await queue.enqueue("later", { n: 2 }, { db: trx });
    });
    await eventually(() => expect(seen).toEqual([{ n: 2 }]));
  });

  it("drops the deduplication key of a job going back to waiting when another job of its key waits", async () => {
    const queue = track(queueOn(database.storage));
    const firstAttempt = latch();
    const attempts: string[] = [];
    queue.handle("refresh", async (_payload, context) => {
      attempts.push(`${context.id}#${context.attempt}`);
      if (context.attempt === 1) {
        await firstAttempt.promise;
        throw new Error("the remote server is down");
      }
    });
    await queue.start();
    const running = await queue.enqueue(
      "refresh",
      { n: 1 },
      { deduplicationKey: "refresh:alice", maxAttempts: 3, backoff: { baseMs: 20 } },
    );
    await eventually(async () => expect((await queue.get(running.id))?.status).toBe("active"));
    // The running job no longer waits, so this one is written beside it.
    const waiting = await queue.enqueue("refresh", { n: 2 }, { deduplicationKey: "refresh:alice", delayMs: 60_000 });
    expect(waiting.id).not.toBe(running.id);
    firstAttempt.open();
    await eventually(async () => expect((await queue.get(running.id))?.status).toBe("finished"));
    expect((await queue.get(running.id))?.deduplicationKey).toBeNull();
    expect((await queue.get(waiting.id))?.deduplicationKey).toBe("refresh:alice");
    expect((await queue.enqueue("refresh", { n: 3 }, { deduplicationKey: "refresh:alice" })).id).toBe(waiting.id);
    expect(attempts).toEqual([`${running.id}#1`, `${running.id}#2`]);
  });

  it("retries all failed jobs of one deduplication key at once, the newest keeping the key", async () => {
    const queue = track(queueOn(database.storage));
    let healthy = false;
    queue.handle("sync", async () => {
      if (!healthy) throw new Error("no");
    });
    await queue.start();
    const older = await queue.enqueue("sync", { n: 1 }, { deduplicationKey: "sync:bob", maxAttempts: 1 });
    await eventually(async () => expect((await queue.get(older.id))?.status).toBe("failed"));
    const newer = await queue.enqueue("sync", { n: 2 }, { deduplicationKey: "sync:bob", maxAttempts: 1 });
    expect(newer.id).not.toBe(older.id);
    await eventually(async () => expect((await queue.counts("sync")).failed).toBe(2));
    healthy = true;
    await queue.stop();
    expect(await queue.retryAll("sync")).toBe(2);
    expect((await queue.get(older.id))?.deduplicationKey).toBeNull();
    expect((await queue.get(newer.id))?.deduplicationKey).toBe("sync:bob");
    await queue.start();
    await eventually(async () => expect((await queue.counts("sync")).finished).toBe(2));
  });

  it("takes up the job of a worker whose lease ran out, and fails it when that was its last try", async () => {
    const expired = new Date(Date.now() - 1_000).toISOString();
    await insertRow(database.storage, {
      id: ids.next("job"),
      state: "active",
      payload: '{"n":1}',
      tries: 1,
      maxAttempts: 3,
      lockedUntil: expired,
    });
    const lastTry = ids.next("job");
    await insertRow(database.storage, { id: lastTry, state: "active", payload: '{"n":2}', tries: 3, maxAttempts: 3, lockedUntil: expired });
    const held = ids.next("job");
    const future = new Date(Date.now() + 60_000).toISOString();
    await insertRow(database.storage, { id: held, state: "active", payload: '{"n":3}', tries: 1, maxAttempts: 3, lockedUntil: future });
    const queue = track(queueOn(database.storage));
    const seen: unknown[] = [];
    queue.handle("work", async (payload, context) => {
      seen.push({ payload, attempt: context.attempt });
    });
    await queue.start();
    await eventually(() => expect(seen).toEqual([{ payload: { n: 1 }, attempt: 2 }]));
    await eventually(async () => expect((await queue.get(lastTry))?.status).toBe("failed"));
    expect((await queue.get(lastTry))?.lastError).toContain("lease");
    // The handler returns before its job is marked finished, so the count may lag the call.
    await eventually(async () => expect((await queue.statsPerDay(1, "work")).at(-1)).toMatchObject({ finished: 1, failed: 1 }));
    // A job whose lease still runs belongs to its (live) worker.
    await sleep(100);
    expect((await queue.get(held))?.status).toBe("active");
  });

  it("ends an attempt and counts it together, and neither for an attempt it no longer holds", async () => {
    const future = new Date(Date.now() + 60_000).toISOString();
    const active = async () => {
      const id = ids.next("job");
      await insertRow(database.storage, { id, state: "active", payload: "{}", tries: 1, maxAttempts: 3, lockedUntil: future });
      return { id, queue: "work", tries: 1 };
    };
    // insertRow's active jobs are held by this process id.
    const holder = "a-process-that-died";
    const now = new Date();
    const today = async () => (await track(queueOn(database.storage)).statsPerDay(1, "work")).at(-1);

    const done = await active();
    // Where a statement's `with` may write, one statement outside a transaction: the counts' row is locked the
    // database server's own time only.
    const counter = new StatementCounter();
    const counted = countedStorage(database.storage, counter);
    let transactions = 0;
    const store: QueueStore = {
      db: counted.db,
      capabilities: counted.capabilities,
      transaction: (work) => {
        transactions++;
        return counted.transaction(work);
      },
    };
    expect(await finishJob(store, done, holder, now)).toBe(true);
    expect({ statements: counter.count, transactions }).toEqual(
      database.storage.capabilities.writingWith ? { statements: 1, transactions: 0 } : { statements: 2, transactions: 1 },
    );
    expect(
      (await database.storage.db.selectFrom("jobs").selectAll().where("id", "=", done.id).executeTakeFirstOrThrow()).locked_by,
    ).toBeNull();
    // The same attempt again, another process's, an older try's: none holds the job, and nothing is counted.
    expect(await finishJob(database.storage, done, holder, now)).toBe(false);
    const taken = await active();
    expect(await finishJob(database.storage, taken, "another-process", now)).toBe(false);
    expect(await endJob(database.storage, { ...taken, tries: 2 }, holder, { state: "failed", error: "no" }, now)).toBe(false);
    expect((await track(queueOn(database.storage)).get(taken.id))?.status).toBe("active");
    expect(await today()).toMatchObject({ finished: 1, failed: 0 });

    expect(await endJob(database.storage, taken, holder, { state: "failed", error: "no" }, now)).toBe(true);
    expect((await track(queueOn(database.storage)).get(taken.id))?.lastError).toBe("no");
    // Many at once, as a queue's workers finish: each counted once.
    const many = await Promise.all(Array.from({ length: 12 }, active));
    expect(await Promise.all(many.map((claim) => finishJob(database.storage, claim, holder, now)))).toEqual(many.map(() => true));
    expect(await today()).toMatchObject({ finished: 13, failed: 1 });
  });

  it("deletes finished jobs past their retention, and keeps newer finished, failed and waiting ones", async () => {
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    const old = ids.next("job");
    await insertRow(database.storage, { id: old, state: "finished", payload: "{}", tries: 1, maxAttempts: 3, finishedAt: daysAgo(10) });
    const recent = ids.next("job");
    await insertRow(database.storage, { id: recent, state: "finished", payload: "{}", tries: 1, maxAttempts: 3, finishedAt: daysAgo(1) });
    const failed = ids.next("job");
    await insertRow(database.storage, { id: failed, state: "failed", payload: "{}", tries: 3, maxAttempts: 3, finishedAt: daysAgo(10) });
    const queue = track(queueOn(database.storage, { finishedJobRetentionMs: 7 * 86_400_000 }));
    queue.handle("work", async () => {});
    await queue.start();
    await eventually(async () => expect(await queue.get(old)).toBeNull());
    expect((await queue.get(recent))?.status).toBe("finished");
    expect((await queue.get(failed))?.status).toBe("failed");
    // A job of today runs and finishes, and stays listed.
    const today = await queue.enqueue("work", { n: 1 });
    await eventually(async () => expect((await queue.get(today.id))?.status).toBe("finished"));
  });

  it("sends a stored payload that is not JSON to the dead-letter list without calling the handler", async () => {
    const id = ids.next("job");
    await insertRow(database.storage, { id, state: "waiting", payload: "{written by hand", tries: 0, maxAttempts: 5 });
    const queue = track(queueOn(database.storage));
    let calls = 0;
    queue.handle("work", async () => {
      calls += 1;
    });
    await queue.start();
    await eventually(async () => expect((await queue.get(id))?.status).toBe("dlq"));
    const record = await queue.get(id);
    expect(record).toMatchObject({ payload: null, rawPayload: "{written by hand", tries: 1 });
    expect(record?.lastError).toContain("not valid JSON");
    expect(calls).toBe(0);
  });

  it("gives back a job whose handler stopped because the worker is stopping, its attempt not counted", async () => {
    const queue = track(queueOn(database.storage));
    queue.handle("long", async (_payload, context) => {
      await new Promise<void>((_, reject) => {
        context.signal.addEventListener("abort", () => reject(new Error("stopped")));
      });
    });
    await queue.start();
    const job = await queue.enqueue("long", {});
    await eventually(async () => expect((await queue.get(job.id))?.status).toBe("active"));
    await queue.stop();
    expect(await queue.get(job.id)).toMatchObject({ status: "submitted", tries: 0 });
  });

  it("keeps a replaced schedule's next run when its interval is unchanged", async () => {
    const queue = track(queueOn(database.storage));
    const nextRun = async () =>
      (await database.storage.db.selectFrom("job_schedules").select("next_run_at").where("name", "=", "digest").executeTakeFirstOrThrow())
        .next_run_at;
    await queue.schedule({ name: "digest", queue: "mail", everyMs: 3_600_000, payload: { kind: "daily" } });
    const first = await nextRun();
    await sleep(5);
    await queue.schedule({ name: "digest", queue: "mail", everyMs: 3_600_000, payload: { kind: "daily", v: 2 } });
    expect(await nextRun()).toBe(first);
    await queue.schedule({ name: "digest", queue: "mail", everyMs: 60_000, payload: {} });
    expect(Date.parse(await nextRun())).toBeLessThan(Date.parse(first));
    await queue.unschedule("digest");
    await queue.unschedule("digest");
    expect(await database.storage.db.selectFrom("job_schedules").selectAll().execute()).toEqual([]);
  });

  it("does not list processes whose heartbeat stopped", async () => {
    const queue = track(queueOn(database.storage, { processId: "this-one" }));
    const old = new Date(Date.now() - 60_000).toISOString();
    await database.storage.db
      .insertInto("job_processes")
      .values({ id: "gone", hostname: "elsewhere", pid: 1, started_at: old, last_heartbeat_at: old })
      .execute();
    queue.handle("any", async () => {});
    await queue.start();
    expect((await queue.processes()).map((entry) => entry.id)).toEqual(["this-one"]);
    await queue.stop();
    expect(await queue.processes()).toEqual([]);
  });

  it("stores many jobs at once in the order given, each taking the queue's max retries, and runs them all", async () => {
    const queue = track(queueOn(database.storage));
    const seen: number[] = [];
    queue.handle(
      "fan",
      async (payload) => {
        seen.push((payload as { n: number }).n);
      },
      { concurrency: 1, maxRetries: 2 },
    );
    await queue.start();
    const jobs = await queue.enqueueMany("fan", [{ n: 1 }, { n: 2 }, { n: 3 }], { backoff: { baseMs: 20 } });
    expect(jobs.map((job) => job.queue)).toEqual(["fan", "fan", "fan"]);
    await eventually(async () => expect((await queue.counts("fan")).finished).toBe(3));
    expect(seen).toEqual([1, 2, 3]);
    const records = await Promise.all(jobs.map((job) => queue.get(job.id)));
    expect(records.map((record) => record?.maxAttempts)).toEqual([3, 3, 3]);
    // With a deduplication key each goes through the key's check: the second joins the first.
    const deduplicated = await queue.enqueueMany("fan", [{ n: 4 }, { n: 5 }], { deduplicationKey: "fan:once", delayMs: 60_000 });
    expect(deduplicated[1]?.id).toBe(deduplicated[0]?.id);
    expect(await queue.enqueueMany("fan", [])).toEqual([]);
  });

  it("runs a job enqueued in a transaction by another job's handler, after a claim that found the queue empty", async () => {
    const queue = track(queueOn(database.storage, {}));
    const ran: string[] = [];
    queue.handle("chain", async (payload) => {
      const step = (payload as { step: string }).step;
      ran.push(step);
      if (step === "first") {
        await database.storage.transaction(async (trx) => {
          await queue.enqueue("chain", { step: "second" }, { db: trx });
        });
      }
    });
    await queue.start();
    await queue.enqueue("chain", { step: "first" });
    await eventually(async () => expect(ran).toEqual(["first", "second"]));
  });

  it("refuses invalid queue settings", async () => {
    const queue = track(queueOn(database.storage));
    queue.handle("tuned", async () => {});
    await queue.start();
    await expect(queue.configureQueue("tuned", { concurrency: 0 })).rejects.toMatchObject({ code: "request.validation_failed" });
    await expect(queue.schedule({ name: "bad", queue: "tuned", everyMs: 0, payload: {} })).rejects.toMatchObject({
      code: "request.validation_failed",
    });
  });

  it.runIf(options.multiProcess)("applies a queue's configuration changed through another process without a restart", async () => {
    const worker = track(queueOn(database.storage, { processId: "worker" }));
    const admin = track(queueOn(database.open(), { processId: "admin" }));
    const seen: number[] = [];
    const handler: JobHandler = async (payload) => {
      seen.push((payload as { n: number }).n);
    };
    worker.handle("switchable", handler);
    await worker.start();
    await admin.configureQueue("switchable", { enabled: false });
    // Other processes re-read the configuration every second.
    await sleep(1_300);
    await admin.enqueue("switchable", { n: 1 });
    await sleep(300);
    expect(seen).toEqual([]);
    await admin.configureQueue("switchable", { enabled: true });
    await eventually(() => expect(seen).toEqual([1]), { timeoutMs: 3_000 });
  });

  it.runIf(options.multiProcess)("enqueues each run of a repeating job once, whichever process sees it due", async () => {
    const first = track(queueOn(database.storage, { processId: "first" }));
    const second = track(queueOn(database.open(), { processId: "second" }));
    let runs = 0;
    for (const queue of [first, second]) {
      queue.handle("tick", async () => {
        runs += 1;
      });
    }
    await first.schedule({ name: "every-50ms", queue: "tick", everyMs: 50, payload: {} });
    const startedAt = Date.now();
    await Promise.all([first.start(), second.start()]);
    await sleep(1_000);
    await first.unschedule("every-50ms");
    const elapsed = Date.now() - startedAt;
    await sleep(100);
    // Both processes poll every 20 ms; each 50 ms run is enqueued by one of them only.
    expect(runs).toBeGreaterThan(3);
    expect(runs).toBeLessThanOrEqual(Math.ceil(elapsed / 50) + 1);
    const total = await sql<{ n: number }>`SELECT count(*) AS n FROM jobs WHERE queue = 'tick'`.execute(database.storage.db);
    expect(Number(total.rows[0]?.n)).toBe(runs);
  });
}

describeIfPostgres("sql queue on postgres, when the database goes away under a job", () => {
  let database: TestDatabase;
  let queue: SqlQueue;
  beforeEach(async () => {
    database = await postgresDatabase();
    queue = queueOn(database.storage);
  });
  afterEach(async () => {
    await queue.stop();
    await database.close();
  });

  it("gives the job back, its attempt not counted, and runs it again", async () => {
    const attempts: number[] = [];
    queue.handle("fragile", async (_payload, context) => {
      attempts.push(context.attempt);
      // The first attempt's connection is ended by the server, as a restart of PostgreSQL would end it.
      if (attempts.length === 1) await sql`SELECT pg_terminate_backend(pg_backend_pid())`.execute(database.storage.db);
    });
    await queue.start();
    const job = await queue.enqueue("fragile", {}, { maxAttempts: 1 });
    await eventually(async () => expect((await queue.get(job.id))?.status).toBe("finished"), { timeoutMs: 10_000 });
    expect(attempts).toEqual([1, 1]);
    expect(await queue.get(job.id)).toMatchObject({ tries: 1, lastError: null });
  });
});

describe("sql queue on sqlite, beyond the contract", () => defineCases(sqliteMemoryDatabase, { multiProcess: false }));
describeIfPostgres("sql queue on postgres, beyond the contract", () => defineCases(postgresDatabase, { multiProcess: true }));
