import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Preview cards: one per linked address, read from the page, and which status shows which. */
export const previewCardMigrations: readonly MigrationSpec[] = [
  {
    name: "preview_cards_0001_cards",
    tables: [
      {
        name: "preview_cards",
        columns: {
          id: { type: "text" },
          /** The address as linked (after redirects, the page's own is `url` in the entity). */
          link: { type: "text" },
          url: { type: "text" },
          title: { type: "text" },
          description: { type: "text" },
          /** `link`, `photo`, `video` or `rich`. */
          type: { type: "text" },
          author_name: { type: "text" },
          author_url: { type: "text" },
          provider_name: { type: "text" },
          provider_url: { type: "text" },
          /** An iframe built here from an oEmbed's, for `video` and `rich`; empty otherwise. */
          html: { type: "text" },
          width: { type: "int" },
          height: { type: "int" },
          image_url: { type: "text", nullable: true },
          image_description: { type: "text" },
          embed_url: { type: "text" },
          language: { type: "text", nullable: true },
          published_at: { type: "timestamp", nullable: true },
          /** When the page was last read: a card older than a fortnight is read again when linked again. */
          fetched_at: { type: "timestamp" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [{ name: "preview_cards_link_idx", columns: ["link"], unique: true }],
      },
      {
        name: "status_preview_cards",
        columns: {
          status_id: { type: "text", references: "statuses(id)", onDelete: "cascade" },
          card_id: { type: "text", references: "preview_cards(id)", onDelete: "cascade" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["status_id"],
        withoutRowid: true,
        indexes: [{ name: "status_preview_cards_card_idx", columns: ["card_id"] }],
      },
    ],
  },
];
