import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import type { Storage } from "../../ports/storage.js";

/** A time-stamped event a measure counts: who did it, and its weight (bytes for media, else 1). */
export interface Event {
  readonly at: string | Date;
  readonly key: string;
  readonly weight: number;
}

export interface Range {
  readonly from: string;
  readonly to: string;
}

interface ReportRow {
  id: string;
  target_account_id: string | null;
  created_at: string;
  action_taken_at: string | null;
}

type MetricTables = Database & { reports: ReportRow };

/** The reads of the admin dashboard's measures, dimensions and retention: events in a time range, and counts by key. */
export class MetricsStore {
  readonly #db: Kysely<MetricTables>;

  constructor(storage: Storage) {
    // Reports are the reports module's table, which this module requires.
    this.#db = storage.db.withTables<{ reports: ReportRow }>() as unknown as Kysely<MetricTables>;
  }

  async newUsers(range: Range): Promise<Event[]> {
    const rows = await this.#db
      .selectFrom("users")
      .select(["account_id", "created_at"])
      .where("created_at", ">=", range.from)
      .where("created_at", "<", range.to)
      .execute();
    return rows.map((row) => ({ at: row.created_at, key: row.account_id, weight: 1 }));
  }

  /** What marks a local account active on a day: a status written, a favourite given, or its session used. */
  async localActivity(range: Range): Promise<Event[]> {
    const [statuses, favourites, sessions] = await Promise.all([
      this.#db
        .selectFrom("statuses")
        .select(["account_id", "created_at"])
        .where(sql<SqlBool>`statuses.local = ${sql.lit(true)}`)
        .where("created_at", ">=", range.from)
        .where("created_at", "<", range.to)
        .execute(),
      this.#db
        .selectFrom("favourites")
        .innerJoin("accounts", "accounts.id", "favourites.account_id")
        .select(["favourites.account_id", "favourites.created_at"])
        .where("accounts.domain", "is", null)
        .where("favourites.created_at", ">=", range.from)
        .where("favourites.created_at", "<", range.to)
        .execute(),
      this.#db
        .selectFrom("sessions")
        .select(["account_id", "last_used_at"])
        .where("account_id", "is not", null)
        .where("last_used_at", ">=", range.from)
        .where("last_used_at", "<", range.to)
        .execute(),
    ]);
    return [
      ...statuses.map((row) => ({ at: row.created_at, key: row.account_id, weight: 1 })),
      ...favourites.map((row) => ({ at: row.created_at, key: row.account_id, weight: 1 })),
      ...sessions.flatMap((row) => (row.last_used_at && row.account_id ? [{ at: row.last_used_at, key: row.account_id, weight: 1 }] : [])),
    ];
  }

  /** Favourites, boosts and replies that local statuses got. */
  async interactions(range: Range): Promise<Event[]> {
    const [favourites, boosts, replies] = await Promise.all([
      this.#db
        .selectFrom("favourites")
        .innerJoin("statuses", "statuses.id", "favourites.status_id")
        .select(["favourites.id", "favourites.created_at"])
        .where(sql<SqlBool>`statuses.local = ${sql.lit(true)}`)
        .where("favourites.created_at", ">=", range.from)
        .where("favourites.created_at", "<", range.to)
        .execute(),
      this.#db
        .selectFrom("statuses as boost")
        .innerJoin("statuses as target", "target.id", "boost.reblog_of_id")
        .select(["boost.id", "boost.created_at"])
        .where(sql<SqlBool>`target.local = ${sql.lit(true)}`)
        .where("boost.created_at", ">=", range.from)
        .where("boost.created_at", "<", range.to)
        .execute(),
      this.#db
        .selectFrom("statuses as reply")
        .innerJoin("statuses as target", "target.id", "reply.in_reply_to_id")
        .select(["reply.id", "reply.created_at"])
        .where(sql<SqlBool>`target.local = ${sql.lit(true)}`)
        .where("reply.created_at", ">=", range.from)
        .where("reply.created_at", "<", range.to)
        .execute(),
    ]);
    return [...favourites, ...boosts, ...replies].map((row) => ({ at: row.created_at, key: row.id, weight: 1 }));
  }

  async reports(range: Range, column: "created_at" | "action_taken_at", targetDomain?: string): Promise<Event[]> {
    let query = this.#db
      .selectFrom("reports")
      .select(["reports.id", `reports.${column} as at`])
      .where(`reports.${column}`, ">=", range.from)
      .where(`reports.${column}`, "<", range.to);
    if (targetDomain !== undefined) {
      query = query.innerJoin("accounts", "accounts.id", "reports.target_account_id").where("accounts.domain", "=", targetDomain);
    }
    const rows = await query.execute();
    return rows.flatMap((row) => (row.at ? [{ at: row.at, key: row.id, weight: 1 }] : []));
  }

