import { type UploadType, UPLOAD_TYPES } from "../../mastodon/entities/media.js";
import { KithError } from "../../domain/errors.js";

/** Upload tags are short words (Avatar, Header, Status, ...): the charset keeps them safe in searches. */
const TAG = /^[A-Za-z0-9_-]{1,32}$/;
const MAX_TAGS = 10;

export function normalizeTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const tag of tags) {
    const trimmed = tag.trim();
    if (!TAG.test(trimmed)) {
      throw new KithError("media.invalid", {
        message: "Tags are 1 to 32 letters, digits, '-' or '_'",
        details: [{ field: "tags", message: `Invalid tag: ${tag.slice(0, 40)}` }],
      });
    }
    if (!out.some((known) => known.toLowerCase() === trimmed.toLowerCase())) out.push(trimmed);
  }
  if (out.length > MAX_TAGS)
    throw new KithError("media.invalid", { message: `At most ${MAX_TAGS} tags`, details: [{ field: "tags", message: "Too many tags" }] });
  return out;
}

/** Mastodon's focal point `"x,y"`, each from -1.0 to 1.0. */
export function parseFocus(value: string | undefined): { x: number; y: number } | null {
  if (value === undefined || value.trim() === "") return null;
  const parts = value.split(",").map((part) => Number(part.trim()));
  const [x, y] = parts;
  if (
    parts.length !== 2 ||
    x === undefined ||
    y === undefined ||
    !Number.isFinite(x) ||
    !Number.isFinite(y) ||
    Math.abs(x) > 1 ||
    Math.abs(y) > 1
  ) {
    throw new KithError("media.invalid", {
      message: 'focus must be two numbers from -1.0 to 1.0, as "x,y"',
      details: [{ field: "focus", message: "Invalid focus" }],
    });
  }
  return { x, y };
}

/**
 * A client's file name, kept for display only (never for a storage key):
 * the last path segment, without control characters, bounded.
 */
export function displayFileName(name: string | undefined | null): string | null {
  if (!name) return null;
  const last = name.split(/[\\/]/).pop() ?? "";
  const clean = [...last]
    .filter((char) => {
      const code = char.charCodeAt(0);
      return code >= 0x20 && code !== 0x7f;
    })
    .join("")
    .trim()
    .slice(0, 255);
  return clean === "" || clean === "." || clean === ".." ? null : clean;
}

export function isUploadType(value: string): value is UploadType {
  return (UPLOAD_TYPES as readonly string[]).includes(value);
}

/** The spec's upload type of a Mastodon media type (remote attachments say only that). */
export function uploadTypeOfMastodonType(type: string | undefined): UploadType {
  switch (type) {
    case "video":
    case "gifv":
      return "VIDEO";
    case "audio":
      return "AUDIO";
    case "image":
      return "IMAGE";
    default:
      return "DOCUMENT";
  }
}
