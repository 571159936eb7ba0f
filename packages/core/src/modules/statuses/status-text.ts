import type { InnerStatusEntity, StatusEntity } from "../../mastodon/entities/status.js";
import { type JsonPieces, type JsonText, appendText, jsonBytes } from "../../platform/http/json-text.js";

/**
 * A status's JSON text in the pieces that stay the same from request to request
 * while its rows do: everything before `reblog` (the author's text inside)
 * and everything from `card` to `quote_approval`. The boosted status, the poll,
 * `filtered` and the viewer's marks are written in between for each render.
 * The keys are in the order `statusEntityOf` gives them, so the assembled
 * text is the one `JSON.stringify` gives for the entity (tested). The pieces
 * are kept as UTF-8 bytes, which an answer copies out without encoding them
 * again (json-text.ts).
 */
export interface StatusTextParts {
  readonly head: Uint8Array;
  readonly tail: Uint8Array;
}

/** The lasting pieces of `entity`'s text, its author's text being `accountText`. */
export function statusTextParts(entity: StatusEntity | InnerStatusEntity, accountText: string): StatusTextParts {
  const { id, uri, url, created_at } = entity;
  const { content, visibility, sensitive, spoiler_text, media_attachments, application, mentions, tags, emojis, reactions } = entity;
  const { reblogs_count, favourites_count, replies_count, quotes_count, in_reply_to_id, in_reply_to_account_id } = entity;
  const { card, language, text, edited_at, quote, quote_approval } = entity;
  const before = JSON.stringify({ id, uri, url, created_at });
  const after = JSON.stringify({
    content,
    visibility,
    sensitive,
    spoiler_text,
    media_attachments,
    application,
    mentions,
    tags,
    emojis,
    reactions,
    reblogs_count,
    favourites_count,
    replies_count,
    quotes_count,
    in_reply_to_id,
    in_reply_to_account_id,
  });
  const tail = JSON.stringify({ card, language, text, edited_at, quote, quote_approval });
  return {
    head: jsonBytes(`${before.slice(0, -1)},"account":${accountText},${after.slice(1, -1)}`),
    tail: jsonBytes(`,${tail.slice(1, -1)}`),
  };
}

/** The whole text of `entity` from its lasting pieces; `reblogText` is the boosted status's text, or "null". */
export function statusText(entity: StatusEntity | InnerStatusEntity, parts: StatusTextParts, reblogText: JsonText): JsonPieces {
  const filtered = entity.filtered;
  const pieces: (string | Uint8Array)[] = [parts.head];
  if (reblogText === "null" && entity.poll === null) pieces.push(NO_REBLOG_NO_POLL);
  else {
    pieces.push(',"reblog":');
    appendText(pieces, reblogText);
    pieces.push(member("poll", entity.poll));
  }
  const end = filtered?.length === 0 ? unfilteredEnd(entity) : undefined;
  pieces.push(parts.tail, end ?? `${filtered?.length === 0 ? ',"filtered":[]' : member("filtered", filtered)}${marksText(entity)}}`);
  return pieces;
}

/**
 * The common pieces between a status's kept ones, as bytes made once: copied into an answer as they are, where a
 * string would be measured and encoded again in every answer (json-text.ts).
 */
const NO_REBLOG_NO_POLL = jsonBytes(',"reblog":null,"poll":null');
const MARKS = ["favourited", "reblogged", "muted", "bookmarked", "pinned"] as const;
/** The end of a status no filter matched, for each combination of the five marks (bit i: MARKS[i]), then for a guest. */
const UNFILTERED_ENDS: readonly Uint8Array[] = [
  ...Array.from({ length: 32 }, (_, bits) =>
    jsonBytes(`,"filtered":[]${MARKS.map((mark, i) => `,"${mark}":${(bits & (1 << i)) !== 0}`).join("")}}`),
  ),
  jsonBytes(',"filtered":[]}'),
];

/** The end of a status no filter matched, from the bytes above; undefined when a mark is neither a flag nor absent. */
function unfilteredEnd(entity: StatusEntity | InnerStatusEntity): Uint8Array | undefined {
  let bits = 0;
  let absent = 0;
  for (let i = 0; i < MARKS.length; i++) {
    const mark = entity[MARKS[i] as (typeof MARKS)[number]];
    if (mark === true) bits |= 1 << i;
    else if (mark === undefined) absent++;
    else if (mark !== false) return undefined;
  }
  if (absent === MARKS.length) return UNFILTERED_ENDS[32];
  return absent === 0 ? UNFILTERED_ENDS[bits] : undefined;
}

/** `,"name":value` as JSON.stringify writes a member; nothing for undefined, which it leaves out. */
function member(name: string, value: unknown): string {
  if (value === undefined) return "";
  return `,"${name}":${value === null ? "null" : JSON.stringify(value)}`;
}

/** The viewer's marks: all five for a signed-in viewer, none for a guest. */
function marksText(entity: StatusEntity | InnerStatusEntity): string {
  const { favourited, reblogged, muted, bookmarked, pinned } = entity;
  if (favourited === undefined && reblogged === undefined && muted === undefined && bookmarked === undefined && pinned === undefined)
    return "";
  if (
    typeof favourited === "boolean" &&
    typeof reblogged === "boolean" &&
    typeof muted === "boolean" &&
    typeof bookmarked === "boolean" &&
    typeof pinned === "boolean"
  ) {
    return `,"favourited":${favourited},"reblogged":${reblogged},"muted":${muted},"bookmarked":${bookmarked},"pinned":${pinned}`;
  }
  return `,${JSON.stringify({ favourited, reblogged, muted, bookmarked, pinned }).slice(1, -1)}`;
}
