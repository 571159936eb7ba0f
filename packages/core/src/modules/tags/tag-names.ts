/**
 * Hashtag names as Mastodon accepts them: letters, digits, marks, `_` and
 * `·`, with at least one letter (so `#123` is not a tag). Stored lower-cased
 * and NFKC-normalised, shown as first written.
 */
const TAG_NAME = /^[\p{L}\p{N}\p{M}_·\u200c]{1,100}$/u;

export function normalizeTagName(raw: string): string | null {
  const name = raw.trim().replace(/^#/, "").normalize("NFKC");
  if (!TAG_NAME.test(name) || !/\p{L}/u.test(name)) return null;
  return name.toLowerCase();
}

export function displayTagName(raw: string): string {
  return raw.trim().replace(/^#/, "").normalize("NFKC");
}
