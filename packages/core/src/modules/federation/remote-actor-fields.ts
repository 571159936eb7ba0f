import { sanitizeHtml, textOfHtml } from "../../platform/federation/html-sanitizer.js";

/**
 * What a remote actor may put into an account row, made safe: another
 * server writes these, and local clients show them as if they were ours.
 */

/**
 * The characters of a username on a WebFinger handle, as Mastodon accepts
 * them from other servers: letters, digits and underscores, with dots and
 * hyphens inside. Anything else (`@`, `:`, `/`, spaces) would let a
 * username spell out another account's handle (`alice@this.server:3000`).
 */
const REMOTE_USERNAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$/;
export const MAX_REMOTE_USERNAME_LENGTH = 255;
/** Mastodon keeps this much of a remote display name. */
export const MAX_REMOTE_DISPLAY_NAME_LENGTH = 100;

/** The username, when it is one WebFinger can name; null otherwise. */
export function acceptableRemoteUsername(value: string): string | null {
  return value.length <= MAX_REMOTE_USERNAME_LENGTH && REMOTE_USERNAME.test(value) ? value : null;
}

/** A bio or profile field value: the HTML of statuses, reduced the same way. */
export function remoteProfileHtml(html: string): string {
  return sanitizeHtml(html);
}

/**
 * A display name is plain text in Mastodon's API: the markup is taken out
 * (script-like content with it), and no angle bracket is left for a client
 * that would render it as HTML.
 */
export function remoteDisplayName(value: string): string {
  return textOfHtml(sanitizeHtml(value))
    .replace(/[<>]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, MAX_REMOTE_DISPLAY_NAME_LENGTH);
}

/** An http(s) address, normalised; null for any other scheme (`javascript:`, `data:`) or none. */
export function httpUrlOrNull(value: string | null | undefined): string | null {
  if (!value || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
}
