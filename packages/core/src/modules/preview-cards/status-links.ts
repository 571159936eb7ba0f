import { Parser } from "htmlparser2";

/**
 * The first address in a status's HTML worth a preview: a link of the text
 * that is no mention and no hashtag (Mastodon marks those with the classes
 * `mention` and `hashtag`, and others with `rel="tag"`), over http(s), and
 * not to this server. Null when there is none.
 */
export function previewableLink(contentHtml: string, ownOrigin: string): string | null {
  let found: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (found !== null || name !== "a" || !attributes.href) return;
        const classes = (attributes.class ?? "").split(/\s+/);
        const rel = (attributes.rel ?? "").split(/\s+/);
        if (classes.includes("mention") || classes.includes("hashtag") || rel.includes("tag")) return;
        try {
          const url = new URL(attributes.href);
          if ((url.protocol === "https:" || url.protocol === "http:") && url.origin !== ownOrigin) found = url.href;
        } catch {
          // Not an address: no preview.
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(contentHtml);
  parser.end();
  return found;
}
