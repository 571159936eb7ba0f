import type { Kysely } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import type { Database } from "../../ports/storage-schema.js";
import type { Storage } from "../../ports/storage.js";

export interface EndorsementRow {
  readonly id: string;
  readonly account_id: string;
  readonly target_account_id: string;
  readonly created_at: string;
}

/** The module's table beside the core's, as Kysely sees them. */
type EndorsementTables = Database & { account_endorsements: EndorsementRow };

/** One row of a page: the endorsement's id (the page's cursor) and the endorsed account. */
export interface EndorsementEntry {
  readonly id: string;
  readonly accountId: string;
}

/** The endorsements module's SQL, and the only place it has any. */
export class EndorsementsStore {
  readonly #db: Kysely<EndorsementTables>;

  constructor(storage: Storage) {
    this.#db = storage.db.withTables<{ account_endorsements: EndorsementRow }>() as unknown as Kysely<EndorsementTables>;
  }

  /** Whether `accountId` follows `targetId` (a request waiting for approval is not a follow). */
  async follows(accountId: string, targetId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom("follows")
      .select("id")
      .where("account_id", "=", accountId)
      .where("target_account_id", "=", targetId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The account, when it exists and is not suspended. */
  async activeAccount(id: string): Promise<{ id: string; hide_collections: unknown } | undefined> {
    return this.#db
      .selectFrom("accounts")
      .select(["id", "hide_collections"])
      .where("id", "=", id)
      .where("suspended_at", "is", null)
      .executeTakeFirst();
  }

  /** Whether `accountId` blocks `viewerId`. */
  async blocks(accountId: string, viewerId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom("blocks")
      .select("id")
      .where("account_id", "=", accountId)
      .where("target_account_id", "=", viewerId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Endorses; endorsing twice keeps the first. */
  async insert(row: EndorsementRow): Promise<void> {
    await this.#db
      .insertInto("account_endorsements")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "target_account_id"]).doNothing())
      .execute();
  }

  async delete(accountId: string, targetId: string): Promise<void> {
    await this.#db
      .deleteFrom("account_endorsements")
      .where("account_id", "=", accountId)
      .where("target_account_id", "=", targetId)
      .execute();
  }

  async endorsedAmong(accountId: string, targetIds: readonly string[]): Promise<Set<string>> {
    const rows = await this.#db
      .selectFrom("account_endorsements")
      .select("target_account_id")
      .where("account_id", "=", accountId)
      .where("target_account_id", "in", [...targetIds])
      .execute();
    return new Set(rows.map((row) => row.target_account_id));
  }

  /**
   * A page of the accounts `accountId` endorses, newest first, suspended ones
   * left out; `max_id`, `since_id` and `min_id` are endorsement ids.
   */
  async page(accountId: string, page: PageRequest): Promise<EndorsementEntry[]> {
    let query = this.#db
      .selectFrom("account_endorsements as e")
      .innerJoin("accounts as a", "a.id", "e.target_account_id")
      .select(["e.id as id", "e.target_account_id as accountId"])
      .where("e.account_id", "=", accountId)
      .where("a.suspended_at", "is", null);
    if (page.maxId) query = query.where("e.id", "<", page.maxId);
    if (page.sinceId) query = query.where("e.id", ">", page.sinceId);
    if (page.minId) {
      // The page just after `min_id`: read upwards, returned newest first as every page.
      const rows = await query.where("e.id", ">", page.minId).orderBy("e.id", "asc").limit(page.limit).execute();
      return rows.reverse();
    }
    return query.orderBy("e.id", "desc").limit(page.limit).execute();
  }

  /** Every account `accountId` endorses, newest first (a profile has a handful). */
  async endorsedIds(accountId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom("account_endorsements")
      .select("target_account_id")
      .where("account_id", "=", accountId)
      .orderBy("id", "desc")
      .execute();
    return rows.map((row) => row.target_account_id);
  }
}
