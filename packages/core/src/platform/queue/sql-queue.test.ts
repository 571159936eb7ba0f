import { describe, expect, it } from "vitest";
import { FakeClock } from "../../memory/system-clock.js";
import { sleep } from "../../testing/eventually.js";
import { isDeduplicationConflict, parsePayload, serializePayload, toJobRecord } from "./job-rows.js";
import { FailureReporter } from "./poll-errors.js";
import { RepeatingTask } from "./repeating-task.js";
import { nextRunAfter } from "./scheduler.js";

/**
 * The SQL queue's pure parts. The queue itself runs against real databases
 * in the storage adapters' packages (the contract) and in tests/queue (many
 * processes, a killed worker): core cannot depend on an adapter.
 */

describe("repeating jobs' next run", () => {
  const at = (iso: string) => new Date(iso);

  it("is one interval after the previous run when on time", () => {
    expect(nextRunAfter("2026-01-01T00:00:00.000Z", 1_000, at("2026-01-01T00:00:00.000Z"))).toBe("2026-01-01T00:00:01.000Z");
    expect(nextRunAfter("2026-01-01T00:00:00.000Z", 1_000, at("2026-01-01T00:00:00.400Z"))).toBe("2026-01-01T00:00:01.000Z");
  });

  it("skips the runs missed while nobody was polling, staying on the schedule's grid", () => {
    expect(nextRunAfter("2026-01-01T00:00:00.000Z", 1_000, at("2026-01-01T00:00:05.300Z"))).toBe("2026-01-01T00:00:06.000Z");
    expect(nextRunAfter("2026-01-01T00:00:00.000Z", 1_000, at("2026-01-01T00:00:05.000Z"))).toBe("2026-01-01T00:00:06.000Z");
  });
});

describe("stored payloads", () => {
  it("round-trip JSON, with undefined stored as null", () => {
    expect(parsePayload(serializePayload({ a: [1, "b"] }))).toEqual({ ok: true, value: { a: [1, "b"] } });
    expect(serializePayload(undefined)).toBe("null");
  });

  it("report text that does not parse instead of throwing", () => {
    const parsed = parsePayload("{not json");
    expect(parsed.ok).toBe(false);
  });

  it("show an unreadable payload as null, with its raw text, and derive the status", () => {
    const record = toJobRecord(
      {
        id: "jb_0000000000aaaaaaaaaaaaaaaa",
        queue: "mail",
        state: "waiting",
        payload: "{oops",
        tries: 2,
        max_attempts: 5,
        backoff_base_ms: 1_000,
        backoff_max_ms: 60_000,
        run_at: "2026-01-01T00:00:10.000Z",
        deduplication_key: null,
        ordering_key: "k",
        locked_by: null,
        locked_until: null,
        last_error: "boom",
        created_at: "2026-01-01T00:00:00.000Z",
        started_at: "2026-01-01T00:00:01.000Z",
        finished_at: null,
        updated_at: "2026-01-01T00:00:02.000Z",
      },
      new FakeClock("2026-01-01T00:00:05.000Z").now(),
    );
    expect(record).toMatchObject({ status: "retries", payload: null, rawPayload: "{oops", tries: 2, maxAttempts: 5, orderingKey: "k" });
  });
});

describe("deduplication conflicts", () => {
  it("are recognised on PostgreSQL by the index name and on SQLite by the columns", () => {
    expect(isDeduplicationConflict({ code: "23505", constraint: "jobs_waiting_deduplication_key_idx" })).toBe(true);
    expect(isDeduplicationConflict({ code: "23505", constraint: "jobs_pkey" })).toBe(false);
    expect(
      isDeduplicationConflict({
        code: "SQLITE_CONSTRAINT_UNIQUE",
        message: "UNIQUE constraint failed: jobs.queue, jobs.deduplication_key",
      }),
    ).toBe(true);
    expect(isDeduplicationConflict({ code: "SQLITE_CONSTRAINT_PRIMARYKEY", message: "UNIQUE constraint failed: jobs.id" })).toBe(false);
    expect(isDeduplicationConflict(new Error("other"))).toBe(false);
  });
});

describe("a repeating background task", () => {
  it("never overlaps its runs, and folds triggers during a run into one more run", async () => {
    let running = 0;
    let overlapped = false;
    let runs = 0;
    const task = new RepeatingTask(60_000, async () => {
      running += 1;
      if (running > 1) overlapped = true;
      runs += 1;
      await sleep(30);
      running -= 1;
    });
    task.start();
    task.trigger();
    task.trigger();
    task.trigger();
    await sleep(120);
    await task.stop();
    expect(overlapped).toBe(false);
    expect(runs).toBe(2);
  });

  it("keeps repeating after its task throws, and stops for good", async () => {
    let runs = 0;
    const task = new RepeatingTask(10, async () => {
      runs += 1;
      throw new Error("boom");
    });
    task.start();
    await sleep(80);
    await task.stop();
    const after = runs;
    expect(after).toBeGreaterThan(1);
    await sleep(40);
    expect(runs).toBe(after);
  });
});

describe("a repeating task that finds nothing", () => {
  it("waits twice as long after each such run, up to its idle maximum, and a trigger or hurry brings the interval back", async () => {
    const starts: number[] = [];
    let idle = true;
    const task = new RepeatingTask(
      10,
      async () => {
        starts.push(performance.now());
        return !idle;
      },
      { idleMaxIntervalMs: 80 },
    );
    task.start();
    await sleep(400);
    // Waits of 10, 20, 40, 80, 80, ... ms: at most 8 runs in 400 ms (40 at a steady 10 ms).
    expect(starts.length).toBeLessThanOrEqual(8);
    const gaps = starts.slice(1).map((at, index) => at - (starts[index] ?? at));
    expect(gaps.at(-1)).toBeGreaterThanOrEqual(75);
    idle = false;
    task.trigger();
    const busyFrom = starts.length;
    await sleep(200);
    // No longer idle: back to runs every 10 ms (at the idle wait of 80 ms there would be at most 3).
    expect(starts.length - busyFrom).toBeGreaterThan(5);
    await task.stop();
  });

  it("comes back within its interval after hurry(), while waiting its longest", async () => {
    let runs = 0;
    const task = new RepeatingTask(
      10,
      async () => {
        runs += 1;
        return false;
      },
      { idleMaxIntervalMs: 600_000 },
    );
    task.start();
    // Runs at about 0, 10, 30, 70, 150, 310 and 630 ms; the next would be at 1 270 ms.
    await sleep(700);
    const before = runs;
    // Without hurry() no run would come in the next 100 ms.
    task.hurry();
    await sleep(100);
    expect(runs).toBeGreaterThan(before);
    await task.stop();
  });
});

describe("failure reports of a polling loop", () => {
  it("log the first failure, stay quiet while it lasts, and log the recovery", () => {
    const lines: string[] = [];
    const logger = {
      warn: (message: string) => lines.push(`warn ${message}`),
      info: (message: string) => lines.push(`info ${message}`),
    } as unknown as ConstructorParameters<typeof FailureReporter>[0];
    let now = 0;
    const reporter = new FailureReporter(logger, "Polling", () => now);
    reporter.failed(new Error("down"));
    now += 1_000;
    reporter.failed(new Error("down"));
    now += 30_000;
    reporter.failed(new Error("down"));
    reporter.succeeded();
    reporter.succeeded();
    expect(lines.map((line) => line.split(" ")[0])).toEqual(["warn", "warn", "info"]);
  });
});
