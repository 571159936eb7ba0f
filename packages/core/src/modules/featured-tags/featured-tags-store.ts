import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import type { Storage } from "../../ports/storage.js";

export interface FeaturedTagRow {
  readonly id: string;
  readonly account_id: string;
  readonly tag_id: string;
  readonly created_at: string;
}

type FeaturedTagTables = Database & { featured_tags: FeaturedTagRow };

/** A featured hashtag with its tag's names. */
export interface FeaturedTagRecord {
  readonly id: string;
  readonly tagId: string;
  readonly name: string;
  readonly displayName: string;
}

/** How much an account used a hashtag in statuses anyone may read. */
export interface TagUsage {
  readonly statusesCount: number;
  readonly lastStatusAt: string | null;
}

/** The featured-tags module's SQL, and the only place it has any. */
export class FeaturedTagsStore {
  readonly #db: Kysely<FeaturedTagTables>;

  constructor(storage: Storage) {
    this.#db = storage.db.withTables<{ featured_tags: FeaturedTagRow }>() as unknown as Kysely<FeaturedTagTables>;
  }

  /** The account's featured hashtags, oldest first (the order they were featured in, as Mastodon lists them). */
  async list(accountId: string): Promise<FeaturedTagRecord[]> {
    const rows = await this.#db
      .selectFrom("featured_tags as f")
      .innerJoin("tags as t", "t.id", "f.tag_id")
      .select(["f.id as id", "f.tag_id as tagId", "t.name as name", "t.display_name as displayName"])
      .where("f.account_id", "=", accountId)
      .orderBy("f.id", "asc")
      .execute();
    return rows;
  }

  async find(accountId: string, id: string): Promise<FeaturedTagRecord | undefined> {
    return (await this.list(accountId)).find((tag) => tag.id === id);
  }

  /**
   * Features a tag unless the account already features it or features
   * `limit` tags already; the insert and its check are one statement, so two
   * requests at once cannot pass the limit. Returns whether it was written.
   */
  async insertWithin(row: FeaturedTagRow, limit: number): Promise<boolean> {
    const result = await sql`
      insert into featured_tags (id, account_id, tag_id, created_at)
      select ${row.id}, ${row.account_id}, ${row.tag_id}, ${row.created_at}
      where (select count(*) from featured_tags where account_id = ${row.account_id}) < ${limit}
      on conflict (account_id, tag_id) do nothing
    `.execute(this.#db);
    return Number(result.numAffectedRows ?? 0n) > 0;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom("featured_tags").where("account_id", "=", accountId).where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteTag(accountId: string, tagId: string): Promise<void> {
    await this.#db.deleteFrom("featured_tags").where("account_id", "=", accountId).where("tag_id", "=", tagId).execute();
  }

  async featuredAmong(accountId: string, tagIds: readonly string[]): Promise<Set<string>> {
    const rows = await this.#db
      .selectFrom("featured_tags")
      .select("tag_id")
      .where("account_id", "=", accountId)
      .where("tag_id", "in", [...tagIds])
      .execute();
    return new Set(rows.map((row) => row.tag_id));
  }

  /**
   * How often the account used each tag in its public and unlisted statuses
   * (boosts are not its own), read from the statuses themselves so a deleted
   * status stops counting at once.
   */
  async usage(accountId: string, tagIds: readonly string[]): Promise<Map<string, TagUsage>> {
    if (tagIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom("status_tags as st")
      .innerJoin("statuses as s", "s.id", "st.status_id")
      .select(["st.tag_id as tagId", (eb) => eb.fn.countAll<number | string>().as("count"), (eb) => eb.fn.max("s.created_at").as("last")])
      .where("s.account_id", "=", accountId)
      .where("st.tag_id", "in", [...tagIds])
      .where("s.visibility", "in", ["public", "unlisted"])
      .where(sql<SqlBool>`s.reblog_of_id is null`)
      .groupBy("st.tag_id")
      .execute();
    return new Map(rows.map((row) => [row.tagId, { statusesCount: Number(row.count), lastStatusAt: timestampText(row.last) }]));
  }

  /** The tags the account used most in its recent statuses, the ones it features left out. */
  async mostUsed(accountId: string, limit: number): Promise<string[]> {
    const rows = await this.#db
      .selectFrom("status_tags as st")
      .innerJoin("statuses as s", "s.id", "st.status_id")
      .select(["st.tag_id as tagId", (eb) => eb.fn.countAll<number | string>().as("count")])
      .where("s.account_id", "=", accountId)
      .where(sql<SqlBool>`s.reblog_of_id is null`)
      .where("st.tag_id", "not in", (eb) => eb.selectFrom("featured_tags").select("tag_id").where("account_id", "=", accountId))
      .groupBy("st.tag_id")
      .orderBy("count", "desc")
      .orderBy("st.tag_id", "desc")
      .limit(limit)
      .execute();
    return rows.map((row) => row.tagId);
  }

  /** The account's username and domain, when it exists and is not suspended. */
  async activeAccount(id: string): Promise<{ username: string; domain: string | null } | undefined> {
    return this.#db
      .selectFrom("accounts")
      .select(["username", "domain"])
      .where("id", "=", id)
      .where("suspended_at", "is", null)
      .executeTakeFirst();
  }
}

/** A timestamp as ISO text: PostgreSQL's driver reads `max()` of a timestamptz as a Date, SQLite as text. */
function timestampText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  return String(value);
}
