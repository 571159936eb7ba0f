import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import type { Storage } from "../../ports/storage.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";

export interface CollectionRow {
  readonly id: string;
  readonly account_id: string;
  readonly name: string;
  readonly description: string;
  readonly language: string | null;
  readonly tag_id: string | null;
  readonly sensitive: boolean;
  readonly discoverable: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface CollectionItemRow {
  readonly id: string;
  readonly collection_id: string;
  readonly account_id: string;
  readonly created_at: string;
}

type CollectionTables = Database & { account_collections: CollectionRow; account_collection_items: CollectionItemRow };

/** What an edit of a collection may change. */
export type CollectionChange = Partial<
  Pick<CollectionRow, "name" | "description" | "language" | "tag_id" | "sensitive" | "discoverable">
> & {
  readonly updated_at: string;
};

/** The collections module's SQL, and the only place it has any. */
export class CollectionsStore {
  readonly #db: Kysely<CollectionTables>;

  constructor(private readonly storage: Storage) {
    this.#db = tablesOf(storage.db);
  }

  /** A collection and the accounts it starts with, together. */
  async insert(row: CollectionRow, items: readonly CollectionItemRow[]): Promise<void> {
    await this.storage.transaction(async (trx) => {
      const db = tablesOf(trx);
      await db.insertInto("account_collections").values(row).execute();
      if (items.length > 0)
        await db
          .insertInto("account_collection_items")
          .values([...items])
          .execute();
    });
  }

  async find(id: string): Promise<CollectionRow | undefined> {
    const row = await this.#db.selectFrom("account_collections").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? normalized(row) : undefined;
  }

  async update(id: string, change: CollectionChange): Promise<void> {
    await this.#db.updateTable("account_collections").set(change).where("id", "=", id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom("account_collections").where("id", "=", id).execute();
  }

  /** Items of the collections, oldest first, whose accounts are not suspended. */
  async items(collectionIds: readonly string[]): Promise<CollectionItemRow[]> {
    if (collectionIds.length === 0) return [];
    return this.#db
      .selectFrom("account_collection_items as i")
      .innerJoin("accounts as a", "a.id", "i.account_id")
      .select(["i.id", "i.collection_id", "i.account_id", "i.created_at"])
      .where("i.collection_id", "in", [...collectionIds])
      .where("a.suspended_at", "is", null)
      .orderBy("i.id", "asc")
      .execute();
  }

  /**
   * Adds an account unless the collection holds `limit` already (checked in
   * the same statement, so two additions at once cannot pass it); false when
   * it was not written: full, or the account is in it already.
   */
  async insertItemWithin(item: CollectionItemRow, limit: number): Promise<boolean> {
    const result = await sql`
      insert into account_collection_items (id, collection_id, account_id, created_at)
      select ${item.id}, ${item.collection_id}, ${item.account_id}, ${item.created_at}
      where (select count(*) from account_collection_items where collection_id = ${item.collection_id}) < ${limit}
      on conflict (collection_id, account_id) do nothing
    `.execute(this.#db);
    return Number(result.numAffectedRows ?? 0n) > 0;
  }

  async hasItem(collectionId: string, accountId: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom("account_collection_items")
      .select("id")
      .where("collection_id", "=", collectionId)
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async findItem(collectionId: string, itemId: string): Promise<CollectionItemRow | undefined> {
    return this.#db
      .selectFrom("account_collection_items")
      .selectAll()
      .where("collection_id", "=", collectionId)
      .where("id", "=", itemId)
      .executeTakeFirst();
  }

  async deleteItem(itemId: string): Promise<void> {
    await this.#db.deleteFrom("account_collection_items").where("id", "=", itemId).execute();
  }

  /** An account's collections, newest first; the owner's undiscoverable ones only when asked. */
  async ofAccount(accountId: string, options: { withUndiscoverable: boolean; offset: number; limit: number }): Promise<CollectionRow[]> {
    let query = this.#db.selectFrom("account_collections").selectAll().where("account_id", "=", accountId);
    if (!options.withUndiscoverable) query = query.where(sql<SqlBool>`discoverable = ${sql.lit(true)}`);
    const rows = await query.orderBy("id", "desc").offset(options.offset).limit(options.limit).execute();
    return rows.map(normalized);
  }

  /** The discoverable collections an account is in, newest first, those of suspended owners left out. */
  async including(accountId: string, options: { offset: number; limit: number }): Promise<CollectionRow[]> {
    const rows = await this.#db
      .selectFrom("account_collections as c")
      .innerJoin("accounts as owner", "owner.id", "c.account_id")
      .selectAll("c")
      .where("c.id", "in", (eb) => eb.selectFrom("account_collection_items").select("collection_id").where("account_id", "=", accountId))
      .where(sql<SqlBool>`c.discoverable = ${sql.lit(true)}`)
      .where("owner.suspended_at", "is", null)
      .orderBy("c.id", "desc")
      .offset(options.offset)
      .limit(options.limit)
      .execute();
    return rows.map(normalized);
  }

  /** The account, when it exists and is not suspended, and whether it blocks `viewerId`. */
  async activeAccount(
    id: string,
    viewerId: string | null,
  ): Promise<{ id: string; domain: string | null; blocksViewer: boolean } | undefined> {
    const account = await this.#db
      .selectFrom("accounts")
      .select(["id", "domain"])
      .where("id", "=", id)
      .where("suspended_at", "is", null)
      .executeTakeFirst();
    if (!account) return undefined;
    const block =
      viewerId === null
        ? undefined
        : await this.#db
            .selectFrom("blocks")
            .select("id")
            .where("account_id", "=", id)
            .where("target_account_id", "=", viewerId)
            .executeTakeFirst();
    return { ...account, blocksViewer: block !== undefined };
  }

  /** The names of the tags, by id. */
  async tagNames(tagIds: readonly string[]): Promise<Map<string, string>> {
    if (tagIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom("tags")
      .select(["id", "name", "display_name"])
      .where("id", "in", [...tagIds])
      .execute();
    return new Map(rows.map((row) => [row.id, row.display_name || row.name]));
  }
}

function tablesOf(db: Kysely<Database>): Kysely<CollectionTables> {
  return db.withTables<{
    account_collections: CollectionRow;
    account_collection_items: CollectionItemRow;
  }>() as unknown as Kysely<CollectionTables>;
}

/** Booleans as booleans on both engines (SQLite keeps 0 and 1). */
function normalized(row: CollectionRow): CollectionRow {
  return { ...row, sensitive: readFlag(row.sensitive), discoverable: readFlag(row.discoverable) };
}
