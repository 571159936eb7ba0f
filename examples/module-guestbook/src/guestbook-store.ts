import type { Storage } from "@kith/core";
import type { Kysely } from "kysely";

/** The module's own table, as Kysely sees it. */
type GuestbookTables = {
  guestbook_entries: {
    id: string;
    /** The local account whose guestbook it is. */
    owner_account_id: string;
    author_account_id: string;
    text: string;
    created_at: string;
  };
};

export interface GuestbookEntryRow {
  readonly id: string;
  readonly owner_account_id: string;
  readonly author_account_id: string;
  readonly text: string;
  readonly created_at: string;
}

/** The module's SQL, and the only place it has any. */
export class GuestbookStore {
  readonly #db: Kysely<GuestbookTables>;

  constructor(storage: Storage) {
    // The core's schema type knows the core's tables; the module adds its own.
    this.#db = storage.db.withTables<GuestbookTables>() as unknown as Kysely<GuestbookTables>;
  }

  async insert(row: GuestbookEntryRow): Promise<void> {
    await this.#db.insertInto("guestbook_entries").values(row).execute();
  }

  async find(id: string): Promise<GuestbookEntryRow | undefined> {
    return this.#db.selectFrom("guestbook_entries").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** An owner's entries, newest first, below `maxId` when given. */
  async page(ownerAccountId: string, limit: number, maxId?: string): Promise<GuestbookEntryRow[]> {
    let query = this.#db.selectFrom("guestbook_entries").selectAll().where("owner_account_id", "=", ownerAccountId);
    if (maxId) query = query.where("id", "<", maxId);
    return query.orderBy("id", "desc").limit(limit).execute();
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom("guestbook_entries").where("id", "=", id).execute();
  }

  /** Removes what `authorAccountId` wrote in `ownerAccountId`'s guestbook; how many. */
  async deleteByAuthor(ownerAccountId: string, authorAccountId: string): Promise<number> {
    const result = await this.#db
      .deleteFrom("guestbook_entries")
      .where("owner_account_id", "=", ownerAccountId)
      .where("author_account_id", "=", authorAccountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Removes entries written before `before` (an ISO time); how many. */
  async deleteOlderThan(before: string): Promise<number> {
    const result = await this.#db.deleteFrom("guestbook_entries").where("created_at", "<", before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
