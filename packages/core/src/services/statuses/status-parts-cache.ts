import type { MentionEntity, TagEntity } from "../../api/entities/status.js";

/**
 * The parts of a rendered post that change only when the post itself is
 * written (created, edited): its mentions, tags, application and whether it
 * has a poll. Each costs a query to load, and a page of posts is read far
 * more often than it is written, so they are kept per process, keyed by the
 * post's id and version (`updated_at`, bumped by every edit on every
 * process). Edits in this process also forget the entry at once, so two
 * writes in the same millisecond cannot leave an old version behind.
 * Counters, visibility, polls' tallies, media and the viewer's own marks are
 * never cached: they are read fresh with the post's row.
 */
export interface StatusParts {
  readonly mentions: readonly MentionEntity[];
  readonly tags: readonly TagEntity[];
  readonly application: { readonly name: string; readonly website: string | null } | null;
  readonly hasPoll: boolean;
}

/** Entries kept; the least recently used go first. */
export const STATUS_PARTS_CACHE_SIZE = 20_000;

export class StatusPartsCache {
  readonly #entries = new Map<string, { readonly version: string; readonly parts: StatusParts }>();

  constructor(private readonly capacity: number = STATUS_PARTS_CACHE_SIZE) {}

  get(id: string, version: string): StatusParts | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (entry.version !== version) {
      this.#entries.delete(id);
      return undefined;
    }
    // Re-inserted so the map's order stays least recently used first.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry.parts;
  }

  set(id: string, version: string, parts: StatusParts): void {
    this.#entries.delete(id);
    this.#entries.set(id, { version, parts });
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  forget(id: string): void {
    this.#entries.delete(id);
  }
}
