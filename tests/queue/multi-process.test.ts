import { MonotonicIdGenerator, SqlQueue, systemClock, systemRandom } from "@kith/core";
import { eventually, sleep } from "@kith/core/testing";
import { expect, it } from "vitest";
import { describeIfPostgres } from "../support/real-servers.js";
import { postgresDatabase } from "./engines.js";

/**
 * Two queue processes (two SqlQueue instances with their own connection
 * pools and process ids) on one PostgreSQL database take jobs from the same
 * queue: claims with SKIP LOCKED must hand every job to exactly one of them.
 */
describeIfPostgres("sql queue: two processes on one PostgreSQL database", () => {
  it("share 200 jobs, every job running exactly once", async () => {
    const database = await postgresDatabase();
    const ids = new MonotonicIdGenerator(systemClock, systemRandom);
    const processes = ["process-a", "process-b"].map(
      (processId, i) =>
        new SqlQueue({
          storage: i === 0 ? database.storage : database.open(),
          ids,
          processId,
          pollIntervalMs: 20,
          heartbeatIntervalMs: 200,
        }),
    );
    const runs = new Map<string, string[]>();
    try {
      for (const [i, queue] of processes.entries()) {
        queue.handle(
          "shared",
          async (_payload, context) => {
            runs.set(context.id, [...(runs.get(context.id) ?? []), processes[i]?.processId ?? "?"]);
            await sleep(2);
          },
          { concurrency: 4 },
        );
      }
      // Half before the workers start (a backlog both race for), half while they run, from either process.
      const enqueued: string[] = [];
      for (let n = 0; n < 100; n++) enqueued.push((await processes[n % 2]?.enqueue("shared", { n }))?.id ?? "");
      await Promise.all(processes.map((queue) => queue.start()));
      await Promise.all(
        [0, 1].map(async (side) => {
          for (let n = 100 + side; n < 200; n += 2) enqueued.push((await processes[side]?.enqueue("shared", { n }))?.id ?? "");
        }),
      );
      const [first] = processes;
      if (!first) throw new Error("no process");
      await eventually(async () => expect((await first.counts("shared")).finished).toBe(200), { timeoutMs: 15_000 });

      expect(new Set(enqueued).size).toBe(200);
      expect([...runs.keys()].sort()).toEqual([...enqueued].sort());
      const twice = [...runs].filter(([, by]) => by.length !== 1);
      expect(twice).toEqual([]);
      const perProcess = new Map<string, number>();
      for (const [, [by = ""]] of runs) perProcess.set(by, (perProcess.get(by) ?? 0) + 1);
      // Both took a share (a lopsided split is fine; a process left idle would mean claims serialise).
      expect(perProcess.get("process-a")).toBeGreaterThan(0);
      expect(perProcess.get("process-b")).toBeGreaterThan(0);
      expect((await first.list({ queue: "shared", status: "finished", limit: 1_000 })).every((job) => job.tries === 1)).toBe(true);
      expect((await first.processes()).map((entry) => entry.id).sort()).toEqual(["process-a", "process-b"]);
    } finally {
      await Promise.all(processes.map((queue) => queue.stop()));
      await database.close();
    }
  }, 60_000);

  it("run the jobs of one ordering key one at a time and in order, across both processes", async () => {
    const database = await postgresDatabase();
    const ids = new MonotonicIdGenerator(systemClock, systemRandom);
    const processes = ["process-a", "process-b"].map(
      (processId, i) =>
        new SqlQueue({
          storage: i === 0 ? database.storage : database.open(),
          ids,
          processId,
          pollIntervalMs: 10,
          heartbeatIntervalMs: 200,
        }),
    );
    const log: string[] = [];
    const runningPerKey = new Map<string, number>();
    let overlaps = 0;
    try {
      for (const queue of processes) {
        queue.handle(
          "ordered",
          async (payload) => {
            const { key, n } = payload as { key: string; n: number };
            const running = (runningPerKey.get(key) ?? 0) + 1;
            runningPerKey.set(key, running);
            if (running > 1) overlaps += 1;
            log.push(`${key}${n}`);
            await sleep(3);
            runningPerKey.set(key, (runningPerKey.get(key) ?? 1) - 1);
          },
          { concurrency: 4 },
        );
      }
      const [first] = processes;
      if (!first) throw new Error("no process");
      for (let n = 0; n < 20; n++) {
        for (const key of ["a", "b", "c"]) await first.enqueue("ordered", { key, n }, { orderingKey: key });
      }
      await Promise.all(processes.map((queue) => queue.start()));
      await eventually(async () => expect((await first.counts("ordered")).finished).toBe(60), { timeoutMs: 15_000 });
      expect(overlaps).toBe(0);
      for (const key of ["a", "b", "c"]) {
        expect(log.filter((entry) => entry.startsWith(key))).toEqual(Array.from({ length: 20 }, (_, n) => `${key}${n}`));
      }
    } finally {
      await Promise.all(processes.map((queue) => queue.stop()));
      await database.close();
    }
  }, 60_000);
});
