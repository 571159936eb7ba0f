import { Buffer } from "node:buffer";

/**
 * JSON text as pieces in order: strings, and UTF-8 bytes a renderer kept
 * from earlier requests. An answer assembled from kept bytes is copied out as
 * it is, instead of being joined into one string and encoded again.
 */
export type JsonPieces = readonly (string | Uint8Array)[];

/** An entity's JSON text: one string, or pieces. */
export type JsonText = string | JsonPieces;

/**
 * The JSON texts of entities a renderer already has (assembled from pieces it
 * kept from earlier requests), keyed by the entity object, so an answer made
 * of them is assembled instead of serialized again. Each text must equal
 * `JSON.stringify` of its entity, and the entity must not change afterwards:
 * code that adapts one (the filters setting `filtered`) makes a new object,
 * which is not in the map and is serialized as usual.
 */
export type JsonTexts = Map<object, JsonText>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Adds `text` at the end of `pieces`. */
export function appendText(pieces: (string | Uint8Array)[], text: JsonText): void {
  if (typeof text === "string") pieces.push(text);
  else for (const piece of text) pieces.push(piece);
}

/**
 * `JSON.stringify(value)` (null for undefined) as an answer's body, taking the
 * texts of the value or of a list's items from `texts`: a string, or the
 * pieces of the whole when a text holds kept bytes. The pieces are left for
 * the host to assemble (the node adapter does it in memory it reuses): a new
 * buffer for every answer of 70 KB is memory outside V8's heap, and that much
 * of it made V8 run a full collection about every second under load.
 */
export function jsonBody(value: unknown, texts?: ReadonlyMap<object, JsonText>): string | JsonPieces {
  if (texts === undefined || texts.size === 0 || typeof value !== "object" || value === null) return JSON.stringify(value ?? null);
  const known = texts.get(value);
  if (known !== undefined) return stringOrPieces(known);
  if (!Array.isArray(value)) return JSON.stringify(value);
  const pieces: (string | Uint8Array)[] = ["["];
  value.forEach((item: unknown, index) => {
    if (index > 0) pieces.push(",");
    const text = typeof item === "object" && item !== null ? texts.get(item) : undefined;
    // As in JSON.stringify: what has no JSON form is null inside a list.
    if (text === undefined) pieces.push(JSON.stringify(item) ?? "null");
    else appendText(pieces, text);
  });
  pieces.push("]");
  return stringOrPieces(pieces);
}

/** The text as one string: for readers of the characters (tests, a text kept as a string). */
export function jsonString(text: JsonText): string {
  if (typeof text === "string") return text;
  return text.map((piece) => (typeof piece === "string" ? piece : decoder.decode(piece))).join("");
}

/** UTF-8 bytes of a piece of JSON, to be kept and written out again. */
export function jsonBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

function stringOrPieces(text: JsonText): string | JsonPieces {
  if (typeof text === "string") return text;
  if (text.every((piece) => typeof piece === "string")) return text.join("");
  return text;
}

/**
 * The pieces' bytes in one array of their exact length: kept bytes are
 * copied, strings written in place (encoding each short string into an array
 * of its own cost more than the copying it saves). For readers of an answer
 * other than a host that writes its pieces itself.
 */
export function utf8Of(pieces: JsonPieces): Uint8Array {
  let length = 0;
  for (const piece of pieces) length += typeof piece === "string" ? Buffer.byteLength(piece, "utf8") : piece.length;
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) {
    if (typeof piece !== "string") {
      out.set(piece, at);
      at += piece.length;
    } else if (piece.length > 0) {
      at += out.write(piece, at, "utf8");
    }
  }
  return out;
}
