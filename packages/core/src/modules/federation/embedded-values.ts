/**
 * Reading what an object embeds, without fetching: a document loader that
 * refuses every URL (an emoji's icon, an event's place, an actor's tags are
 * embedded by the servers that send them; one given only by its URL is
 * passed over), and the time of a Fedify date.
 */

/** Refuses every fetch: only what is embedded is read. */
export const embeddedOnly = async (url: string): Promise<never> => {
  throw new Error(`${url} is not embedded`);
};

/** The time of a Fedify date (a Temporal.Instant) as ISO text; null when there is none or it is no time. */
export function isoOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  // A Temporal.Instant knows its time; printing it first is slow in the polyfill.
  const epoch = (value as { epochMilliseconds?: unknown }).epochMilliseconds;
  const time = typeof epoch === "number" ? epoch : Date.parse(String(value));
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}

/** What can hold tags: a status, an actor, a reaction. */
interface Tagged {
  getTags(options: { documentLoader: typeof embeddedOnly; contextLoader: typeof embeddedOnly }): AsyncIterable<unknown>;
}

/** The tags an object embeds (custom emojis, mentions, hashtags), at most 64; a tag given only by its URL ends the list. */
export async function embeddedTagsOf(object: Tagged): Promise<unknown[]> {
  const tags: unknown[] = [];
  try {
    for await (const tag of object.getTags({ documentLoader: embeddedOnly, contextLoader: embeddedOnly })) {
      tags.push(tag);
      if (tags.length >= 64) break;
    }
  } catch {
    // A tag given by its URL: the embedded ones read before it are kept.
  }
  return tags;
}
