/**
 * A point in time as Fedify's vocabulary takes it (`published`, `updated`).
 * Fedify checks instants by shape (`Symbol.toStringTag`, a bigint
 * `epochNanoseconds`, a `toString` of its own: its own Temporal polyfill or a
 * native one pass alike), and reads them only through `toString` when it
 * writes JSON-LD. Kith reads them through `epochMilliseconds`. This is the
 * smallest value of that shape: it offers no Temporal arithmetic, which
 * nothing in Kith asks of a vocabulary's dates.
 */
class KithInstant {
  readonly epochNanoseconds: bigint;
  readonly epochMilliseconds: number;
  #text: string | undefined;
  /** The digits after the seconds' point, as read (only when `text` is to be made Temporal's way). */
  readonly #fraction: string;

  constructor(epochMilliseconds: number, epochNanoseconds: bigint, text: string | undefined, fraction = "") {
    this.epochMilliseconds = epochMilliseconds;
    this.epochNanoseconds = epochNanoseconds;
    this.#text = text;
    this.#fraction = fraction;
  }

  get [Symbol.toStringTag](): string {
    return "Temporal.Instant";
  }

  /** As Temporal prints an instant: UTC, and the fraction of a second without its trailing zeros. */
  toString(): string {
    if (this.#text === undefined) {
      const whole = Math.floor(this.epochMilliseconds / 1000) * 1000;
      const fraction = this.#fraction.replace(/0+$/, "");
      this.#text = `${new Date(whole).toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ""}Z`;
    }
    return this.#text;
  }

  toJSON(): string {
    return this.toString();
  }
}

/** The instant of an ISO timestamp, typed as Fedify's vocabulary expects; printed as `Date#toISOString` prints it. */
// biome-ignore lint/suspicious/noExplicitAny: Fedify types instants with the Temporal proposal's global type, which this TypeScript lib lacks.
export function instantOf(iso: string): any {
  const date = new Date(iso);
  const time = date.getTime();
  return new KithInstant(time, BigInt(time) * 1_000_000n, date.toISOString());
}

/** The form of nearly every date in an activity: RFC 3339 with a 4-digit year, an optional fraction of up to 9 digits, and `Z` or an offset. */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** The minutes east of UTC of an offset (`Z`, `+01:00`), or null when Temporal would refuse its hours or minutes. */
function offsetMinutesOf(offset: string): number | null {
  if (offset === "Z") return 0;
  const hours = Number(offset.slice(1, 3));
  const minutes = Number(offset.slice(4, 6));
  if (hours > 23 || minutes > 59) return null;
  return (offset[0] === "-" ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * The instant `text` names, as `Temporal.Instant.from` reads it, or null
 * when `text` is not of the common form this reads (`RFC_3339`, with a real
 * calendar date and time, a year from 100 on, no leap second): the caller
 * then asks a full Temporal parser, which accepts or refuses the rest.
 */
export function parseInstant(text: string): ReturnType<typeof instantOf> | null {
  const parts = RFC_3339.exec(text);
  if (parts === null) return null;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const fraction = parts[7] ?? "";
  const offsetMinutes = offsetMinutesOf(parts[8] ?? "Z");
  // Date.UTC would carry a 31st of April into May and read a two-digit year as 19xx: those are left to the full parser.
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (offsetMinutes === null || year < 100 || month < 1 || month > 12 || day < 1 || day > lastDay) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const wholeMs = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  const nanoseconds = fraction === "" ? 0 : Number(fraction.padEnd(9, "0"));
  return new KithInstant(
    wholeMs + Math.floor(nanoseconds / 1_000_000),
    BigInt(wholeMs) * 1_000_000n + BigInt(nanoseconds),
    undefined,
    fraction,
  );
}
