import { type HtmlValue, type SafeHtml, html, trustedHtml } from "./html-template.js";
import { PAGE_STYLE } from "./page-style.js";

/** A link in the page's head to another form of it: a feed, the ActivityPub document, an oEmbed answer. */
export interface AlternateLink {
  readonly rel: string;
  readonly type: string;
  readonly href: string;
  readonly title?: string;
}

/** What a page tells link previews, search engines and feed readers about itself. */
export interface PageMeta {
  readonly title: string;
  /** Plain text; shown by link previews. */
  readonly description: string;
  /** The page's own address. */
  readonly canonical: string;
  readonly ogType: "website" | "profile" | "article";
  /** A picture for previews (an avatar, a post's first image). */
  readonly image?: { readonly url: string; readonly alt?: string; readonly large?: boolean } | undefined;
  /** Search engines should not index the page (the account chose not to be indexed). */
  readonly noindex?: boolean;
  readonly links?: readonly AlternateLink[];
  /** Further `<meta>` of OpenGraph's vocabulary (`profile:username`, `article:published_time`). */
  readonly extraMeta?: readonly { readonly property: string; readonly content: string }[];
}

export interface SiteInfo {
  readonly name: string;
  readonly origin: string;
}

/** Headers of every page: no framing, no scripts, no outside styles; images may be remote avatars and media. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; img-src 'self' https: data:; media-src 'self' https:; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  vary: "Accept",
};

function metaTags(site: SiteInfo, meta: PageMeta): SafeHtml {
  const property = (name: string, content: string | undefined) =>
    content === undefined || content === "" ? "" : html`<meta property="${name}" content="${content}">`;
  const named = (name: string, content: string | undefined) =>
    content === undefined || content === "" ? "" : html`<meta name="${name}" content="${content}">`;
  const card = meta.image?.large ? "summary_large_image" : "summary";
  return html`<meta name="description" content="${meta.description}">
${meta.noindex ? html`<meta name="robots" content="noindex, noarchive">` : ""}
<link rel="canonical" href="${meta.canonical}">
${property("og:site_name", site.name)}${property("og:type", meta.ogType)}${property("og:title", meta.title)}
${property("og:description", meta.description)}${property("og:url", meta.canonical)}
${property("og:image", meta.image?.url)}${property("og:image:alt", meta.image?.alt)}
${(meta.extraMeta ?? []).map((entry) => property(entry.property, entry.content))}
${named("twitter:card", card)}${named("twitter:title", meta.title)}${named("twitter:description", meta.description)}
${named("twitter:image", meta.image?.url)}
${(meta.links ?? []).map((link) => html`<link rel="${link.rel}" type="${link.type}" href="${link.href}"${link.title ? html` title="${link.title}"` : ""}>`)}`;
}

/** A whole page: the head with its metadata and style, the site's header and footer around `body`. */
export function pageDocument(site: SiteInfo, meta: PageMeta, body: HtmlValue, lang = "en"): string {
  return html`<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${meta.title}</title>
${metaTags(site, meta)}
<style>${trustedHtml(PAGE_STYLE)}</style></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="site"><a href="/">${site.name}</a></header>
<main id="main">${body}</main>
<footer class="site"><nav aria-label="Site"><a href="/about">About ${site.name}</a> · <a href="/api/v1/openapi.json">API</a></nav></footer>
</body></html>`.text;
}
