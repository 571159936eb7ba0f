import { describe, expect, it } from "vitest";
import { createInFlightRequests } from "./in-flight-requests.js";

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe("the requests in flight", () => {
  it("are drained at once when none was begun", async () => {
    const requests = createInFlightRequests();
    expect(requests.size).toBe(0);
    expect(await hasSettled(requests.drained())).toBe(true);
  });

  it("are drained when the last one ends, counting those begun while waiting", async () => {
    const requests = createInFlightRequests();
    requests.begin();
    requests.begin();
    const drained = requests.drained();
    requests.end();
    requests.begin();
    requests.end();
    expect(requests.size).toBe(1);
    expect(await hasSettled(drained)).toBe(false);

    requests.end();
    expect(requests.size).toBe(0);
    expect(await hasSettled(drained)).toBe(true);
  });
});
