import LinkifyIt from "linkify-it";
import { localAccountUrls } from "../../mastodon/serializers/account.js";
import { BoundedMap } from "../../bounded-map.js";
import { tagUrl } from "../../mastodon/serializers/status.js";

/**
 * Turns the plain text of a post into Mastodon's HTML: everything escaped
 * first, then anchors built for links, mentions of known accounts and
 * hashtags; paragraphs as `<p>`, single line breaks as `<br />`. Nothing the
 * author wrote reaches the HTML unescaped, so no sanitiser is needed after.
 */

/** An account a mention may point to. */
export interface MentionTarget {
  readonly id: string;
  readonly username: string;
  /** Null for local accounts. */
  readonly domain: string | null;
  readonly url: string | null;
}

export interface FormattedText {
  readonly html: string;
  /** Accounts mentioned, each once, in order of first mention. */
  readonly mentions: readonly MentionTarget[];
  /** Hashtags as written (first spelling of each), each once. */
  readonly tags: readonly string[];
}

/** A mention as written: `@name`, `@name@domain` or `@name@host:port` (the port kept in `domain`). */
export interface MentionHandle {
  readonly username: string;
  readonly domain: string | null;
}

const linkify = new LinkifyIt({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false })
  .add("mailto:", null)
  .add("ftp:", null)
  .add("//", null);

/**
 * `@name`, `@name@domain` or `@name@host:port` (a port only as a colon and
 * digits, so `@bob@example.com:` keeps its colon; a host without a dot, such
 * as `localhost`, only with a port). Trailing punctuation stays out; a
 * handle whose host cannot be read is no mention at all, never a local one.
 */
const MENTION =
  /(?<![\p{L}\p{N}_/@.])@([A-Za-z0-9_]{1,30})(?:@((?:[A-Za-z0-9-]+\.)+[A-Za-z0-9-]+(?::\d{1,5}(?!\d))?|[A-Za-z0-9-]+:\d{1,5}(?!\d)))?(?![@A-Za-z0-9_])/gu;
