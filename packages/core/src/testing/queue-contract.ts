import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KithError, isKithError } from "../domain/errors.js";
import { jobNotReady } from "../platform/queue/not-ready.js";
import type { Queue } from "../ports/queue.js";
import { eventually, sleep } from "./eventually.js";

/** Cases an adapter may opt out of, by name, when its backend lacks the capability. */
export type QueueContractCase = "poll-error-recovery" | "transactional-enqueue";

export interface QueueUnderTest {
  readonly queue: Queue;
  /** Makes the next polls for work fail (e.g. the database refuses), until `heal`. */
  readonly faults?: { break(): void; heal(): void };
  /** Runs `work` in a storage transaction whose executor `enqueue` accepts as `db`. */
  readonly transaction?: <T>(work: (db: NonNullable<Parameters<Queue["enqueue"]>[2]>["db"]) => Promise<T>) => Promise<T>;
  close(): Promise<void>;
}

export interface QueueContractOptions {
  readonly skip?: readonly QueueContractCase[];
}

const FAST = { backoff: { baseMs: 20, maxMs: 200 } } as const;

/**
 * The queue port's contract. Every adapter runs it: `factory` returns a
 * queue on an empty backend each time; the suite registers handlers, then
 * starts it.
 */
export function describeQueueContract(name: string, factory: () => Promise<QueueUnderTest>, options: QueueContractOptions = {}): void {
  const runs = (testCase: QueueContractCase) => !options.skip?.includes(testCase);

  describe(`queue contract: ${name}`, () => {
    let subject: QueueUnderTest;
    let queue: Queue;

    beforeEach(async () => {
      subject = await factory();
      queue = subject.queue;
    });

    afterEach(async () => {
      await queue.stop();
      await subject.close();
    });

    it("runs a job once with its payload and records it as finished", async () => {
      const seen: unknown[] = [];
      queue.handle("mail", async (payload, context) => {
        expect(context.attempt).toBe(1);
        seen.push(payload);
      });
      await queue.start();
      const job = await queue.enqueue("mail", { to: "a@example.com", n: [1, 2] });
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("finished"));
      expect(seen).toEqual([{ to: "a@example.com", n: [1, 2] }]);
      const record = await queue.get(job.id);
      expect(record).toMatchObject({ id: job.id, queue: "mail", tries: 1, payload: { to: "a@example.com", n: [1, 2] } });
      expect(record?.finishedAt).not.toBeNull();
      expect((await queue.counts("mail")).finished).toBe(1);
    });

    it("holds a delayed job as scheduled until its time", async () => {
      const ranAt: number[] = [];
      queue.handle("later", async () => {
        ranAt.push(Date.now());
      });
      await queue.start();
      const enqueuedAt = Date.now();
      const job = await queue.enqueue("later", {}, { delayMs: 400 });
      expect((await queue.get(job.id))?.status).toBe("schedule");
      await sleep(150);
      expect(ranAt).toEqual([]);
      await eventually(() => expect(ranAt.length).toBe(1));
      expect((ranAt[0] ?? 0) - enqueuedAt).toBeGreaterThanOrEqual(380);
    });

    it("retries a failing job with growing delays, then finishes it", async () => {
      const attempts: number[] = [];
      queue.handle("flaky", async (_payload, context) => {
        attempts.push(Date.now());
        if (context.attempt < 4) throw new Error(`attempt ${context.attempt} failed`);
      });
      await queue.start();
      const job = await queue.enqueue("flaky", {}, { maxAttempts: 5, backoff: { baseMs: 60, maxMs: 2_000 } });
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("finished"), { timeoutMs: 8_000 });
      expect(attempts.length).toBe(4);
      const gaps = attempts.slice(1).map((at, i) => at - (attempts[i] ?? 0));
      // Equal jitter: the wait after attempt n is at least half of base * 2^(n-1).
      expect(gaps[0]).toBeGreaterThanOrEqual(25);
      expect(gaps[1]).toBeGreaterThanOrEqual(55);
      expect(gaps[2]).toBeGreaterThanOrEqual(115);
      expect((await queue.get(job.id))?.tries).toBe(4);
    });

    it("runs a job again, its attempt uncounted, when this process cannot run it yet", async () => {
      let ready = false;
      const attempts: number[] = [];
      queue.handle("warming-up", async (_payload, context) => {
        attempts.push(context.attempt);
        if (!ready) throw jobNotReady("A part this job needs is still loading");
      });
      await queue.start();
      // One attempt only: were the first run counted, the job would fail.
      const job = await queue.enqueue("warming-up", {}, { maxAttempts: 1 });
      await eventually(() => expect(attempts.length).toBe(1));
      await eventually(async () => expect((await queue.get(job.id))?.tries).toBe(0));
      expect((await queue.get(job.id))?.status).not.toBe("failed");
      ready = true;
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("finished"), { timeoutMs: 8_000 });
      expect((await queue.get(job.id))?.tries).toBe(1);
      expect(attempts).toEqual([1, 1]);
      expect((await queue.statsPerDay(1, "warming-up")).at(-1)).toMatchObject({ finished: 1, failed: 0 });
    });

    it("shows a job waiting after a failed attempt as a retry", async () => {
      queue.handle("slow-retry", async () => {
        throw new Error("down");
      });
      await queue.start();
      const job = await queue.enqueue("slow-retry", {}, { maxAttempts: 3, backoff: { baseMs: 5_000 } });
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("retries"));
      const record = await queue.get(job.id);
      expect(record?.tries).toBe(1);
      expect(record?.lastError).toContain("down");
    });

    it("fails a job out of tries, and retry puts it back with its tries reset", async () => {
      let healthy = false;
      const runs: number[] = [];
      queue.handle("doomed", async (_payload, context) => {
        runs.push(context.attempt);
        if (!healthy) throw new Error("still broken");
      });
      await queue.start();
      const job = await queue.enqueue("doomed", { x: 1 }, { maxAttempts: 2, ...FAST });
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("failed"));
      const failed = await queue.get(job.id);
      expect(failed?.tries).toBe(2);
      expect(failed?.lastError).toContain("still broken");
      expect((await queue.list({ queue: "doomed", status: "failed", limit: 10 })).map((record) => record.id)).toEqual([job.id]);
      healthy = true;
      const retried = await queue.retry(job.id);
      expect(retried.tries).toBe(0);
      expect(["submitted", "active", "finished"]).toContain(retried.status);
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("finished"));
      expect(runs).toEqual([1, 2, 1]);
    });

    it("retries every failed job of a queue at once", async () => {
      let healthy = false;
      queue.handle("batch", async () => {
        if (!healthy) throw new Error("no");
      });
      await queue.start();
      const jobs = await Promise.all([1, 2, 3].map((n) => queue.enqueue("batch", { n }, { maxAttempts: 1 })));
      await eventually(async () => expect((await queue.counts("batch")).failed).toBe(3));
      healthy = true;
      expect(await queue.retryAll("batch")).toBe(3);
      await eventually(async () => expect((await queue.counts("batch")).finished).toBe(3));
      for (const job of jobs) expect((await queue.get(job.id))?.tries).toBe(1);
    });

    it("refuses to retry a job that is not failed, and an unknown job", async () => {
      queue.handle("idle", async () => {});
      const job = await queue.enqueue("idle", {}, { delayMs: 60_000 });
      await expect(queue.retry(job.id)).rejects.toSatisfy((error) => isKithError(error) && error.code === "job.not_retryable");
      await expect(queue.retry("jb_00000000000000000000000000")).rejects.toSatisfy(
        (error) => isKithError(error) && error.code === "job.not_found",
      );
    });

    it("sends a job whose payload cannot be read to the dead-letter list without retrying it", async () => {
      let calls = 0;
      queue.handle("strict", async () => {
        calls += 1;
        throw new KithError("job.unreadable_payload", { message: "missing field 'to'" });
      });
      await queue.start();
      const job = await queue.enqueue("strict", { wrong: true }, { maxAttempts: 5, ...FAST });
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("dlq"));
      await sleep(100);
      expect(calls).toBe(1);
      expect((await queue.list({ status: "dlq", limit: 10 })).map((record) => record.id)).toEqual([job.id]);
    });

    it("returns the waiting job for a second enqueue with the same deduplication key", async () => {
      queue.handle("dedup", async () => {});
      const first = await queue.enqueue("dedup", { n: 1 }, { deduplicationKey: "refresh:alice", delayMs: 60_000 });
      const second = await queue.enqueue("dedup", { n: 2 }, { deduplicationKey: "refresh:alice", delayMs: 60_000 });
      const other = await queue.enqueue("dedup", { n: 3 }, { deduplicationKey: "refresh:bob", delayMs: 60_000 });
      expect(second.id).toBe(first.id);
      expect(other.id).not.toBe(first.id);
      expect((await queue.counts("dedup")).schedule).toBe(2);
    });

    it("runs jobs with one ordering key one at a time, in order, and others alongside", async () => {
      const log: string[] = [];
      let running = 0;
      let maxRunning = 0;
      queue.handle(
        "ordered",
        async (payload) => {
          const { key, n } = payload as { key: string; n: number };
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          log.push(`${key}${n}:start`);
          await sleep(30);
          log.push(`${key}${n}:end`);
          running -= 1;
        },
        { concurrency: 4 },
      );
      for (let n = 1; n <= 3; n++) await queue.enqueue("ordered", { key: "a", n }, { orderingKey: "a" });
      for (let n = 1; n <= 3; n++) await queue.enqueue("ordered", { key: "b", n }, { orderingKey: "b" });
      await queue.start();
      await eventually(async () => expect((await queue.counts("ordered")).finished).toBe(6));
      for (const key of ["a", "b"]) {
        const own = log.filter((entry) => entry.startsWith(key));
        expect(own).toEqual([`${key}1:start`, `${key}1:end`, `${key}2:start`, `${key}2:end`, `${key}3:start`, `${key}3:end`]);
      }
      expect(maxRunning).toBe(2);
    });

    it("never runs more jobs of a queue at once than its concurrency", async () => {
      let running = 0;
      let maxRunning = 0;
      queue.handle(
        "limited",
        async () => {
          running += 1;
          maxRunning = Math.max(maxRunning, running);
          await sleep(40);
          running -= 1;
        },
        { concurrency: 2 },
      );
      for (let n = 0; n < 6; n++) await queue.enqueue("limited", { n });
      await queue.start();
      await eventually(async () => expect((await queue.counts("limited")).finished).toBe(6));
      expect(maxRunning).toBe(2);
    });

    it("keeps working after handlers throw or reject", async () => {
      const done: number[] = [];
      queue.handle(
        "mixed",
        (payload) => {
          const { n } = payload as { n: number };
          if (n % 2 === 0) throw new Error("synchronous throw");
          done.push(n);
          return Promise.resolve();
        },
        { concurrency: 2 },
      );
      await queue.start();
      for (let n = 1; n <= 6; n++) await queue.enqueue("mixed", { n }, { maxAttempts: 1 });
      await eventually(async () => expect((await queue.counts("mixed")).failed).toBe(3));
      await eventually(() => expect(done.sort()).toEqual([1, 3, 5]));
    });

    it.runIf(runs("poll-error-recovery"))("recovers when polling for work fails for a while", async () => {
      const faults = subject.faults;
      if (!faults) throw new Error("this adapter must offer faults or skip the case");
      const done: number[] = [];
      queue.handle("resilient", async (payload) => {
        done.push((payload as { n: number }).n);
      });
      await queue.start();
      faults.break();
      await sleep(150);
      faults.heal();
      await queue.enqueue("resilient", { n: 1 });
      await eventually(() => expect(done).toEqual([1]));
    });

    it.runIf(runs("transactional-enqueue"))(
      "writes a job with the transaction that caused it, and not at all when it rolls back",
      async () => {
        const transaction = subject.transaction;
        if (!transaction) throw new Error("this adapter must offer transaction or skip the case");
        const seen: unknown[] = [];
        queue.handle("tx", async (payload) => {
          seen.push(payload);
        });
        await queue.start();
        await expect(
          transaction(async (db) => {
            await queue.enqueue("tx", { kept: false }, { db });
            throw new Error("rollback");
          }),
        ).rejects.toThrow("rollback");
        await transaction(async (db) => {
          await queue.enqueue("tx", { kept: true }, { db });
        });
        await eventually(() => expect(seen).toEqual([{ kept: true }]));
        await sleep(100);
        expect(seen).toEqual([{ kept: true }]);
      },
    );

    it("runs a repeating job on its schedule, and stops when unscheduled", async () => {
      let runs = 0;
      queue.handle("tick", async () => {
        runs += 1;
      });
      await queue.schedule({ name: "tick-every-100ms", queue: "tick", everyMs: 100, payload: {} });
      await queue.schedule({ name: "tick-every-100ms", queue: "tick", everyMs: 100, payload: {} });
      await queue.start();
      await eventually(() => expect(runs).toBeGreaterThanOrEqual(3), { timeoutMs: 3_000 });
      await queue.unschedule("tick-every-100ms");
      await sleep(250);
      const after = runs;
      await sleep(300);
      expect(runs).toBe(after);
    });

    it("lists jobs newest first by queue and status, and counts them", async () => {
      queue.handle("a", async () => {});
      queue.handle("b", async () => {});
      const a1 = await queue.enqueue("a", { n: 1 }, { delayMs: 60_000 });
      const a2 = await queue.enqueue("a", { n: 2 }, { delayMs: 60_000 });
      const b1 = await queue.enqueue("b", { n: 1 }, { delayMs: 60_000 });
      expect((await queue.list({ queue: "a", limit: 10 })).map((job) => job.id)).toEqual([a2.id, a1.id]);
      expect((await queue.list({ limit: 2 })).map((job) => job.id)).toEqual([b1.id, a2.id]);
      expect((await queue.list({ limit: 10, maxId: a2.id })).map((job) => job.id)).toEqual([a1.id]);
      expect((await queue.list({ queue: "a", status: "finished", limit: 10 })).length).toBe(0);
      expect(await queue.counts("a")).toEqual({ submitted: 0, schedule: 2, retries: 0, active: 0, finished: 0, failed: 0, dlq: 0 });
      expect((await queue.counts()).schedule).toBe(3);
    });

    it("refuses to delete or clear an active job, and deletes and clears the rest", async () => {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      queue.handle("busy", async () => {
        await held;
      });
      const waiting = await queue.enqueue("busy", { n: 0 }, { delayMs: 60_000 });
      await queue.start();
      const active = await queue.enqueue("busy", { n: 1 });
      await eventually(async () => expect((await queue.get(active.id))?.status).toBe("active"));
      await expect(queue.remove(active.id)).rejects.toSatisfy((error) => isKithError(error) && error.code === "job.active");
      await expect(queue.clear("busy", "active")).rejects.toSatisfy((error) => isKithError(error) && error.code === "job.active");
      expect(await queue.clear("busy", "schedule")).toBe(1);
      expect(await queue.get(waiting.id)).toBeNull();
      release();
      await eventually(async () => expect((await queue.get(active.id))?.status).toBe("finished"));
      await queue.remove(active.id);
      expect(await queue.get(active.id)).toBeNull();
      await expect(queue.remove(active.id)).rejects.toSatisfy((error) => isKithError(error) && error.code === "job.not_found");
    });

    it("counts finished and failed jobs per day, for one queue or all", async () => {
      queue.handle("ok", async () => {});
      queue.handle("ko", async () => {
        throw new Error("no");
      });
      await queue.start();
      await queue.enqueue("ok", {});
      await queue.enqueue("ok", {});
      await queue.enqueue("ko", {}, { maxAttempts: 1 });
      await eventually(async () => {
        const counts = await queue.counts();
        expect(counts.finished + counts.failed).toBe(3);
      });
      const all = await queue.statsPerDay(3);
      expect(all.length).toBe(3);
      const today = new Date().toISOString().slice(0, 10);
      expect(all.at(-1)).toEqual({ day: today, finished: 2, failed: 1 });
      expect(all[0]).toEqual({ day: new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10), finished: 0, failed: 0 });
      expect((await queue.statsPerDay(1, "ko")).at(-1)).toEqual({ day: today, finished: 0, failed: 1 });
    });

    it("keeps each queue's configuration, and a disabled queue takes no jobs until enabled", async () => {
      const seen: number[] = [];
      queue.handle(
        "switchable",
        async (payload) => {
          seen.push((payload as { n: number }).n);
        },
        { concurrency: 3, description: "Switch me", maxRetries: 2 },
      );
      await queue.start();
      const config = (await queue.queues()).find((entry) => entry.name === "switchable");
      expect(config).toEqual({ name: "switchable", description: "Switch me", maxRetries: 2, concurrency: 3, enabled: true });
      const disabled = await queue.configureQueue("switchable", { enabled: false, concurrency: 1 });
      expect(disabled).toMatchObject({ enabled: false, concurrency: 1 });
      await sleep(100);
      await queue.enqueue("switchable", { n: 1 });
      await sleep(300);
      expect(seen).toEqual([]);
      await queue.configureQueue("switchable", { enabled: true });
      await eventually(() => expect(seen).toEqual([1]));
      await expect(queue.configureQueue("no-such-queue", { enabled: false })).rejects.toSatisfy(
        (error) => isKithError(error) && error.code === "queue.not_found",
      );
    });

    it("uses the queue's max retries when a job names none", async () => {
      let calls = 0;
      queue.handle(
        "capped",
        async () => {
          calls += 1;
          throw new Error("no");
        },
        { maxRetries: 1 },
      );
      await queue.start();
      const job = await queue.enqueue("capped", {}, FAST);
      await eventually(async () => expect((await queue.get(job.id))?.status).toBe("failed"));
      expect(calls).toBe(2);
      expect((await queue.get(job.id))?.maxAttempts).toBe(2);
    });

    it("reports this process's heartbeat while started", async () => {
      queue.handle("any", async () => {});
      await queue.start();
      await eventually(async () => {
        const processes = await queue.processes();
        expect(processes.some((entry) => entry.pid === process.pid)).toBe(true);
      });
      const [entry] = (await queue.processes()).filter((candidate) => candidate.pid === process.pid);
      expect(entry?.hostname).toBeTruthy();
      expect(Date.parse(entry?.lastHeartbeatAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
    });

    it("describes its backend", async () => {
      const info = await queue.backendInfo();
      expect(["redis", "embedded"]).toContain(info.kind);
      expect(info.version).toMatch(/\d/);
    });

    it("waits for running jobs when stopped, and takes no new ones", async () => {
      const finished: number[] = [];
      queue.handle(
        "graceful",
        async (payload) => {
          await sleep(150);
          finished.push((payload as { n: number }).n);
        },
        { concurrency: 1 },
      );
      await queue.start();
      await queue.enqueue("graceful", { n: 1 });
      await eventually(async () => expect((await queue.counts("graceful")).active).toBe(1));
      await queue.enqueue("graceful", { n: 2 });
      await queue.stop();
      expect(finished).toEqual([1]);
      await sleep(200);
      expect(finished).toEqual([1]);
    });
  });
}
