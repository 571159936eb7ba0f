/**
 * Remote statuses arrive as HTML written by another server: only a small set
 * of inline and block tags is kept (what Mastodon keeps), with `href` on
 * links limited to http(s) and `class` to the microformats clients style.
 * Everything else is dropped; the text of unknown tags stays, the content
 * of script-like tags goes with them. A link whose text shows another host
 * than its href is marked as such (misleading-links.ts).
 */
import { markMisleadingLinks } from "./misleading-links.js";

const ALLOWED_TAGS = new Set([
  "p",
  "br",
  "span",
  "a",
  "del",
  "s",
  "pre",
  "blockquote",
  "code",
  "b",
  "strong",
  "u",
  "i",
  "em",
  "ul",
  "ol",
  "li",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
]);
const VOID_TAGS = new Set(["br"]);
/** Tags whose content is never text worth keeping. */
const DROPPED_WITH_CONTENT = new Set(["script", "style", "template", "iframe", "object", "embed", "noscript", "textarea", "title"]);
const ALLOWED_CLASSES = new Set(["h-card", "u-url", "mention", "hashtag", "invisible", "ellipsis", "quote-inline"]);

const TOKEN = /<!--[\s\S]*?(?:-->|$)|<\/?([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|<[!?/][^>]*>?|</g;
const ATTRIBUTE = /([a-zA-Z_:][a-zA-Z0-9_:.-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function escapeAttribute(value: string): string {
  return value
    .replace(/&(?!(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);)/g, "&amp;")
    .replace(/"/g, "&quot;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-fA-F]+);?/g, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&colon;/gi, ":")
    .replace(/&amp;/g, "&");
}

function safeHref(raw: string): string | null {
  const decoded = decodeEntities(raw).trim();
  if (!URL.canParse(decoded)) return null;
  const url = new URL(decoded);
  return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
}

function attributesOf(tag: string, source: string): string {
  const kept: string[] = [];
  for (const match of source.matchAll(ATTRIBUTE)) {
    const name = (match[1] ?? "").toLowerCase();
    const value = match[2] ?? match[3] ?? match[4] ?? "";
    if (tag === "a" && name === "href") {
      const href = safeHref(value);
      if (href) kept.push(`href="${escapeAttribute(href)}"`);
    } else if (name === "class") {
      const classes = value.split(/\s+/).filter((name) => ALLOWED_CLASSES.has(name));
      if (classes.length > 0) kept.push(`class="${classes.join(" ")}"`);
    } else if (tag === "a" && name === "title") {
      kept.push(`title="${escapeAttribute(value)}"`);
    }
  }
  // Links of other servers never get the reader's referrer or window.
  if (tag === "a") kept.push('rel="nofollow noopener noreferrer"', 'target="_blank"');
  return kept.length > 0 ? ` ${kept.join(" ")}` : "";
}

/** The HTML of a remote status, reduced to what Kith shows. */
export function sanitizeHtml(html: string): string {
  let out = "";
  let last = 0;
  let dropping: string | null = null;
  const open: string[] = [];
  for (const match of html.matchAll(TOKEN)) {
    const index = match.index ?? 0;
    const text = html.slice(last, index);
    last = index + match[0].length;
    if (dropping === null) out += text.replace(/>/g, "&gt;");
    const name = match[1]?.toLowerCase();
    if (!name) {
      // Comments, doctypes and a lone "<" carry nothing to show.
      if (dropping === null && match[0] === "<") out += "&lt;";
      continue;
    }
    const closing = match[0].startsWith("</");
    if (dropping !== null) {
      if (closing && name === dropping) dropping = null;
      continue;
    }
    if (DROPPED_WITH_CONTENT.has(name)) {
      if (!closing && !match[0].endsWith("/>")) dropping = name;
      continue;
    }
    if (!ALLOWED_TAGS.has(name)) continue;
    if (closing) {
      const at = open.lastIndexOf(name);
      if (at === -1) continue;
      // Closing an outer tag closes the ones left open inside it.
      for (const inner of open.splice(at).reverse()) out += `</${inner}>`;
      continue;
    }
    out += `<${name}${attributesOf(name, match[2] ?? "")}>`;
    if (!VOID_TAGS.has(name)) open.push(name);
  }
  if (dropping === null) out += html.slice(last).replace(/>/g, "&gt;");
  for (const inner of open.reverse()) out += `</${inner}>`;
  return markMisleadingLinks(out, textOfHtml);
}

/** Plain text of HTML (for the `text` column of remote statuses and search). */
export function textOfHtml(html: string): string {
  return decodeEntities(
    html
      .replace(/<br\s*\/?>/gi, "\n")
      .replace(/<\/p>\s*<p[^>]*>/gi, "\n\n")
      .replace(/<[^>]*>/g, ""),
  )
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .trim();
}