const HASHTAG = /(?<![\p{L}\p{N}_/#&])#([\p{L}\p{M}\p{N}_]*[\p{L}\p{M}_][\p{L}\p{M}\p{N}_]*)/gu;

interface Token {
  readonly start: number;
  readonly end: number;
  readonly kind: "link" | "mention" | "tag";
  readonly value: string;
  readonly handle?: MentionHandle;
}

/** The key that makes `#Café` and `#café` the same tag: NFKC, lower-cased. */
export function normalizeTag(name: string): string {
  return name.normalize("NFKC").toLowerCase();
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/** Texts tokenized lately: a new status's text is tokenized to count it, to find its mentions and to format it. */
const RECENT_TEXTS = 64;
const recentTokens = new BoundedMap<string, readonly Token[]>(RECENT_TEXTS);

function tokenize(text: string): readonly Token[] {
  let tokens = recentTokens.get(text);
  if (tokens) return tokens;
  tokens = tokensOf(text);
  recentTokens.set(text, tokens);
  return tokens;
}

function tokensOf(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of linkify.match(text) ?? []) {
    if (match.schema !== "http:" && match.schema !== "https:") continue;
    tokens.push({ start: match.index, end: match.lastIndex, kind: "link", value: match.url });
  }
  const free = (start: number, end: number) => tokens.every((token) => end <= token.start || start >= token.end);
  for (const match of text.matchAll(MENTION)) {
    const start = match.index;
    const end = start + match[0].length;
    if (!free(start, end)) continue;
    tokens.push({
      start,
      end,
      kind: "mention",
      value: match[0],
      handle: { username: match[1] ?? "", domain: match[2]?.toLowerCase() ?? null },
    });
  }
  for (const match of text.matchAll(HASHTAG)) {
    const start = match.index;
    const end = start + match[0].length;
    if (!free(start, end)) continue;
    tokens.push({ start, end, kind: "tag", value: match[1] ?? "" });
  }
  return tokens.sort((a, b) => a.start - b.start);
}

/** The mentions written in `text`, for looking the accounts up before formatting. */
export function mentionHandles(text: string): MentionHandle[] {
  return tokenize(text).flatMap((token) => (token.handle ? [token.handle] : []));
}

/** The hashtags written in `text`, first spelling of each. */
export function hashtags(text: string): string[] {
  const seen = new Map<string, string>();
  for (const token of tokenize(text)) {
    if (token.kind === "tag" && !seen.has(normalizeTag(token.value))) seen.set(normalizeTag(token.value), token.value);
  }
  return [...seen.values()];
}

function linkHtml(url: string): string {
  const scheme = /^(https?:\/\/(?:www\.)?)/i.exec(url)?.[1] ?? "";
  const rest = url.slice(scheme.length);
  const shown = rest.slice(0, 30);
  const hidden = rest.slice(30);
  return `<a href="${escapeHtml(url)}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">${escapeHtml(scheme)}</span><span class="${hidden ? "ellipsis" : ""}">${escapeHtml(shown)}</span><span class="invisible">${escapeHtml(hidden)}</span></a>`;
}

function mentionHtml(account: MentionTarget, origin: string): string {
  const url = account.url ?? localAccountUrls(origin, account.username).url;
  return `<span class="h-card" translate="no"><a href="${escapeHtml(url)}" class="u-url mention">@<span>${escapeHtml(account.username)}</span></a></span>`;
}

function tagHtml(name: string, origin: string): string {
  return `<a href="${escapeHtml(tagUrl(origin, normalizeTag(name)))}" class="mention hashtag" rel="tag">#<span>${escapeHtml(name)}</span></a>`;
}

function paragraphs(html: string): string {
  return html
    .replace(/\r\n?/g, "\n")
    .split(/\n{2,}/)
    .map((part) => part.replace(/^\n+|\n+$/g, ""))
    .filter((part) => part.length > 0)
    .map((part) => `<p>${part.replace(/\n/g, "<br />")}</p>`)
    .join("");
}

/**
 * Formats `text`. `resolve` finds the account a handle names (null when
 * unknown: the mention then stays plain text).
 */
export function formatText(text: string, origin: string, resolve: (handle: MentionHandle) => MentionTarget | null): FormattedText {
  const mentions = new Map<string, MentionTarget>();
  const tags = new Map<string, string>();
  let html = "";
  let at = 0;
  for (const token of tokenize(text)) {
    html += escapeHtml(text.slice(at, token.start));
    at = token.end;
    if (token.kind === "link") {
      html += linkHtml(token.value);
    } else if (token.kind === "tag") {
      if (!tags.has(normalizeTag(token.value))) tags.set(normalizeTag(token.value), token.value);
      html += tagHtml(token.value, origin);
    } else {
      const account = token.handle ? resolve(token.handle) : null;
      if (!account) {
        html += escapeHtml(token.value);
        continue;
      }
      if (!mentions.has(account.id)) mentions.set(account.id, account);
      html += mentionHtml(account, origin);
    }
  }
  html += escapeHtml(text.slice(at));
  return { html: paragraphs(html), mentions: [...mentions.values()], tags: [...tags.values()] };
}

const graphemeSegmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const PLAIN_ASCII = /^[\x20-\x7e\n]*$/;

/**
 * Characters a status uses against the limit, as Mastodon counts them: user
 * perceived characters, every link as `urlLength`, a remote mention as its
 * `@name` part only.
 */
export function countedLength(text: string, urlLength: number): number {
  let counted = "";
  let extra = 0;
  let at = 0;
  for (const token of tokenize(text)) {
    counted += text.slice(at, token.start);
    at = token.end;
    if (token.kind === "link") extra += urlLength;
    else if (token.kind === "mention" && token.handle) counted += `@${token.handle.username}`;
    else counted += text.slice(token.start, token.end);
  }
  counted += text.slice(at);
  // Printable ASCII and newlines are one grapheme each; only other text needs the (costly) segmenter.
  if (PLAIN_ASCII.test(counted)) return counted.length + extra;
  let graphemes = 0;
  for (const _ of graphemeSegmenter.segment(counted)) graphemes++;
  return graphemes + extra;
}
