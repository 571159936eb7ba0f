import type { Clock } from "../ports/clock.js";

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told to move; for tests of expiry and durations. */
export class FakeClock implements Clock {
  #now: number;

  constructor(start: Date | string = "2026-01-01T00:00:00.000Z") {
    this.#now = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  set(at: Date | string): void {
    this.#now = new Date(at).getTime();
  }
}
