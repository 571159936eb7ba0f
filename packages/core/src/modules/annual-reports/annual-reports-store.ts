import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import type { Storage } from "../../ports/storage.js";

export interface AnnualReportRow {
  readonly account_id: string;
  readonly year: number;
  readonly state: "generating" | "available";
  readonly schema_version: number;
  readonly data: string | null;
  readonly viewed_at: string | null;
  readonly created_at: string;
}

type Tables = Database & { annual_reports: AnnualReportRow };

export interface YearStatus {
  readonly id: string;
  readonly created_at: string | Date;
  readonly reblog_of_id: string | null;
  readonly in_reply_to_id: string | null;
  readonly in_reply_to_account_id: string | null;
  readonly application_id: string | null;
  readonly replies_count: number;
  readonly reblogs_count: number;
  readonly favourites_count: number;
}

/** The annual reports module's SQL: its table, and the reads of a year of an account's activity. */
export class AnnualReportsStore {
  readonly #db: Kysely<Tables>;

  constructor(storage: Storage) {
    this.#db = storage.db.withTables<{ annual_reports: AnnualReportRow }>() as unknown as Kysely<Tables>;
  }

  async get(accountId: string, year: number): Promise<AnnualReportRow | null> {
    return (
      (await this.#db
        .selectFrom("annual_reports")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("year", "=", year)
        .executeTakeFirst()) ?? null
    );
  }

  /** The account's available reports not viewed yet, newest year first. */
  async unread(accountId: string): Promise<AnnualReportRow[]> {
    return this.#db
      .selectFrom("annual_reports")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("state", "=", "available")
      .where("viewed_at", "is", null)
      .orderBy("year", "desc")
      .execute();
  }

  /** Marks the report generating; false when one exists already. */
  async start(row: AnnualReportRow): Promise<boolean> {
    const result = await this.#db
      .insertInto("annual_reports")
      .values(row)
      .onConflict((oc) => oc.columns(["account_id", "year"]).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async finish(accountId: string, year: number, data: string): Promise<void> {
    await this.#db
      .updateTable("annual_reports")
      .set({ state: "available", data })
      .where("account_id", "=", accountId)
      .where("year", "=", year)
      .execute();
  }

  async remove(accountId: string, year: number): Promise<void> {
    await this.#db.deleteFrom("annual_reports").where("account_id", "=", accountId).where("year", "=", year).execute();
  }

  async markViewed(accountId: string, year: number, at: string): Promise<boolean> {
    const result = await this.#db
      .updateTable("annual_reports")
      .set({ viewed_at: at })
      .where("account_id", "=", accountId)
      .where("year", "=", year)
      .where("state", "=", "available")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async isLocal(accountId: string): Promise<boolean> {
    const row = await this.#db.selectFrom("accounts").select("domain").where("id", "=", accountId).executeTakeFirst();
    return row !== undefined && row.domain === null;
  }

  async hasStatusIn(accountId: string, from: string, to: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom("statuses")
      .select("id")
      .where("account_id", "=", accountId)
      .where("created_at", ">=", from)
      .where("created_at", "<", to)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async statuses(accountId: string, from: string, to: string): Promise<YearStatus[]> {
    const rows = await this.#db
      .selectFrom("statuses")
      .select([
        "id",
        "created_at",
        "reblog_of_id",
        "in_reply_to_id",
        "in_reply_to_account_id",
        "application_id",
        "replies_count",
        "reblogs_count",
        "favourites_count",
      ])
      .where("account_id", "=", accountId)
      .where("created_at", ">=", from)
      .where("created_at", "<", to)
      .execute();
    return rows.map((row) => ({
      ...row,
      replies_count: Number(row.replies_count),
      reblogs_count: Number(row.reblogs_count),
      favourites_count: Number(row.favourites_count),
    }));
  }

  async pollCount(statusIds: readonly string[]): Promise<number> {
    if (statusIds.length === 0) return 0;
    let total = 0;
    // In slices: engines cap the parameters of one statement.
    for (let i = 0; i < statusIds.length; i += 500) {
      const row = await this.#db
        .selectFrom("polls")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("status_id", "in", statusIds.slice(i, i + 500))
        .executeTakeFirst();
      total += Number(row?.n ?? 0);
    }
    return total;
  }

  async topHashtags(accountId: string, from: string, to: string, limit: number): Promise<{ name: string; count: number }[]> {
    const rows = await this.#db
      .selectFrom("status_tags")
      .innerJoin("statuses", "statuses.id", "status_tags.status_id")
      .innerJoin("tags", "tags.id", "status_tags.tag_id")
      .select((eb) => ["tags.name", eb.fn.countAll<number | string>().as("n")])
      .where("statuses.account_id", "=", accountId)
      .where("statuses.reblog_of_id", "is", null)
      .where("statuses.created_at", ">=", from)
      .where("statuses.created_at", "<", to)
      .groupBy("tags.name")
      .orderBy("n", "desc")
      .orderBy("tags.name")
      .limit(limit)
      .execute();
    return rows.map((row) => ({ name: row.name, count: Number(row.n) }));
  }

  async appNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.#db.selectFrom("oauth_apps").select(["id", "name"]).where("id", "in", ids).execute();
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Follows the account gave (`following`) and got (`followers`) in the range, by when. */
  async follows(accountId: string, from: string, to: string): Promise<{ following: (string | Date)[]; followers: (string | Date)[] }> {
    const [following, followers] = await Promise.all([
      this.#db
        .selectFrom("follows")
        .select("created_at")
        .where("account_id", "=", accountId)
        .where("created_at", ">=", from)
        .where("created_at", "<", to)
        .execute(),
      this.#db
        .selectFrom("follows")
        .select("created_at")
        .where("target_account_id", "=", accountId)
        .where("created_at", ">=", from)
        .where("created_at", "<", to)
        .execute(),
    ]);
    return { following: following.map((row) => row.created_at), followers: followers.map((row) => row.created_at) };
  }

  /** The share of local accounts with fewer followers, and with fewer statuses in the range, than this one. */
  async percentiles(accountId: string, from: string, to: string): Promise<{ followers: number; statuses: number }> {
    const locals = await this.#db.selectFrom("accounts").select(["id", "followers_count"]).where("domain", "is", null).execute();
    const counts = await this.#db
      .selectFrom("statuses")
      .select((eb) => ["account_id", eb.fn.countAll<number | string>().as("n")])
      .where(sql<SqlBool>`statuses.local = ${sql.lit(true)}`)
      .where("created_at", ">=", from)
      .where("created_at", "<", to)
      .groupBy("account_id")
      .execute();
    const statusesOf = new Map(counts.map((row) => [row.account_id, Number(row.n)]));
    const own = locals.find((row) => row.id === accountId);
    if (!own || locals.length === 0) return { followers: 0, statuses: 0 };
    const below = (value: (row: (typeof locals)[number]) => number) =>
      Math.round((locals.filter((row) => value(row) < value(own)).length / locals.length) * 100);
    return {
      followers: below((row) => Number(row.followers_count)),
      statuses: below((row) => statusesOf.get(row.id) ?? 0),
    };
  }
}
