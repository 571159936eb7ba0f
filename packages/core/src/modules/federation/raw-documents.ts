/**
 * What Fedify's vocabulary does not read, read from the documents it was
 * given: an object keeps the JSON it was parsed from (compact at the top of
 * a document, expanded for an object embedded in one), and the compact
 * activity reader keeps the activity's. Only plain values are taken here;
 * every object is still what Fedify made of it.
 */

const AS = "https://www.w3.org/ns/activitystreams#";
const BLURHASH = ["blurhash", "toot:blurhash", "http://joinmastodon.org/ns#blurhash"];
const URL_KEYS = ["url", "href", `${AS}url`, `${AS}href`];

/** The JSON an object of Fedify's vocabulary was made from, when it kept it. */
export function documentOf(object: unknown): unknown {
  return object !== null && typeof object === "object" ? (object as { _cachedJsonLd?: unknown })._cachedJsonLd : undefined;
}

/** A plain string value under one of `keys`, compact (`"x"`) or expanded (`[{"@value": "x"}]` or `[{"@id": "x"}]`). */
function stringAt(node: Record<string, unknown>, keys: readonly string[]): string | null {
  for (const key of keys) {
    let value = node[key];
    if (Array.isArray(value)) value = value[0];
    if (typeof value === "string") return value;
    if (value && typeof value === "object") {
      const record = value as Record<string, unknown>;
      const inner = record["@value"] ?? record["@id"] ?? stringAt(record, URL_KEYS);
      if (typeof inner === "string") return inner;
    }
  }
  return null;
}

/**
 * The blurhash of each attachment in these documents, by the attachment's
 * URL: Mastodon sends it with every image and video, and Fedify's
 * vocabulary drops it. Any node with both is taken, at any depth.
 */
export function blurhashesIn(documents: readonly unknown[]): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 8 || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const node = value as Record<string, unknown>;
    const blurhash = stringAt(node, BLURHASH);
    const url = stringAt(node, URL_KEYS);
    // A blurhash is a few dozen characters of its base-83 alphabet.
    if (blurhash && url && /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,100}$/.test(blurhash)) found.set(url, blurhash);
    for (const inner of Object.values(node)) visit(inner, depth + 1);
  };
  for (const document of documents) visit(document, 0);
  return found;
}
