/**
 * The JSON texts of entities a renderer already has (assembled from pieces it
 * kept from earlier requests), keyed by the entity object, so an answer made
 * of them is assembled instead of serialized again. Each text must equal
 * `JSON.stringify` of its entity, and the entity must not change afterwards:
 * code that adapts one (the filters setting `filtered`) makes a new object,
 * which is not in the map and is serialized as usual.
 */
export type JsonTexts = Map<object, string>;

/** `JSON.stringify(value)` (null for undefined), taking the texts of the value or of a list's items from `texts`. */
export function jsonText(value: unknown, texts?: ReadonlyMap<object, string>): string {
  if (texts === undefined || texts.size === 0 || typeof value !== "object" || value === null) return JSON.stringify(value ?? null);
  const known = texts.get(value);
  if (known !== undefined) return known;
  if (!Array.isArray(value)) return JSON.stringify(value);
  // As in JSON.stringify: what has no JSON form is null inside a list.
  const items = value.map(
    (item: unknown) => (typeof item === "object" && item !== null ? texts.get(item) : undefined) ?? JSON.stringify(item) ?? "null",
  );
  return `[${items.join(",")}]`;
}
