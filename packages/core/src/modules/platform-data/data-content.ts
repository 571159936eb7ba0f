import { KithError } from "../../domain/errors.js";
import { dataErrors } from "./data-errors.js";

/** The largest content an entry holds: its JSON text, in UTF-8 bytes (64 KiB). */
export const MAX_CONTENT_BYTES = 65_536;
/** Tags an entry has at most. */
export const MAX_TAGS = 20;
/** Characters of a tag or a type at most. */
export const MAX_LABEL_LENGTH = 64;

const UTF8 = new TextEncoder();

/** Whether a value of parsed JSON has a NUL character in a string or a key: PostgreSQL's jsonb cannot hold one. */
function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).some(([key, inner]) => key.includes("\u0000") || holdsNul(inner));
  }
  return false;
}

/** The content as the JSON text an entry keeps: 413 past MAX_CONTENT_BYTES, 422 with a NUL character. */
export function contentText(content: unknown): string {
  const text = JSON.stringify(content);
  if (UTF8.encode(text).length > MAX_CONTENT_BYTES) {
    throw new KithError(dataErrors["data.content_too_large"], {
      message: `An entry's content is at most ${MAX_CONTENT_BYTES} bytes of JSON`,
    });
  }
  if (holdsNul(content)) {
    throw new KithError(dataErrors["data.invalid"], {
      message: "Content may not hold NUL characters",
      details: [{ field: "content", message: "NUL character" }],
    });
  }
  return text;
}

/** The tags once each, in the order first given. */
export function distinctTags(tags: readonly string[]): string[] {
  return [...new Set(tags)];
}
