/**
 * The few XML bits S3 speaks back to us, read without an XML library: the
 * responses Kith needs (errors, an upload id) are flat, and each value is
 * the text of one element.
 */

const ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_match, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
    if (entity.startsWith("#")) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
    return ENTITIES[entity] ?? "";
  });
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

/** The decoded text of the first `<name>` element, or null when there is none. */
export function xmlElementText(xml: string, name: string): string | null {
  const match = new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml);
  return match?.[1] === undefined ? null : decodeEntities(match[1]);
}

/** Whether the document's root element is `<Error>` (S3 can answer 200 with one, e.g. to CompleteMultipartUpload). */
export function isErrorDocument(xml: string): boolean {
  return /^\s*(?:<\?xml[^>]*\?>\s*)?<Error[\s>]/.test(xml);
}
