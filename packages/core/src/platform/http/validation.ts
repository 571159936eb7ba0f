import type { z } from "zod";
import { type ErrorDetail, KithError } from "../../domain/errors.js";
import { isTextParameters } from "./rails-params.js";

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
  let result = schema.safeParse(value);
  if (!result.success && location !== "params" && isTextParameters(value)) {
    const lenient = withoutTextForStructures(value as Record<string, unknown>, result.error);
    if (lenient) result = schema.safeParse(lenient);
  }
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

/** Structures a form or query string can only name by keys (`fields_attributes[0][name]`), never as one value. */
const STRUCTURED = new Set(["object", "array", "record", "map", "set", "tuple"]);

/**
 * A form's or query string's parameters without the texts given where a structure is expected (`fields_attributes=`
 * or `fields_attributes=undefined`, as some clients send an unset field in multipart): Rails' strong parameters drop
 * a scalar where a hash or an array is permitted, so the field is absent rather than the request refused. Null when
 * no issue is of that kind; a required field dropped still fails, as absent.
 */
function withoutTextForStructures(value: Record<string, unknown>, error: z.ZodError): Record<string, unknown> | null {
  const paths = error.issues
    .filter((issue) => issue.code === "invalid_type" && STRUCTURED.has(String(issue.expected)) && issue.path.length > 0)
    .map((issue) => issue.path.map(String))
    .filter((path) => typeof valueAt(value, path) === "string");
  if (paths.length === 0) return null;
  const copy = structuredCopy(value) as Record<string, unknown>;
  const shortened = new Set<unknown[]>();
  for (const path of paths) {
    const parent = valueAt(copy, path.slice(0, -1));
    const key = path[path.length - 1] as string;
    if (Array.isArray(parent)) {
      // Marked, then taken out once all are: the other paths still name the indexes they were read at.
      parent[Number(key)] = DROPPED;
      shortened.add(parent);
    } else if (typeof parent === "object" && parent !== null) delete (parent as Record<string, unknown>)[key];
  }
  for (const list of shortened) list.splice(0, list.length, ...list.filter((item) => item !== DROPPED));
  return copy;
}

const DROPPED = Symbol("dropped");

function valueAt(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Objects and arrays copied, other values (texts, uploaded files) shared. */
function structuredCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(structuredCopy);
  if (typeof value !== "object" || value === null || value instanceof Blob) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, structuredCopy(inner)]));
}
