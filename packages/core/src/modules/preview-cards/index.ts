import { defineModule } from "../module.js";
import { previewCardMigrations } from "./migrations.js";
import { PREVIEW_CARD_QUEUE, PreviewCardService } from "./preview-card-service.js";
import { PreviewCardsStore } from "./preview-cards-store.js";

export type { PreviewCardService } from "./preview-card-service.js";
export type { CardShare } from "./preview-cards-store.js";

/**
 * Link previews (Mastodon's PreviewCard in `status.card`): the first link of
 * a new status is read on the queue (OpenGraph, Twitter card and oEmbed),
 * its card kept per address and shown with the statuses linking it.
 */
export const previewCardsModule = defineModule({
  name: "preview-cards",
  migrations: previewCardMigrations,
  services: ({ deps, core }) => {
    const cards = new PreviewCardService(deps, new PreviewCardsStore(deps.storage));
    core.statusCards.bind(cards);
    return cards;
  },
  events: (cards, events) => {
    events.on("status.created", (event) => cards.statusCreated(event.statusId, event.post ?? event.remoteStatus));
  },
  jobs: (cards) => [
    {
      queue: PREVIEW_CARD_QUEUE,
      options: { concurrency: 2, description: "Reads the page a new status links, for its preview card" },
      handler: (payload) => cards.fetchFor(payload),
    },
  ],
});
