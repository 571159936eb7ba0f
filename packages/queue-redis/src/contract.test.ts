import { randomBytes } from "node:crypto";
import { MonotonicIdGenerator, type Storage, systemClock, systemRandom, coreMigrations } from "@kith/core";
import { type QueueUnderTest, describeQueueContract, eventually, sleep } from "@kith/core/testing";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { Redis } from "ioredis";
import { afterEach, beforeEach, expect, it } from "vitest";
import { describeIfPostgres, describeIfRedis, freshPostgresDatabase, redisUrl } from "../../../tests/support/real-servers.js";
import { createRedisQueue } from "./index.js";

function serverUrl(): string {
  const url = redisUrl();
  if (!url) throw new Error("No test Redis server: guard the suite with describeIfRedis");
  return url;
}

/** A key prefix of its own for every test, so tests share the server without seeing each other's jobs. */
function freshPrefix(): string {
  return `kt${randomBytes(5).toString("hex")}`;
}

async function freshStorage(): Promise<Storage> {
  const storage = createSqliteStorage({ filename: ":memory:" });
  await storage.migrate(coreMigrations);
  return storage;
}

/**
 * Redis "failing for a while", as the contract's poll-error case wants: while
 * broken, every connection of the queue under test (they are all named
 * after its key prefix) is killed as soon as it is seen, so BullMQ's polls
 * fail and its clients keep reconnecting.
 */
function connectionKiller(url: string, prefix: string): NonNullable<QueueUnderTest["faults"]> & { close(): Promise<void> } {
  const admin = new Redis(url, { connectionName: "kith-test-admin", lazyConnect: true });
  let timer: ReturnType<typeof setInterval> | undefined;
  const killAll = async (): Promise<void> => {
    const list = String(await admin.client("LIST"));
    for (const line of list.split("\n")) {
      const id = /(?:^| )id=(\d+)/.exec(line)?.[1];
      const name = / name=(\S*)/.exec(line)?.[1] ?? "";
      if (id && name.startsWith(`${prefix}:`)) await admin.client("KILL", "ID", id).catch(() => 0);
    }
  };
  return {
    break() {
      void killAll().catch(() => undefined);
      timer = setInterval(() => void killAll().catch(() => undefined), 20);
    },
    heal() {
      clearInterval(timer);
    },
    async close() {
      clearInterval(timer);
      await admin.quit().catch(() => undefined);
    },
  };
}

async function redisQueueUnderTest(): Promise<QueueUnderTest> {
  const url = serverUrl();
  const prefix = freshPrefix();
  const storage = await freshStorage();
  const queue = createRedisQueue({
    url,
    storage,
    ids: new MonotonicIdGenerator(systemClock, systemRandom),
    prefix,
    relayIntervalMs: 100,
    heartbeatIntervalMs: 200,
  });
  const faults = connectionKiller(url, prefix);
  return {
    queue,
    faults,
    transaction: (work) => storage.transaction((trx) => work(trx)),
    async close() {
      await faults.close();
      await storage.close();
    },
  };
}

describeIfRedis("redis queue", () => {
  describeQueueContract("redis", redisQueueUnderTest);
});

interface TestStorage {
  readonly storage: Storage;
  /** Closes the storage and drops what it made. */
  dispose(): Promise<void>;
}

async function sqliteStorage(): Promise<TestStorage> {
  const storage = await freshStorage();
  return { storage, dispose: () => storage.close() };
}

async function postgresStorage(): Promise<TestStorage> {
  const database = await freshPostgresDatabase();
  const storage = createPostgresStorage({ connectionString: database.url });
  await storage.migrate(coreMigrations);
  return {
    storage,
    async dispose() {
      await storage.close();
      await database.drop();
    },
  };
}

