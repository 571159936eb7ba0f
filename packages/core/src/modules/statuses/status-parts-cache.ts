import type { CustomEmojiEntity } from "../../mastodon/entities/custom-emoji.js";
import type { ReactionEntity } from "../../mastodon/entities/reaction.js";
import type { MentionEntity, TagEntity } from "../../mastodon/entities/status.js";
import { RenderMemo } from "../../platform/cache/render-memo.js";
import type { PreviewCardEntity } from "../../mastodon/entities/preview-card.js";

/**
 * The parts of a rendered status that change only when the status itself is
 * written (created, edited): its mentions, tags, application, custom
 * emojis, reactions (a reaction raises the status's version,
 * status-reactions.ts) and whether it has media or a poll (attachments and
 * polls are added only in the transaction that writes the status's row). Each costs a query to load, and a
 * page of statuses is read far
 * more often than it is written, so they are kept per process, keyed by the
 * status's id and version (`statuses.version`, raised by the database on every
 * edit from any process, migration 0020). Edits in this process also forget
 * the entry at once, which frees it sooner.
 * Counters, visibility, polls' tallies, the media themselves (their
 * descriptions and processing change without the status) and the viewer's own
 * marks are never cached: they are read fresh with the status's row, the media
 * and polls only of statuses that have them.
 */
export interface StatusParts {
  readonly mentions: readonly MentionEntity[];
  readonly tags: readonly TagEntity[];
  readonly application: { readonly name: string; readonly website: string | null } | null;
  readonly emojis: readonly CustomEmojiEntity[];
  readonly reactions: readonly ReactionEntity[];
  readonly hasMedia: boolean;
  readonly hasPoll: boolean;
  /** The preview of its first link; attaching one raises the status's version. */
  readonly card: PreviewCardEntity | null;
}

/** Entries kept; the least recently used go first. */
export const STATUS_PARTS_CACHE_SIZE = 20_000;

export class StatusPartsCache {
  readonly #memo: RenderMemo<StatusParts>;

  constructor(capacity: number = STATUS_PARTS_CACHE_SIZE) {
    this.#memo = new RenderMemo(capacity);
  }

  get(id: string, version: number): StatusParts | undefined {
    return this.#memo.get(id, [version]);
  }

  set(id: string, version: number, parts: StatusParts): void {
    this.#memo.set(id, [version], parts);
  }

  forget(id: string): void {
    this.#memo.forget(id);
  }
}
