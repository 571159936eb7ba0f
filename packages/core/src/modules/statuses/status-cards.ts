import type { PreviewCardEntity } from "../../mastodon/entities/preview-card.js";

/** The preview cards of statuses, by status id: those that have none are absent. */
export interface StatusCardSource {
  cardsOf(statusIds: readonly string[]): Promise<ReadonlyMap<string, PreviewCardEntity>>;
}

/**
 * Preview cards as the status renderer asks for them: none until a module
 * binds its source (the preview-cards module reads linked pages). A card is
 * part of what is kept of a status between renders; whoever attaches one
 * raises the status's version.
 */
export class StatusCards implements StatusCardSource {
  #source: StatusCardSource | null = null;

  bind(source: StatusCardSource): void {
    this.#source = source;
  }

  async cardsOf(statusIds: readonly string[]): Promise<ReadonlyMap<string, PreviewCardEntity>> {
    if (this.#source === null || statusIds.length === 0) return new Map();
    return this.#source.cardsOf(statusIds);
  }
}
