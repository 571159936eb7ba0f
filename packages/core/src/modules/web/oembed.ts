import { plainText, truncated } from "./html-template.js";
import { displayName, profilePath } from "./entry-html.js";
import type { PublicPages } from "./public-pages.js";
import { escapeHtml } from "../../platform/http/html.js";

/** Mastodon's width of an embedded post. */
const EMBED_WIDTH = 400;

export interface OEmbed {
  readonly type: "rich";
  readonly version: "1.0";
  readonly title: string;
  readonly author_name: string;
  readonly author_url: string;
  readonly provider_name: string;
  readonly provider_url: string;
  readonly cache_age: number;
  readonly html: string;
  readonly width: number;
  readonly height: null;
}

/** The acct and status id of a status page's address on this server, or null for any other address. */
export function statusPageOf(address: string, origin: string): { acct: string; statusId: string } | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  if (url.origin !== new URL(origin).origin) return null;
  const match = /^\/@([^/]+)\/([^/]+)\/?$/.exec(url.pathname);
  if (!match?.[1] || !match[2]) return null;
  try {
    return { acct: decodeURIComponent(match[1]), statusId: decodeURIComponent(match[2]) };
  } catch {
    return null;
  }
}

/**
 * oEmbed (https://oembed.com) of a public status page: a quote of it with a
 * link back, no script and no frame, so a page embedding it loads nothing
 * from here. Null for an address that is not a status a guest may see.
 */
export async function oEmbedOf(
  pages: PublicPages,
  address: string,
  origin: string,
  siteName: string,
  maxWidth?: number,
): Promise<OEmbed | null> {
  const target = statusPageOf(address, origin);
  if (!target) return null;
  const status = await pages.status(target.acct, target.statusId);
  if (!status) return null;
  const name = displayName(status.account);
  const author = `${origin}${profilePath(status.account)}`;
  const text = status.spoiler_text ? `Content warning: ${status.spoiler_text}` : plainText(status.content);
  const width = Math.min(EMBED_WIDTH, maxWidth ?? EMBED_WIDTH);
  return {
    type: "rich",
    version: "1.0",
    title: `${name}: "${truncated(text, 60)}"`,
    author_name: name,
    author_url: author,
    provider_name: siteName,
    provider_url: origin,
    cache_age: 86_400,
    html: `<blockquote class="kith-embed" style="max-width:${width}px"><p>${escapeHtml(text)}</p>&mdash; <a href="${escapeHtml(author)}">${escapeHtml(name)}</a> <a href="${escapeHtml(address)}">${escapeHtml(status.created_at.slice(0, 10))}</a></blockquote>`,
    width,
    height: null,
  };
}
