import { describe, expect, it } from "vitest";
import { PendingWork } from "./pending-work.js";

/** A promise the test settles by hand. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe("pending work", () => {
  it("is settled at once when nothing was tracked", async () => {
    const work = new PendingWork();
    expect(work.size).toBe(0);
    expect(await hasSettled(work.settled())).toBe(true);
  });

  it("counts tracked work until it settles, and settles when the last of it has", async () => {
    const work = new PendingWork();
    const first = deferred();
    const second = deferred();
    work.track(first.promise);
    work.track(second.promise);
    expect(work.size).toBe(2);
    const settled = work.settled();

    first.resolve();
    expect(await hasSettled(settled)).toBe(false);
    expect(work.size).toBe(1);

    second.resolve();
    expect(await hasSettled(settled)).toBe(true);
    expect(work.size).toBe(0);
  });

  it("waits for work tracked while a wait is under way", async () => {
    const work = new PendingWork();
    const first = deferred();
    const later = deferred();
    work.track(first.promise);
    const settled = work.settled();
    work.track(later.promise);

    first.resolve();
    expect(await hasSettled(settled)).toBe(false);
    later.resolve();
    expect(await hasSettled(settled)).toBe(true);
  });

  it("counts rejected work as finished, without an unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", listener);
    try {
      const work = new PendingWork();
      const failing = deferred();
      work.track(failing.promise);
      failing.reject(new Error("the job failed"));
      expect(await hasSettled(work.settled())).toBe(true);
      expect(work.size).toBe(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", listener);
    }
  });
});
