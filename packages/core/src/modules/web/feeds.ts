import type { StatusEntity } from "../../mastodon/entities/status.js";
import { escapeHtml } from "../../platform/http/html.js";
import { plainText, truncated } from "./html-template.js";

/** What a feed is about: its title, its page, and its own address. */
export interface FeedSource {
  readonly title: string;
  readonly description: string;
  /** The HTML page the feed follows. */
  readonly page: string;
  /** The feed's own address. */
  readonly self: string;
  readonly image?: string;
}

const TITLE_LENGTH = 80;

/** XML text and attribute values escape as HTML's do. */
const xml = escapeHtml;

function itemTitle(status: StatusEntity): string {
  const text = status.spoiler_text || plainText(status.content);
  return truncated(text, TITLE_LENGTH) || `Post by ${status.account.acct}`;
}

/** Content with its warning kept in front, so a reader's feed shows it first. */
function itemHtml(status: StatusEntity): string {
  const warning = status.spoiler_text ? `<p><strong>${xml(status.spoiler_text)}</strong></p>` : "";
  const media = status.media_attachments
    .filter((attachment) => attachment.url !== null)
    .map(
      (attachment) => `<p><a href="${xml(attachment.url ?? "")}">${xml(attachment.description || `${attachment.type} attachment`)}</a></p>`,
    )
    .join("");
  return warning + status.content + media;
}

/** RSS 2.0, as Mastodon serves `/@user.rss` and `/tags/name.rss`. */
export function rssFeed(source: FeedSource, statuses: readonly StatusEntity[], pageOf: (status: StatusEntity) => string): string {
  const items = statuses
    .map(
      (status) => `<item><guid isPermaLink="true">${xml(pageOf(status))}</guid><link>${xml(pageOf(status))}</link>
<title>${xml(itemTitle(status))}</title><pubDate>${new Date(status.created_at).toUTCString()}</pubDate>
<description>${xml(itemHtml(status))}</description>${status.tags.map((tag) => `<category>${xml(tag.name)}</category>`).join("")}</item>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
<title>${xml(source.title)}</title><description>${xml(source.description)}</description><link>${xml(source.page)}</link>
<atom:link href="${xml(source.self)}" rel="self" type="application/rss+xml"/>
${source.image ? `<image><url>${xml(source.image)}</url><title>${xml(source.title)}</title><link>${xml(source.page)}</link></image>` : ""}
${items}
</channel></rss>`;
}

/** Atom (RFC 4287) of the same items. */
export function atomFeed(source: FeedSource, statuses: readonly StatusEntity[], pageOf: (status: StatusEntity) => string): string {
  const updated = statuses[0]?.created_at ?? new Date(0).toISOString();
  const entries = statuses
    .map(
      (status) => `<entry><id>${xml(status.uri)}</id><link rel="alternate" type="text/html" href="${xml(pageOf(status))}"/>
<title>${xml(itemTitle(status))}</title><published>${xml(status.created_at)}</published><updated>${xml(status.edited_at ?? status.created_at)}</updated>
<author><name>${xml(status.account.display_name || status.account.username)}</name><uri>${xml(status.account.url)}</uri></author>
<content type="html">${xml(itemHtml(status))}</content>${status.tags.map((tag) => `<category term="${xml(tag.name)}"/>`).join("")}</entry>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<id>${xml(source.self)}</id><title>${xml(source.title)}</title><subtitle>${xml(source.description)}</subtitle><updated>${xml(updated)}</updated>
<link rel="self" type="application/atom+xml" href="${xml(source.self)}"/><link rel="alternate" type="text/html" href="${xml(source.page)}"/>
${source.image ? `<icon>${xml(source.image)}</icon>` : ""}
${entries}
</feed>`;
}
