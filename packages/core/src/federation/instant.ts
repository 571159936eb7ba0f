/**
 * A point in time as Fedify's vocabulary takes it (`published`, `updated`).
 * Fedify checks instants by shape (its own Temporal polyfill or a native
 * one), and Kith does not depend on a Temporal implementation itself: this
 * is the smallest value of that shape, printed as ISO 8601.
 */
class IsoInstant {
  readonly epochNanoseconds: bigint;
  readonly #iso: string;

  constructor(date: Date) {
    this.epochNanoseconds = BigInt(date.getTime()) * 1_000_000n;
    this.#iso = date.toISOString();
  }

  get [Symbol.toStringTag](): string {
    return "Temporal.Instant";
  }

  toString(): string {
    return this.#iso;
  }

  toJSON(): string {
    return this.#iso;
  }
}

/** The instant of an ISO timestamp, typed as Fedify's vocabulary expects. */
// biome-ignore lint/suspicious/noExplicitAny: Fedify types instants with the Temporal proposal's global type, which this TypeScript lib lacks.
export function instantOf(iso: string): any {
  return new IsoInstant(new Date(iso));
}
