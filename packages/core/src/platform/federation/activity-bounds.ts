/**
 * The largest shape of an activity the inbox reads. Reading one into
 * Fedify's vocabulary costs in proportion to its values (a JSON-LD
 * expansion of each), so an activity of 760 KB with 10 000 poll options
 * held the event loop for seconds even when its signature was refused
 * afterwards. The bounds are checked on the parsed JSON, a walk that stops
 * at the first bound passed, before anything reads it as an activity.
 *
 * What is kept of a status is bounded further (remote-statuses.ts keeps 20 poll
 * options, 64 tags, 16 attachments): these bounds are twice those, so an
 * activity a little over them is still taken and truncated, and only one
 * far over is refused. Mastodon's own limits are of the same order (4
 * poll options and 4 attachments for its users; 16 attachments kept of
 * remote statuses).
 */
export interface ActivityBounds {
  /** Nesting of objects and arrays. */
  readonly maxDepth: number;
  /** Values in all (objects, arrays, strings, numbers, booleans, nulls). */
  readonly maxValues: number;
  /** Items of any one array. */
  readonly maxArrayItems: number;
  /** Characters of any one string (a status's content is one). */
  readonly maxStringLength: number;
  /** Items of these properties, wherever they are in the activity (an array, or one value). */
  readonly maxItemsOf: Readonly<Record<string, number>>;
}

export const ACTIVITY_BOUNDS: ActivityBounds = {
  maxDepth: 24,
  // A post with 256 mentions and 1 000 addressees (some 2 300 values) took 0.2 s to read; a usual one has a few dozen.
  maxValues: 2_000,
  maxArrayItems: 500,
  maxStringLength: 500_000,
  maxItemsOf: { tag: 128, attachment: 32, oneOf: 40, anyOf: 40, icon: 16, image: 16, url: 64 },
};

/** Which bound an activity passes, said for the sender; null when it is within all. */
export function boundPassed(json: unknown, bounds: ActivityBounds = ACTIVITY_BOUNDS): string | null {
  let values = 0;
  const walk = (value: unknown, depth: number): string | null => {
    if (++values > bounds.maxValues) return `more than ${bounds.maxValues} values`;
    if (typeof value === "string") return value.length > bounds.maxStringLength ? `a string over ${bounds.maxStringLength} characters` : null;
    if (typeof value !== "object" || value === null) return null;
    if (depth >= bounds.maxDepth) return `nesting deeper than ${bounds.maxDepth}`;
    if (Array.isArray(value)) {
      if (value.length > bounds.maxArrayItems) return `an array of more than ${bounds.maxArrayItems} items`;
      for (const item of value) {
        const passed = walk(item, depth + 1);
        if (passed !== null) return passed;
      }
      return null;
    }
    const record = value as Record<string, unknown>;
    for (const name in record) {
      const item = record[name];
      const limit = Object.hasOwn(bounds.maxItemsOf, name) ? bounds.maxItemsOf[name] : undefined;
      if (limit !== undefined && Array.isArray(item) && item.length > limit) return `more than ${limit} items of "${name}"`;
      const passed = walk(item, depth + 1);
      if (passed !== null) return passed;
    }
    return null;
  };
  return walk(json, 0);
}
