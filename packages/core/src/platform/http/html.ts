/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/**
 * Plain text as HTML paragraphs (a blank line between them), its line breaks
 * kept: a group's or a channel's note as its account's, the instance's
 * extended description.
 */
export function paragraphsHtml(text: string): string {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => `<p>${escapeHtml(part).replaceAll(/\r?\n/g, "<br />")}</p>`)
    .join("");
}
