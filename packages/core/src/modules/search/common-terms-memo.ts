import { BoundedMap } from "../../bounded-map.js";
import type { Clock } from "../../ports/clock.js";
import type { CommonTerms } from "./search-store.js";

export interface CommonTermsMemoOptions {
  /** How long an answer is given again before the database is asked anew. */
  readonly ttlMs: number;
  /** Sets of terms remembered; past it the least recently used are asked again. */
  readonly capacity: number;
}

/**
 * Five minutes: PostgreSQL answers from the statistics ANALYZE keeps, which
 * change about as seldom, and a word that crosses the line on SQLite meanwhile
 * is searched the other way, with the same statuses found.
 */
export const COMMON_TERMS_MEMO: CommonTermsMemoOptions = { ttlMs: 5 * 60_000, capacity: 1_000 };

interface Entry {
  readonly common: boolean;
  readonly until: number;
}

/**
 * Whether a status search's terms are common, remembered for a while. Asking
 * costs a statement a search (counting up to 2 000 matches on SQLite, reading
 * the statistics' views on PostgreSQL, which are planned anew every time) and
 * the answer picks only how the statuses are looked for, never which are found:
 * an answer gone stale makes a search slower, not wrong.
 */
export class CommonTermsMemo implements CommonTerms {
  readonly #entries: BoundedMap<string, Entry>;

  constructor(
    private readonly clock: Clock,
    private readonly options: CommonTermsMemoOptions = COMMON_TERMS_MEMO,
  ) {
    this.#entries = new BoundedMap(options.capacity);
  }

  async common(terms: readonly string[], ask: () => Promise<boolean>): Promise<boolean> {
    // Terms are runs of letters and digits (searchTerms): a space cannot be part of one.
    const key = terms.join(" ");
    const kept = this.#entries.use(key);
    if (kept !== undefined && kept.until > this.clock.now().getTime()) return kept.common;
    const common = await ask();
    this.#entries.set(key, { common, until: this.clock.now().getTime() + this.options.ttlMs });
    return common;
  }
}