/** Behaviour across processes (queue instances sharing a key prefix), and the outbox, on one SQL engine. */
function describeSeveralProcesses(engine: string, open: () => Promise<TestStorage>): void {
  let storage: Storage;
  let opened: TestStorage;
  let prefix: string;
  const queues: { stop(): Promise<void> }[] = [];

  function queueOnServer(relayIntervalMs = 50): ReturnType<typeof createRedisQueue> {
    const queue = createRedisQueue({
      url: serverUrl(),
      storage,
      ids: new MonotonicIdGenerator(systemClock, systemRandom),
      prefix,
      relayIntervalMs,
      heartbeatIntervalMs: 200,
    });
    queues.push(queue);
    return queue;
  }

  async function outboxRows(): Promise<unknown[]> {
    return storage.db.selectFrom("job_outbox").selectAll().execute();
  }

  beforeEach(async () => {
    opened = await open();
    storage = opened.storage;
    prefix = freshPrefix();
  });

  afterEach(async () => {
    for (const queue of queues.splice(0)) await queue.stop();
    await opened.dispose();
  });

  it("runs a job committed by a process whose queue never started, relayed by another process", async () => {
    const producer = queueOnServer();
    const worker = queueOnServer();
    const seen: unknown[] = [];
    worker.handle("mail", async (payload) => {
      seen.push(payload);
    });
    await worker.start();
    const job = await storage.transaction((db) => producer.enqueue("mail", { to: "a@example.com" }, { db }));
    // Written in the transaction, before any Redis work.
    expect(job.id).toMatch(/^jb_/);
    await eventually(() => expect(seen).toEqual([{ to: "a@example.com" }]));
    await eventually(async () => expect((await producer.get(job.id))?.status).toBe("finished"));
    expect(await outboxRows()).toEqual([]);
  });

  it("leaves nothing anywhere when the transaction rolls back", async () => {
    const queue = queueOnServer();
    const seen: unknown[] = [];
    queue.handle("mail", async (payload) => {
      seen.push(payload);
    });
    await queue.start();
    await expect(
      storage.transaction(async (db) => {
        await queue.enqueue("mail", { kept: false }, { db });
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    await sleep(300);
    expect(seen).toEqual([]);
    expect(await outboxRows()).toEqual([]);
    expect(await queue.list({ limit: 10 })).toEqual([]);
    expect((await queue.counts()).submitted).toBe(0);
  });

  it("runs a job once when its outbox row is relayed again after a crash", async () => {
    const queue = queueOnServer();
    let runs = 0;
    queue.handle("once", async () => {
      runs += 1;
    });
    await queue.start();
    const job = await storage.transaction((db) => queue.enqueue("once", { n: 1 }, { db }));
    await eventually(async () => expect((await queue.get(job.id))?.status).toBe("finished"));
    // As if the relay had added the job to Redis but crashed before its delete committed.
    await storage.db
      .insertInto("job_outbox")
      .values({ id: job.id, queue: "once", payload: '{"n":1}', options: "{}", created_at: new Date().toISOString() })
      .execute();
    await eventually(async () => expect(await outboxRows()).toEqual([]));
    await sleep(200);
    expect(runs).toBe(1);
    expect((await queue.counts("once")).finished).toBe(1);
  });

  it("runs the jobs of an ordering key one at a time across worker processes", async () => {
    const processes = [queueOnServer(), queueOnServer()];
    const log: string[] = [];
    let running = new Set<string>();
    let overlap = false;
    for (const [index, queue] of processes.entries()) {
      queue.handle(
        "ordered",
        async (payload) => {
          const { key, n } = payload as { key: string; n: number };
          if (running.has(key)) overlap = true;
          running = new Set([...running, key]);
          log.push(`${key}${n}@${index}`);
          await sleep(15);
          running.delete(key);
        },
        { concurrency: 4 },
      );
    }
    for (let n = 1; n <= 4; n++) {
      for (const key of ["a", "b", "c"]) await processes[n % 2]?.enqueue("ordered", { key, n }, { orderingKey: key });
    }
    await Promise.all(processes.map((queue) => queue.start()));
    await eventually(async () => expect((await processes[0]?.counts("ordered"))?.finished).toBe(12));
    expect(overlap).toBe(false);
    for (const key of ["a", "b", "c"]) {
      expect(log.filter((entry) => entry.startsWith(key)).map((entry) => entry.slice(0, 2))).toEqual([1, 2, 3, 4].map((n) => `${key}${n}`));
    }
    // Both processes took work.
    expect(new Set(log.map((entry) => entry.split("@")[1])).size).toBe(2);
  });

  it("lets the rest of an ordering key run when a held job of it is deleted", async () => {
    const queue = queueOnServer();
    const log: number[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    queue.handle(
      "ordered",
      async (payload) => {
        const { n } = payload as { n: number };
        log.push(n);
        if (n === 1) await held;
      },
      { concurrency: 4 },
    );
    const jobs: { id: string }[] = [];
    for (let n = 1; n <= 3; n++) jobs.push(await queue.enqueue("ordered", { n }, { orderingKey: "k" }));
    await queue.start();
    await eventually(async () => expect((await queue.get(jobs[0]?.id ?? ""))?.status).toBe("active"));
    // Held back by the running first job, yet ready to run: submitted.
    expect((await queue.get(jobs[1]?.id ?? ""))?.status).toBe("submitted");
    await queue.remove(jobs[1]?.id ?? "");
    release();
    await eventually(async () => expect((await queue.counts("ordered")).finished).toBe(2));
    expect(log).toEqual([1, 3]);
  });

  it("deduplicates against waiting jobs, retries included, but not against a running one", async () => {
    const queue = queueOnServer();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    queue.handle(
      "refresh",
      async (payload) => {
        const { n } = payload as { n: number };
        if (n === 1) await held;
        if (n === 2) throw new Error("down");
      },
      { concurrency: 2 },
    );
    await queue.start();
    try {
      const running = await queue.enqueue("refresh", { n: 1 }, { deduplicationKey: "alice" });
      await eventually(async () => expect((await queue.get(running.id))?.status).toBe("active"));
      const next = await queue.enqueue("refresh", { n: 2 }, { deduplicationKey: "alice", maxAttempts: 3, backoff: { baseMs: 60_000 } });
      expect(next.id).not.toBe(running.id);
      await eventually(async () => expect((await queue.get(next.id))?.status).toBe("retries"));
      expect((await queue.enqueue("refresh", { n: 3 }, { deduplicationKey: "alice" })).id).toBe(next.id);
    } finally {
      release();
    }
  });

  it("keeps the order of relayed jobs that share an ordering key", async () => {
    const producer = queueOnServer();
    const worker = queueOnServer();
    const log: number[] = [];
    worker.handle(
      "ordered",
      async (payload) => {
        log.push((payload as { n: number }).n);
        await sleep(10);
      },
      { concurrency: 4 },
    );
    await storage.transaction(async (db) => {
      for (let n = 1; n <= 5; n++) await producer.enqueue("ordered", { n }, { db, orderingKey: "k" });
    });
    await worker.start();
    await eventually(async () => expect((await worker.counts("ordered")).finished).toBe(5));
    expect(log).toEqual([1, 2, 3, 4, 5]);
  });
  it(`relays each outbox row once when several processes relay side by side (${engine})`, async () => {
    const producer = queueOnServer();
    const workers = [queueOnServer(20), queueOnServer(20), queueOnServer(20)];
    const runs = new Map<number, number>();
    for (const worker of workers) {
      worker.handle(
        "fanout",
        async (payload) => {
          const { n } = payload as { n: number };
          runs.set(n, (runs.get(n) ?? 0) + 1);
        },
        { concurrency: 4 },
      );
    }
    await Promise.all(workers.map((worker) => worker.start()));
    await storage.transaction(async (db) => {
      for (let n = 0; n < 120; n++) await producer.enqueue("fanout", { n }, { db });
    });
    await eventually(async () => expect((await producer.counts("fanout")).finished).toBe(120));
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(runs.size).toBe(120);
    expect(await outboxRows()).toEqual([]);
  });
}

describeIfRedis("redis queue: several processes, and the transactional outbox on SQLite", () => {
  describeSeveralProcesses("sqlite", sqliteStorage);
});

describeIfRedis("redis queue: several processes, and the transactional outbox on PostgreSQL", () => {
  describeIfPostgres("with PostgreSQL", () => {
    describeSeveralProcesses("postgres", postgresStorage);
  });
});

describeIfRedis("redis queue: retention of finished jobs", () => {
  it("drops a finished job once it is older than the retention, and keeps a failed one", async () => {
    const storage = await freshStorage();
    const queue = createRedisQueue({
      url: serverUrl(),
      storage,
      ids: new MonotonicIdGenerator(systemClock, systemRandom),
      prefix: freshPrefix(),
      relayIntervalMs: 50,
      heartbeatIntervalMs: 200,
      finishedJobRetentionMs: 1_000,
    });
    try {
      queue.handle("work", async (payload) => {
        if ((payload as { fail?: boolean }).fail) throw new Error("refused");
      });
      await queue.start();
      const old = await queue.enqueue("work", { n: 1 });
      const failed = await queue.enqueue("work", { n: 2, fail: true }, { maxAttempts: 1 });
      await eventually(async () => expect((await queue.get(old.id))?.status).toBe("finished"));
      await eventually(async () => expect((await queue.get(failed.id))?.status).toMatch(/failed|dlq/));
      // Still within the retention: the next finished job leaves it.
      const fresh = await queue.enqueue("work", { n: 3 });
      await eventually(async () => expect((await queue.get(fresh.id))?.status).toBe("finished"));
      expect((await queue.get(old.id))?.status).toBe("finished");
      await sleep(1_100);
      const last = await queue.enqueue("work", { n: 4 });
      await eventually(async () => expect((await queue.get(last.id))?.status).toBe("finished"));
      expect(await queue.get(old.id)).toBeNull();
      expect(await queue.get(fresh.id)).toBeNull();
      expect((await queue.get(failed.id))?.status).toMatch(/failed|dlq/);
      expect((await queue.counts("work")).finished).toBe(1);
    } finally {
      await queue.stop();
      await storage.close();
    }
  });
});
