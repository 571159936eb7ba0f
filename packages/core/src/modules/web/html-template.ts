import { escapeHtml } from "../../platform/http/html.js";

/**
 * HTML that is safe to insert as it is: what `html` builds, or markup the
 * server sanitized already (a status's content, an account's note) marked
 * with `trustedHtml`. Everything else a template receives is escaped, so a
 * page cannot forget to escape a value.
 */
export class SafeHtml {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

/** What a template may hold: text (escaped), safe HTML, numbers, nothing, or a list of these. */
export type HtmlValue = SafeHtml | string | number | null | undefined | false | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** A tagged template: the literal parts are kept, every value is escaped unless it is SafeHtml. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}

/** Marks markup the server already sanitized (the HTML the API hands out as `content` or `note`). */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** The text of sanitized markup, for a description or a feed title: tags dropped, entities of the markup decoded. */
export function plainText(markup: string): string {
  return markup
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/p>\s*<p[^>]*>/gi, "\n\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|apos|#39);/gi, (entity, name: string) => {
      const lower = name.toLowerCase();
      if (lower.startsWith("#")) {
        const code = lower.startsWith("#x") ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
        // A number past Unicode's range is left as written rather than thrown on.
        return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
      }
      return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[lower] ?? entity;
    })
    .trim();
}

/** At most `length` characters, cut at a word where it can be, with an ellipsis. */
export function truncated(text: string, length: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= length) return flat;
  const cut = flat.slice(0, length - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > length / 2 ? cut.slice(0, space) : cut}…`;
}
