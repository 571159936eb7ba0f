import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { notFromLimitedDomain } from "../domain-policy/index.js";

export interface TagUseRow {
  readonly tagId: string;
  readonly accountId: string;
  readonly createdAt: string;
}

/** Uses of trendable hashtags by public statuses (not boosts) written since `sinceStatusId`, by accounts of no limited domain. */
export async function trendableTagUses(db: Kysely<Database>, sinceStatusId: string): Promise<TagUseRow[]> {
  const rows = await db
    .selectFrom("status_tags")
    .innerJoin("statuses", "statuses.id", "status_tags.status_id")
    .innerJoin("tags", "tags.id", "status_tags.tag_id")
    .innerJoin("accounts", "accounts.id", "statuses.account_id")
    .select(["status_tags.tag_id", "statuses.account_id", "statuses.created_at"])
    .where("statuses.id", ">=", sinceStatusId)
    .where("statuses.visibility", "=", "public")
    .where("statuses.reblog_of_id", "is", null)
    .where("accounts.suspended_at", "is", null)
    .where(notFromLimitedDomain("accounts.domain", "accounts.id", null))
    .where(sql<SqlBool>`tags.trendable = ${sql.lit(true)} and tags.usable = ${sql.lit(true)} and tags.listable = ${sql.lit(true)}`)
    .execute();
  return rows.map((row) => ({ tagId: row.tag_id, accountId: row.account_id, createdAt: row.created_at }));
}

export interface Engagement {
  readonly statusId: string;
  readonly favourites: number;
  readonly reblogs: number;
}

/**
 * Favourites and boosts given since the cursors (ids are time-ordered), per
 * status, for public statuses written since `sinceStatusId` by authors who opted
 * into discovery and are of no limited domain.
 */
export async function recentEngagement(
  db: Kysely<Database>,
  since: { readonly statusId: string; readonly favouriteId: string },
): Promise<Engagement[]> {
  const eligible = (column: string) => sql<SqlBool>`exists (
    select 1 from statuses t_s join accounts t_a on t_a.id = t_s.account_id
    where t_s.id = ${sql.ref(column)} and t_s.id >= ${since.statusId} and t_s.visibility = 'public'
      and t_s.reblog_of_id is null and t_a.suspended_at is null and t_a.discoverable = ${sql.lit(true)}
      and ${notFromLimitedDomain("t_a.domain", "t_a.id", null)}
  )`;
  const [favourites, reblogs] = await Promise.all([
    db
      .selectFrom("favourites")
      .select(["favourites.status_id as target", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("favourites.id", ">=", since.favouriteId)
      .where(eligible("favourites.status_id"))
      .groupBy("favourites.status_id")
      .execute(),
    db
      .selectFrom("statuses as boosts")
      .select(["boosts.reblog_of_id as target", (eb) => eb.fn.countAll<number | string>().as("n")])
      .where("boosts.reblog_of_id", "is not", null)
      .where("boosts.id", ">=", since.statusId)
      .where(eligible("boosts.reblog_of_id"))
      .groupBy("boosts.reblog_of_id")
      .execute(),
  ]);
  const byStatus = new Map<string, { favourites: number; reblogs: number }>();
  for (const row of favourites) byStatus.set(row.target, { favourites: Number(row.n), reblogs: 0 });
  for (const row of reblogs) {
    if (row.target === null) continue;
    const entry = byStatus.get(row.target) ?? { favourites: 0, reblogs: 0 };
    byStatus.set(row.target, { ...entry, reblogs: Number(row.n) });
  }
  return [...byStatus].map(([statusId, counts]) => ({ statusId, ...counts }));
}

export type TrendKind = "tag" | "status" | "link";
export type ReviewState = "approved" | "rejected";

interface TrendReviewRow {
  kind: TrendKind;
  target_id: string;
  state: ReviewState;
  reviewed_by_id: string | null;
  reviewed_at: string;
}

/** The trends module's own table: reviews of trending hashtags and statuses. */
export class TrendReviewsStore {
  readonly #db: Kysely<{ trend_reviews: TrendReviewRow }>;

  constructor(db: Kysely<Database>) {
    this.#db = db.withTables<{ trend_reviews: TrendReviewRow }>() as unknown as Kysely<{ trend_reviews: TrendReviewRow }>;
  }

  async states(kind: TrendKind): Promise<Map<string, ReviewState>> {
    const rows = await this.#db.selectFrom("trend_reviews").select(["target_id", "state"]).where("kind", "=", kind).execute();
    return new Map(rows.map((row) => [row.target_id, row.state]));
  }

  async set(row: TrendReviewRow): Promise<void> {
    await this.#db
      .insertInto("trend_reviews")
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(["kind", "target_id"])
          .doUpdateSet({ state: row.state, reviewed_by_id: row.reviewed_by_id, reviewed_at: row.reviewed_at }),
      )
      .execute();
  }
}
