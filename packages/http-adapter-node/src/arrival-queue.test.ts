import { type AddressInfo, type Socket, connect, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createArrivalQueue, startsInArrivalOrder } from "./arrival-queue.js";

/** A scheduler whose turns the test runs by hand. */
function manualTurns() {
  const pending: (() => void)[] = [];
  return {
    schedule: (callback: () => void) => {
      pending.push(callback);
    },
    get scheduled(): number {
      return pending.length;
    },
    /** Runs the turns scheduled so far, one, and lets the promises it settled run their continuations. */
    async runOne(): Promise<void> {
      const callback = pending.shift();
      if (!callback) throw new Error("no turn scheduled");
      callback();
      await new Promise<void>((resolve) => queueMicrotask(resolve));
      await Promise.resolve();
    },
  };
}

describe("createArrivalQueue", () => {
  it("admits one request per turn, in the order they arrived", async () => {
    const turns = manualTurns();
    const queue = createArrivalQueue(turns.schedule);
    const started: number[] = [];
    for (const n of [1, 2, 3]) void queue.admit().then(() => started.push(n));
    // Three arrivals, one turn asked for.
    expect(turns.scheduled).toBe(1);
    expect(started).toEqual([]);

    await turns.runOne();
    expect(started).toEqual([1]);
    expect(turns.scheduled).toBe(1);

    // One arriving now queues behind those already waiting.
    void queue.admit().then(() => started.push(4));
    expect(turns.scheduled).toBe(1);
    await turns.runOne();
    expect(started).toEqual([1, 2]);
    await turns.runOne();
    await turns.runOne();
    expect(started).toEqual([1, 2, 3, 4]);
    // Nothing waits: no turn is asked for.
    expect(turns.scheduled).toBe(0);
  });

  it("asks for a turn again after it ran empty", async () => {
    const turns = manualTurns();
    const queue = createArrivalQueue(turns.schedule);
    const admitted = queue.admit();
    await turns.runOne();
    await admitted;
    expect(turns.scheduled).toBe(0);

    let later = false;
    void queue.admit().then(() => {
      later = true;
    });
    expect(turns.scheduled).toBe(1);
    await turns.runOne();
    expect(later).toBe(true);
  });

  it("keeps the order through a burst longer than the slices it drops", async () => {
    const turns = manualTurns();
    const queue = createArrivalQueue(turns.schedule);
    const started: number[] = [];
    const count = 2_500;
    for (let n = 0; n < count; n++) void queue.admit().then(() => started.push(n));
    while (turns.scheduled > 0) await turns.runOne();
    expect(started).toEqual(Array.from({ length: count }, (_, n) => n));
  });

  it("lets the event loop read its sockets between two admissions by default", async () => {
    // A loopback connection: what the client writes is readable at the server's next poll.
    const server = createServer();
    const accepted = new Promise<Socket>((resolve) => server.once("connection", resolve));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
    const serverSide = await accepted;
    try {
      const order: string[] = [];
      const read = new Promise<void>((resolve) =>
        serverSide.once("data", () => {
          order.push("read");
          resolve();
        }),
      );
      const queue = createArrivalQueue();
      const first = queue.admit().then(() => {
        order.push("first");
        client.write("x");
      });
      const second = queue.admit().then(() => order.push("second"));
      await Promise.all([first, second, read]);
      // Both admitted in one turn, the second would start before the bytes sent at the first were read.
      expect(order).toEqual(["first", "read", "second"]);
    } finally {
      client.destroy();
      serverSide.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("orders reads only: a write starts as Node reads it, to share its commit with the writes read beside it", () => {
    for (const method of ["GET", "HEAD", "OPTIONS", undefined]) expect(startsInArrivalOrder(method)).toBe(true);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) expect(startsInArrivalOrder(method)).toBe(false);
  });
});
