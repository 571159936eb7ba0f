import { type IdKind, type ModuleIdKind, encodeRandom, encodeTime, incrementBase32, prefixOf } from "../domain/ids.js";
import type { Clock } from "../ports/clock.js";
import type { IdGenerator } from "../ports/ids.js";
import type { Random } from "../ports/random.js";

/**
 * Time-ordered ids that stay increasing within one millisecond (the random
 * tail is incremented) and when the clock steps back (the last time is kept).
 */
export class MonotonicIdGenerator implements IdGenerator {
  #lastTime = -1;
  #lastRandom = "";

  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
  ) {}

  next(kind: IdKind | ModuleIdKind): string {
    const now = this.clock.now().getTime();
    if (now > this.#lastTime) {
      this.#lastTime = now;
      this.#lastRandom = encodeRandom(this.random.bytes(16));
    } else {
      this.#lastRandom = incrementBase32(this.#lastRandom);
    }
    return `${prefixOf(kind)}_${encodeTime(this.#lastTime)}${this.#lastRandom}`;
  }
}