  /** Statuses using a tag: keyed by account, with the author's server as `domain`. */
  async tagUses(range: Range, tagId: string): Promise<(Event & { domain: string | null; language: string | null })[]> {
    const rows = await this.#db
      .selectFrom("status_tags")
      .innerJoin("statuses", "statuses.id", "status_tags.status_id")
      .innerJoin("accounts", "accounts.id", "statuses.account_id")
      .select(["statuses.account_id", "statuses.created_at", "statuses.language", "accounts.domain"])
      .where("status_tags.tag_id", "=", tagId)
      .where("statuses.created_at", ">=", range.from)
      .where("statuses.created_at", "<", range.to)
      .execute();
    return rows.map((row) => ({ at: row.created_at, key: row.account_id, weight: 1, domain: row.domain, language: row.language }));
  }

  async instanceAccounts(range: Range, domain: string): Promise<Event[]> {
    const rows = await this.#db
      .selectFrom("accounts")
      .select(["id", "created_at"])
      .where("domain", "=", domain)
      .where("created_at", ">=", range.from)
      .where("created_at", "<", range.to)
      .execute();
    return rows.map((row) => ({ at: row.created_at, key: row.id, weight: 1 }));
  }

  /** Statuses (boosts left out), with their language and the author's server; of one server, or local ones with `domain` null. */
  async statuses(range: Range, domain: string | null | undefined): Promise<(Event & { domain: string | null; language: string | null })[]> {
    let query = this.#db
      .selectFrom("statuses")
      .innerJoin("accounts", "accounts.id", "statuses.account_id")
      .select(["statuses.id", "statuses.created_at", "statuses.language", "accounts.domain"])
      .where("statuses.reblog_of_id", "is", null)
      .where("statuses.created_at", ">=", range.from)
      .where("statuses.created_at", "<", range.to);
    if (domain === null) query = query.where("accounts.domain", "is", null);
    else if (domain !== undefined) query = query.where("accounts.domain", "=", domain);
    const rows = await query.execute();
    return rows.map((row) => ({ at: row.created_at, key: row.id, weight: 1, domain: row.domain, language: row.language }));
  }

  async instanceMedia(range: Range, domain: string): Promise<Event[]> {
    const rows = await this.#db
      .selectFrom("media_attachments")
      .innerJoin("accounts", "accounts.id", "media_attachments.account_id")
      .select(["media_attachments.id", "media_attachments.created_at", "media_attachments.size_bytes"])
      .where("accounts.domain", "=", domain)
      .where("media_attachments.created_at", ">=", range.from)
      .where("media_attachments.created_at", "<", range.to)
      .execute();
    return rows.map((row) => ({ at: row.created_at, key: row.id, weight: Number(row.size_bytes ?? 0) }));
  }

  /** Follows of `domain`'s accounts by local ones (`follows`), or of local accounts by `domain`'s (`followers`). */
  async instanceFollows(range: Range, domain: string, direction: "follows" | "followers"): Promise<Event[]> {
    const [local, remote] = direction === "follows" ? ["follower", "followed"] : ["followed", "follower"];
    const rows = await this.#db
      .selectFrom("follows")
      .innerJoin("accounts as follower", "follower.id", "follows.account_id")
      .innerJoin("accounts as followed", "followed.id", "follows.target_account_id")
      .select(["follows.account_id", "follows.target_account_id", "follows.created_at"])
      .where(`${local as "follower"}.domain`, "is", null)
      .where(`${remote as "followed"}.domain`, "=", domain)
      .where("follows.created_at", ">=", range.from)
      .where("follows.created_at", "<", range.to)
      .execute();
    return rows.map((row) => ({ at: row.created_at, key: `${row.account_id} ${row.target_account_id}`, weight: 1 }));
  }

  /** A server's accounts by how many local accounts follow them. */
  async mostFollowedOf(domain: string, limit: number): Promise<{ acct: string; count: number }[]> {
    const rows = await this.#db
      .selectFrom("follows")
      .innerJoin("accounts as followed", "followed.id", "follows.target_account_id")
      .innerJoin("accounts as follower", "follower.id", "follows.account_id")
      .select((eb) => ["followed.id", "followed.username", eb.fn.countAll<number | string>().as("n")])
      .where("followed.domain", "=", domain)
      .where("follower.domain", "is", null)
      .groupBy(["followed.id", "followed.username"])
      .orderBy("n", "desc")
      .orderBy("followed.username")
      .limit(limit)
      .execute();
    return rows.map((row) => ({ acct: `${row.username}@${domain}`, count: Number(row.n) }));
  }

  async mediaBytes(): Promise<{ local: number; remote: number }> {
    const rows = await this.#db
      .selectFrom("media_attachments")
      .innerJoin("accounts", "accounts.id", "media_attachments.account_id")
      .select((eb) => [
        eb.case().when("accounts.domain", "is", null).then("local").else("remote").end().as("origin"),
        eb.fn.sum<number | string>("media_attachments.size_bytes").as("bytes"),
      ])
      .groupBy("origin")
      .execute();
    const of = (origin: string) => Number(rows.find((row) => row.origin === origin)?.bytes ?? 0);
    return { local: of("local"), remote: of("remote") };
  }

  /** When each local account signed up, for those that did in the range. */
  async signups(range: Range): Promise<{ accountId: string; at: string | Date }[]> {
    return (await this.newUsers(range)).map((event) => ({ accountId: event.key, at: event.at }));
  }
}
