/**
 * Marks links whose text shows another address than the one they lead to,
 * as `<a href="https://evil.example">bank.example/login</a>`. The text is
 * kept (other software writes honest links with text of its own, which
 * Mastodon keeps too), but such a link gets the real address as its title
 * and, right after it, the real host in brackets, as Mastodon's proposal for
 * misleading links (mastodon/mastodon#11468) and glitch-soc's link origin
 * tags put it: whoever reads the status sees where the link goes before
 * following it, in any client.
 */

/** Characters that show nothing: written into a host they would hide that it is another. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}|\p{Cf}/gu;
/** Text that reads as an address: an optional scheme and user, a dotted host, an optional port and path. */
const ADDRESS_LIKE = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:[^\s/@]+@)?((?:[\p{L}\p{N}_-]+\.)+[\p{L}\p{N}-]{2,})\.?(?::\d+)?(?:[/?#]\S*)?$/iu;
const ANCHOR = /<a\b[^>]*>|<\/a>/g;

/** The host as a URL would hold it (punycode, lower case), without a leading `www.`; null when it is none. */
function comparableHost(host: string): string | null {
  if (!URL.canParse(`http://${host}`)) return null;
  return new URL(`http://${host}`).hostname.replace(/^www\./, "");
}

/** The host a link's text shows, when the text reads as an address; null when it reads as anything else. */
export function hostShownBy(text: string): string | null {
  const shown = text.replace(INVISIBLE, "").trim();
  const match = ADDRESS_LIKE.exec(shown);
  return match?.[1] ? comparableHost(match[1]) : null;
}

/** True when the text reads as an address on another host than `href`'s. */
export function isMisleadingLink(text: string, href: string): boolean {
  const shown = hostShownBy(text);
  if (shown === null || !URL.canParse(href)) return false;
  return shown !== comparableHost(new URL(href).host);
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function decodeAttribute(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/**
 * Marks the misleading links of HTML that the sanitizer wrote (so every tag
 * is well formed and every `<` of text escaped). `textOf` gives the text of
 * a link's inner HTML.
 */
export function markMisleadingLinks(html: string, textOf: (html: string) => string): string {
  let out = "";
  let last = 0;
  const open: { start: number; tag: string; href: string | null }[] = [];
  for (const match of html.matchAll(ANCHOR)) {
    out += html.slice(last, match.index);
    last = (match.index ?? 0) + match[0].length;
    if (match[0] !== "</a>") {
      const href = /\shref="([^"]*)"/.exec(match[0])?.[1];
      open.push({ start: out.length, tag: match[0], href: href === undefined ? null : decodeAttribute(href) });
      out += match[0];
      continue;
    }
    const anchor = open.pop();
    if (!anchor?.href || !isMisleadingLink(textOf(out.slice(anchor.start + anchor.tag.length)), anchor.href)) {
      out += "</a>";
      continue;
    }
    const titled = anchor.tag.replace(/\stitle="[^"]*"/, "").replace(/^<a\b/, `<a title="${escapeAttribute(anchor.href)}"`);
    const inner = out.slice(anchor.start + anchor.tag.length);
    out = `${out.slice(0, anchor.start)}${titled}${inner}</a> <span class="link-origin">[${escapeAttribute(new URL(anchor.href).host)}]</span>`;
  }
  return out + html.slice(last);
}
