import type { z } from "zod";
import { type ErrorDetail, KithError } from "../../domain/errors.js";

/** Issue codes that mean "the value is well-formed but not acceptable" (422), as opposed to "malformed" (400). */
const INVALID_VALUE_CODES = new Set(["too_small", "too_big", "invalid_format", "invalid_value", "custom", "not_multiple_of"]);

function detailsOf(error: z.ZodError, location: string): ErrorDetail[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    return { field: path ? `${location}.${path}` : location, message: issue.message, code: issue.code };
  });
}

/** Where a NUL character sits in a parsed value (a dot path, "" for the value itself), or null when it has none. */
function nulPathOf(value: unknown, depth = 0): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? "" : null;
  // Parsed input is bounded in depth before it gets here; the bound only keeps a cyclic value from looping.
  if (typeof value !== "object" || value === null || depth > 64) return null;
  for (const [key, item] of Object.entries(value)) {
    const inner = nulPathOf(item, depth + 1);
    if (inner !== null) return inner ? `${key}.${inner}` : key;
  }
  return null;
}

/**
 * Validates one part of a request; a failure becomes 400 (malformed) or 422
 * (invalid values) with per-field details. A NUL character in any text is
 * refused here, once for every route: PostgreSQL cannot store one, and no
 * field of the API has a use for it.
 */
export function validate<T>(schema: z.ZodType<T>, value: unknown, location: "params" | "query" | "body"): T {
  const result = schema.safeParse(value);
  if (result.success) {
    const nulAt = nulPathOf(result.data);
    if (nulAt === null) return result.data;
    if (location === "params") throw new KithError("request.not_found");
    const field = nulAt ? `${location}.${nulAt}` : location;
    throw new KithError("request.validation_failed", { details: [{ field, message: "Contains a NUL character", code: "nul_character" }] });
  }
  // Path parameters that do not parse name nothing that exists, whatever the issue (`us_1` where a report id goes).
  if (location === "params") throw new KithError("request.not_found");
  const details = detailsOf(result.error, location);
  const onlyInvalidValues = result.error.issues.every((issue) => INVALID_VALUE_CODES.has(issue.code));
  if (onlyInvalidValues) throw new KithError("request.validation_failed", { details });
  throw new KithError("request.invalid_parameters", { details });
}
