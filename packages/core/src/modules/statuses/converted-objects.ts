import { Article, Event, Link, Note, Page, Place, Question } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { embeddedOnly, isoOrNull } from "../federation/embedded-values.js";
import { httpUrlOrNull } from "../federation/remote-actor-fields.js";

/**
 * Objects that are not notes but are shown as statuses, as Mastodon shows
 * them: a Page (what Lemmy sends for a status of a community) and an Event
 * become a status whose text is their title, what they say, and their link.
 * An Event's times and place are kept beside the status (`remote_events`)
 * for calendar events.
 */
export type ConvertedObject = Page | Event;

export function isConvertedObject(object: unknown): object is ConvertedObject {
  return object instanceof Page || object instanceof Event;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function hrefOf(value: unknown): string | null {
  if (value instanceof URL) return httpUrlOrNull(value.href);
  if (value instanceof Link) return httpUrlOrNull(value.href?.href);
  return null;
}

/**
 * What a converted object links to: the link its attachment names (Lemmy's
 * link statuses), else its `url`, else its own id.
 */
export function linkOf(object: ConvertedObject, attachments: readonly unknown[]): string | null {
  for (const attachment of attachments) {
    const href = attachment instanceof Link ? hrefOf(attachment) : null;
    if (href) return href;
  }
  return hrefOf(object.url) ?? httpUrlOrNull(object.id?.href);
}

/** The HTML a converted object is shown with: its title, its content, its link. The caller sanitises it. */
export function titledContent(object: ConvertedObject, attachments: readonly unknown[]): string {
  const title = String(object.name ?? "").trim();
  const link = linkOf(object, attachments);
  const parts = [
    title ? `<p><strong>${escapeHtml(title)}</strong></p>` : "",
    String(object.content ?? ""),
    link ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : "",
  ];
  return parts.join("");
}

/**
 * The post an object quotes: FEP-044f's `quote` (Mastodon 4.5) first, else
 * `quoteUrl` and its aliases (Misskey's `_misskey_quote`, Fedibird's
 * `quoteUri`), which Fedify reads into one field. Null when none is an
 * http(s) URI.
 */
export function quotedUriOf(object: unknown): string | null {
  if (!(object instanceof Note || object instanceof Article || object instanceof Question)) return null;
  return httpUrlOrNull(object.quoteId?.href) ?? httpUrlOrNull(object.quoteUrl?.href);
}

/** Keeps what an Event says beyond its status: its title, times, place and link. */
export async function recordRemoteEvent(db: Kysely<Database>, statusId: string, event: Event, url: string | null, now: string): Promise<void> {
  const place =
    event.locationId === null ? await event.getLocation({ documentLoader: embeddedOnly, contextLoader: embeddedOnly }).catch(() => null) : null;
  const location = place instanceof Place ? String(place.name ?? "").trim() || null : null;
  await db
    .insertInto("remote_events")
    .values({
      status_id: statusId,
      name: String(event.name ?? "").slice(0, 1000),
      starts_at: isoOrNull(event.startTime),
      ends_at: isoOrNull(event.endTime),
      location: location?.slice(0, 1000) ?? null,
      url,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column("status_id").doNothing())
    .execute();
}
