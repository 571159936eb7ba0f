import { Parser } from "htmlparser2";

/** What a page says of itself for a preview: its OpenGraph and Twitter card tags, its title and description, and its oEmbed. */
export interface PageSummary {
  readonly title: string | null;
  readonly description: string | null;
  readonly siteName: string | null;
  readonly image: string | null;
  readonly imageWidth: number | null;
  readonly imageHeight: number | null;
  readonly imageDescription: string | null;
  readonly authorName: string | null;
  readonly publishedAt: string | null;
  readonly language: string | null;
  /** The page's canonical address (`og:url`, else `<link rel="canonical">`). */
  readonly canonicalUrl: string | null;
  /** Where the page's oEmbed (JSON) is, when it says. */
  readonly oembedUrl: string | null;
}

/** The longest text kept of a title or description, as Mastodon keeps. */
const MAX_TITLE = 2_000;
const MAX_DESCRIPTION = 2_000;

/**
 * Reads the summary of an HTML page: the first value of each tag wins,
 * relative addresses are resolved against `base` and only http(s) ones are
 * kept, texts are trimmed and bounded.
 */
export function summarizePage(html: string, base: URL): PageSummary {
  const meta = new Map<string, string>();
  let title: string | null = null;
  let inTitle = false;
  let titleText = "";
  let language: string | null = null;
  let canonical: string | null = null;
  let oembed: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "html" && attributes.lang) language = attributes.lang;
        if (name === "title" && title === null) inTitle = true;
        if (name === "meta") {
          const key = (attributes.property ?? attributes.name ?? "").toLowerCase();
          const content = attributes.content;
          if (key !== "" && content !== undefined && !meta.has(key)) meta.set(key, content);
        }
        if (name === "link") {
          const rel = (attributes.rel ?? "").toLowerCase().split(/\s+/);
          if (rel.includes("canonical") && attributes.href) canonical ??= attributes.href;
          if (rel.includes("alternate") && (attributes.type ?? "").toLowerCase() === "application/json+oembed" && attributes.href) {
            oembed ??= attributes.href;
          }
        }
      },
      ontext(text) {
        if (inTitle) titleText += text;
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          title = titleText;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const pick = (...keys: string[]): string | null => {
    for (const key of keys) {
      const value = meta.get(key)?.trim();
      if (value) return value;
    }
    return null;
  };
  return {
    title: bounded(pick("og:title", "twitter:title") ?? title, MAX_TITLE),
    description: bounded(pick("og:description", "twitter:description", "description"), MAX_DESCRIPTION),
    siteName: bounded(pick("og:site_name"), MAX_TITLE),
    image: httpUrl(pick("og:image:secure_url", "og:image", "og:image:url", "twitter:image", "twitter:image:src"), base),
    imageWidth: dimension(pick("og:image:width")),
    imageHeight: dimension(pick("og:image:height")),
    imageDescription: bounded(pick("og:image:alt", "twitter:image:alt"), MAX_DESCRIPTION),
    authorName: bounded(pick("author", "article:author", "twitter:creator"), MAX_TITLE),
    publishedAt: timestamp(pick("article:published_time", "og:published_time", "date")),
    language: languageCode(pick("og:locale") ?? language),
    canonicalUrl: httpUrl(pick("og:url") ?? canonical, base),
    oembedUrl: httpUrl(oembed, base),
  };
}

function bounded(text: string | null, max: number): string | null {
  if (text === null) return null;
  const trimmed = text.replace(/\s+/g, " ").trim();
  if (trimmed === "") return null;
  return [...trimmed].length > max ? `${[...trimmed].slice(0, max - 1).join("")}…` : trimmed;
}

/** An http(s) address, resolved against `base`; null for anything else. */
export function httpUrl(value: string | null, base: URL): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

function dimension(value: string | null): number | null {
  if (value === null || !/^\d{1,5}$/.test(value)) return null;
  const number = Number(value);
  return number > 0 ? number : null;
}

function timestamp(value: string | null): string | null {
  if (value === null) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** `en_US`, `en-US` or `en` as the two or three letters of ISO 639; null otherwise. */
function languageCode(value: string | null): string | null {
  const code = value?.trim().toLowerCase().split(/[-_]/)[0];
  return code !== undefined && /^[a-z]{2,3}$/.test(code) ? code : null;
}
