import { describe, expect, it } from "vitest";
import { describeQueueContract } from "../testing/queue-contract.js";
import { eventually } from "../testing/eventually.js";
import type { Clock } from "../ports/clock.js";
import { MemoryQueue } from "./memory-queue.js";
import { MonotonicIdGenerator } from "./monotonic-id-generator.js";
import { FakeClock, systemClock } from "./system-clock.js";
import { systemRandom } from "./system-random.js";

/** The system clock, which can be made to fail: the memory queue's only outside dependency a poll reads. */
function breakableClock(): Clock & { broken: boolean } {
  return {
    broken: false,
    now(): Date {
      if (this.broken) throw new Error("the clock is broken");
      return systemClock.now();
    },
  };
}

describeQueueContract(
  "memory",
  async () => {
    const clock = breakableClock();
    const queue = new MemoryQueue({ clock, ids: new MonotonicIdGenerator(systemClock, systemRandom), pollIntervalMs: 10 });
    return {
      queue,
      faults: {
        break: () => {
          clock.broken = true;
        },
        heal: () => {
          clock.broken = false;
        },
      },
      close: async () => {},
    };
  },
  // Not durable: jobs are kept in the object, so there is no transaction to enqueue in.
  { skip: ["transactional-enqueue"] },
);

describe("memory queue with a fake clock", () => {
  it("runs a delayed job only when the clock reaches its time, and a repeating job's next run shows as scheduled", async () => {
    const clock = new FakeClock();
    const scheduledAt = clock.now().getTime();
    const queue = new MemoryQueue({ clock, ids: new MonotonicIdGenerator(clock, systemRandom), pollIntervalMs: 5 });
    const seen: string[] = [];
    queue.handle("later", async (payload) => {
      seen.push((payload as { name: string }).name);
    });
    await queue.start();
    try {
      await queue.enqueue("later", { name: "delayed" }, { delayMs: 60_000 });
      await queue.schedule({ name: "hourly", queue: "later", everyMs: 3_600_000, payload: { name: "repeat" } });
      expect((await queue.counts("later")).schedule).toBe(2);
      clock.advance(60_000);
      await eventually(() => expect(seen).toEqual(["delayed"]));
      clock.advance(3_600_000);
      await eventually(() => expect(seen).toEqual(["delayed", "repeat"]));
      await eventually(async () => expect((await queue.list({ queue: "later", status: "schedule", limit: 5 })).length).toBe(1));
      const [next] = await queue.list({ queue: "later", status: "schedule", limit: 5 });
      // Runs keep their cadence from the schedule, not from when the last one happened to run.
      expect(next?.runAt).toBe(new Date(scheduledAt + 2 * 3_600_000).toISOString());
      await queue.unschedule("hourly");
      expect((await queue.counts("later")).schedule).toBe(0);
    } finally {
      await queue.stop();
    }
  });

  it("applies a changed max retries to waiting jobs that named none", async () => {
    const clock = new FakeClock();
    const queue = new MemoryQueue({ clock, ids: new MonotonicIdGenerator(clock, systemRandom) });
    queue.handle("capped", async () => {}, { maxRetries: 2 });
    const job = await queue.enqueue("capped", {}, { delayMs: 1_000 });
    const named = await queue.enqueue("capped", {}, { delayMs: 1_000, maxAttempts: 9 });
    expect((await queue.get(job.id))?.maxAttempts).toBe(3);
    await queue.configureQueue("capped", { maxRetries: 0 });
    expect((await queue.get(job.id))?.maxAttempts).toBe(1);
    expect((await queue.get(named.id))?.maxAttempts).toBe(9);
  });
});
