import { acceptedTypes } from "../../platform/http/accepted-types.js";

/** What ActivityPub clients ask for: Mastodon and Fedify send one of these first, often with a profile parameter. */
const ACTIVITY_TYPES = new Set(["application/activity+json", "application/ld+json"]);
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/**
 * Whether a request wants the ActivityPub document rather than the page: the
 * first of the types it names that either form answers decides; a browser's
 * `text/html` or a bare `*\/*` gets the page.
 */
export function wantsActivityJson(request: Request): boolean {
  for (const type of acceptedTypes(request.headers.get("accept") ?? "")) {
    if (ACTIVITY_TYPES.has(type)) return true;
    if (HTML_TYPES.has(type)) return false;
  }
  return false;
}
