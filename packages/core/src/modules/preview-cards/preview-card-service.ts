import { z } from "zod";
import { getLogger } from "../../logging.js";
import type { PreviewCardEntity } from "../../mastodon/entities/preview-card.js";
import { type SafeFetch, createSafeFetch } from "../../platform/federation/safe-fetch.js";
import type { NewPost } from "../../platform/events/domain-events.js";
import type { ServiceDeps } from "../service-deps.js";
import { readCard } from "./page-reader.js";
import { previewCardIds } from "./preview-card-ids.js";
import type { CardShare, PreviewCardRow, PreviewCardsStore } from "./preview-cards-store.js";
import { previewableLink } from "./status-links.js";

/** The queue a status's link is read from. */
export const PREVIEW_CARD_QUEUE = "preview_cards.fetch";

/** A card older than this is read again when a new status links its page. */
const READ_AGAIN_AFTER_MS = 14 * 24 * 3_600_000;

const FetchJob = z.object({ statusId: z.string(), link: z.string() });
export type PreviewCardJob = z.infer<typeof FetchJob>;

const logger = getLogger(["preview-cards"]);

/**
 * Link previews, as Mastodon shows them under a status: the first link of a
 * new status (local or from another server) is read on the queue, its page's
 * card kept per address and shown with every status linking it.
 */
export class PreviewCardService {
  readonly #fetch: SafeFetch;

  constructor(
    private readonly deps: Pick<ServiceDeps, "config" | "clock" | "ids" | "queue">,
    private readonly store: PreviewCardsStore,
    fetch?: SafeFetch,
  ) {
    // Linked pages are anyone's servers: private addresses refused, as federation's fetches are.
    this.#fetch =
      fetch ?? createSafeFetch({ allowPrivateAddress: deps.config.allowPrivateAddress, maxBodyBytes: 1_000_000, timeoutMs: 10_000 });
  }

  /** A new status: its first link, if any, is read after the answer. */
  async statusCreated(statusId: string, post: NewPost | undefined): Promise<void> {
    if (!post || post.visibility === "direct") return;
    const link = previewableLink(post.content, this.deps.config.origin);
    if (link === null) return;
    await this.deps.queue.enqueue(PREVIEW_CARD_QUEUE, { statusId, link } satisfies PreviewCardJob, { deduplicationKey: statusId });
  }

  /** The job: the link's card, read now or kept from before, shown with the status. */
  async fetchFor(payload: unknown): Promise<void> {
    const job = FetchJob.safeParse(payload);
    if (!job.success) return;
    const { statusId, link } = job.data;
    const now = this.deps.clock.now();
    const kept = await this.store.byLink(link);
    const fresh = kept && now.getTime() - Date.parse(kept.fetched_at) < READ_AGAIN_AFTER_MS;
    const cardId = fresh ? kept.id : await this.#read(link, kept, now.toISOString());
    if (cardId !== null) await this.store.attach(statusId, cardId, now.toISOString());
  }

  /** Cards by their ids, for those that exist. */
  async cardsByIds(ids: readonly string[]): Promise<ReadonlyMap<string, PreviewCardEntity>> {
    return new Map((await this.store.byIds(ids)).map((row) => [row.id, cardEntity(row)]));
  }

  /** Who shared which card when, in public statuses since `sinceStatusId` (see the store): what link trends rank. */
  sharesSince(sinceStatusId: string): Promise<CardShare[]> {
    return this.store.sharesSince(sinceStatusId);
  }

  async cardsOf(statusIds: readonly string[]): Promise<ReadonlyMap<string, PreviewCardEntity>> {
    const rows = await this.store.cardsOf(statusIds);
    return new Map(rows.map((row) => [row.status_id, cardEntity(row)]));
  }

  /** Reads the page and keeps its card; the card kept before when the page says nothing now; null without either. */
  async #read(link: string, kept: PreviewCardRow | undefined, now: string): Promise<string | null> {
    let read: Awaited<ReturnType<typeof readCard>>;
    try {
      read = await readCard(link, this.#fetch);
    } catch (error) {
      // A page that cannot be read has no card; nothing to retry for.
      logger.debug("No preview of {link}: {error}", { link, error: error instanceof Error ? error.message : String(error) });
      return kept?.id ?? null;
    }
    if (read === null) return kept?.id ?? null;
    return this.store.put({
      id: kept?.id ?? this.deps.ids.next(previewCardIds.previewCard),
      link,
      url: read.url,
      title: read.title,
      description: read.description,
      type: read.type,
      author_name: read.authorName,
      author_url: read.authorUrl,
      provider_name: read.providerName,
      provider_url: read.providerUrl,
      html: read.html,
      width: read.width,
      height: read.height,
      image_url: read.image,
      image_description: read.imageDescription,
      embed_url: read.embedUrl,
      language: read.language,
      published_at: read.publishedAt,
      fetched_at: now,
      created_at: kept?.created_at ?? now,
    });
  }
}

function cardEntity(row: PreviewCardRow): PreviewCardEntity {
  return {
    url: row.url,
    title: row.title,
    description: row.description,
    type: row.type as PreviewCardEntity["type"],
    author_name: row.author_name,
    author_url: row.author_url,
    provider_name: row.provider_name,
    provider_url: row.provider_url,
    html: row.html,
    width: row.width,
    height: row.height,
    image: row.image_url,
    image_description: row.image_description,
    embed_url: row.embed_url,
    blurhash: null,
    published_at: row.published_at,
    language: row.language,
    authors: [],
  };
}
