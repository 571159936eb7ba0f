import { z } from "zod";

/**
 * Field schemas for values that arrive as strings from forms and query
 * strings as well as typed from JSON bodies.
 */

const TRUE_VALUES = new Set(["true", "1", "on", "yes"]);
const FALSE_VALUES = new Set(["false", "0", "off", "no", ""]);

/** A boolean from JSON, or `true`/`false`/`1`/`0`/`on` from a form. */
export const zBool = z.preprocess((value) => {
  if (typeof value !== "string") return value;
  const lower = value.toLowerCase();
  if (TRUE_VALUES.has(lower)) return true;
  if (FALSE_VALUES.has(lower)) return false;
  return value;
}, z.boolean());

/** An integer from JSON or a decimal string. */
export const zInt = z.preprocess(
  (value) => (typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : value),
  z.number().int(),
);

/** A list that may also arrive as one value or as a comma-free repeated key. */
export function zList<T extends z.ZodType>(item: T) {
  return z.preprocess((value) => (value === undefined || Array.isArray(value) ? value : [value]), z.array(item));
}

/** An ISO 8601 date and time (or date), parsed; a clear error for anything else. */
export const zDateTime = z
  .string()
  .max(64)
  .transform((value, context) => {
    const time = new Date(value);
    if (Number.isNaN(time.getTime())) {
      context.addIssue({ code: "custom", message: "is not a date and time" });
      return z.NEVER;
    }
    return time;
  });
