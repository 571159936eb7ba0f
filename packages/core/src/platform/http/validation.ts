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

/** Validates one part of a request; a failure becomes 400 (malformed) or 422 (invalid values) with per-field details. */
export function validate<T>(schema: z.ZodType<T>, value: unknown, location: "params" | "query" | "body"): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // Path parameters that do not parse name nothing that exists, whatever the issue (`us_1` where a report id goes).
  if (location === "params") throw new KithError("request.not_found");
  const details = detailsOf(result.error, location);
  const onlyInvalidValues = result.error.issues.every((issue) => INVALID_VALUE_CODES.has(issue.code));
  if (onlyInvalidValues) throw new KithError("request.validation_failed", { details });
  throw new KithError("request.invalid_parameters", { details });
}
