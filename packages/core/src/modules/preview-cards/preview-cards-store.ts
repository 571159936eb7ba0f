import { type Kysely, type SqlBool, sql } from "kysely";
import { notFromLimitedDomain } from "../domain-policy/index.js";
import type { Database } from "../../ports/storage-schema.js";
import type { Storage } from "../../ports/storage.js";

export interface PreviewCardRow {
  readonly id: string;
  readonly link: string;
  readonly url: string;
  readonly title: string;
  readonly description: string;
  readonly type: string;
  readonly author_name: string;
  readonly author_url: string;
  readonly provider_name: string;
  readonly provider_url: string;
  readonly html: string;
  readonly width: number;
  readonly height: number;
  readonly image_url: string | null;
  readonly image_description: string;
  readonly embed_url: string;
  readonly language: string | null;
  readonly published_at: string | null;
  readonly fetched_at: string;
  readonly created_at: string;
}

interface StatusPreviewCardRow {
  readonly status_id: string;
  readonly card_id: string;
  readonly created_at: string;
}

/** A public status of an account showing a card. */
export interface CardShare {
  readonly cardId: string;
  readonly accountId: string;
  readonly createdAt: string;
}

type CardTables = { preview_cards: PreviewCardRow; status_preview_cards: StatusPreviewCardRow };

/** The preview-cards module's SQL, and the only place it has any. */
export class PreviewCardsStore {
  readonly #storage: Storage;
  readonly #db: Kysely<Database & CardTables>;

  constructor(storage: Storage) {
    this.#storage = storage;
    // The core's schema type knows the core's tables; the module adds its own.
    this.#db = storage.db.withTables<CardTables>() as unknown as Kysely<Database & CardTables>;
  }

  byLink(link: string): Promise<PreviewCardRow | undefined> {
    return this.#db.selectFrom("preview_cards").selectAll().where("link", "=", link).executeTakeFirst();
  }

  /** Writes the card of a link (a new one, or the page read again), and returns its id. */
  async put(card: PreviewCardRow): Promise<string> {
    const { id, link, created_at, ...read } = card;
    await this.#db
      .insertInto("preview_cards")
      .values(card)
      .onConflict((oc) => oc.column("link").doUpdateSet(read))
      .execute();
    const row = await this.#db.selectFrom("preview_cards").select("id").where("link", "=", link).executeTakeFirstOrThrow();
    return row.id;
  }

  /**
   * Shows the card with the status, and raises the status's version (migration 0020) so that what renderers kept of
   * it is read again; a status that is gone meanwhile gets nothing.
   */
  async attach(statusId: string, cardId: string, now: string): Promise<void> {
    await this.#storage.transaction(async (trx) => {
      const db = trx.withTables<CardTables>() as unknown as Kysely<Database & CardTables>;
      const status = await db.selectFrom("statuses").select("id").where("id", "=", statusId).executeTakeFirst();
      if (!status) return;
      await db
        .insertInto("status_preview_cards")
        .values({ status_id: statusId, card_id: cardId, created_at: now })
        .onConflict((oc) => oc.column("status_id").doUpdateSet({ card_id: cardId, created_at: now }))
        .execute();
      await db
        .updateTable("statuses")
        .set((eb) => ({ version: eb("version", "+", 1) }))
        .where("id", "=", statusId)
        .execute();
    });
  }

  byIds(ids: readonly string[]): Promise<PreviewCardRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.#db.selectFrom("preview_cards").selectAll().where("id", "in", ids).execute();
  }

  /**
   * Who shared which card when: public statuses (not boosts) written since `sinceStatusId` with a card, by
   * accounts that are not suspended, opted into discovery and are of no limited domain. What link trends count.
   */
  async sharesSince(sinceStatusId: string): Promise<CardShare[]> {
    const rows = await this.#db
      .selectFrom("status_preview_cards")
      .innerJoin("statuses", "statuses.id", "status_preview_cards.status_id")
      .innerJoin("accounts", "accounts.id", "statuses.account_id")
      .select(["status_preview_cards.card_id", "statuses.account_id", "statuses.created_at"])
      .where("statuses.id", ">=", sinceStatusId)
      .where("statuses.visibility", "=", "public")
      .where("statuses.reblog_of_id", "is", null)
      .where("accounts.suspended_at", "is", null)
      .where(sql<SqlBool>`accounts.discoverable = ${sql.lit(true)}`)
      .where(notFromLimitedDomain("accounts.domain", "accounts.id", null))
      .execute();
    return rows.map((row) => ({ cardId: row.card_id, accountId: row.account_id, createdAt: row.created_at }));
  }

  /** The cards shown with these statuses, with the status each goes with. */
  cardsOf(statusIds: readonly string[]): Promise<(PreviewCardRow & { status_id: string })[]> {
    return this.#db
      .selectFrom("status_preview_cards")
      .innerJoin("preview_cards", "preview_cards.id", "status_preview_cards.card_id")
      .selectAll("preview_cards")
      .select("status_preview_cards.status_id")
      .where("status_preview_cards.status_id", "in", statusIds)
      .execute();
  }
}
