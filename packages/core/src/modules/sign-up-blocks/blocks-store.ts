import { type Kysely, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import type { Storage } from "../../ports/storage.js";

export interface CanonicalEmailBlockRow {
  readonly id: string;
  readonly canonical_email_hash: string;
  readonly created_at: string;
}

export interface EmailDomainBlockRow {
  readonly id: string;
  readonly domain: string;
  readonly allow_with_approval: boolean | number;
  readonly created_at: string;
}

export interface EmailDomainBlockHitRow {
  readonly block_id: string;
  readonly day: string;
  readonly source: string;
  readonly hits: number;
}

export type IpBlockSeverity = "sign_up_requires_approval" | "sign_up_block" | "no_access";

export interface IpBlockRow {
  readonly id: string;
  readonly ip: string;
  readonly severity: IpBlockSeverity;
  readonly comment: string;
  readonly expires_at: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

type BlockTables = {
  canonical_email_blocks: CanonicalEmailBlockRow;
  email_domain_blocks: EmailDomainBlockRow;
  email_domain_block_hits: EmailDomainBlockHitRow;
  ip_blocks: IpBlockRow;
};

type IdTable = "canonical_email_blocks" | "email_domain_blocks" | "ip_blocks";

/** The sign-up-blocks module's SQL, and the only place it has any. */
export class BlocksStore {
  readonly #db: Kysely<BlockTables>;

  constructor(storage: Storage) {
    this.#db = storage.db.withTables<BlockTables>() as unknown as Kysely<BlockTables>;
  }

  /** One page of a table, newest first, as Mastodon pages ids (`min_id` reads upwards from the oldest). */
  async #page<T extends IdTable>(table: T, page: PageRequest): Promise<BlockTables[T][]> {
    const ascending = page.minId !== undefined;
    let query = this.#db.selectFrom(table as IdTable).selectAll();
    if (page.maxId !== undefined) query = query.where("id", "<", page.maxId);
    const above = page.minId ?? page.sinceId;
    if (above !== undefined) query = query.where("id", ">", above);
    const rows = (await query
      .orderBy("id", ascending ? "asc" : "desc")
      .limit(page.limit)
      .execute()) as BlockTables[T][];
    return ascending ? rows.reverse() : rows;
  }

  async #one<T extends IdTable>(table: T, id: string): Promise<BlockTables[T] | null> {
    return ((await this.#db
      .selectFrom(table as IdTable)
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst()) ?? null) as BlockTables[T] | null;
  }

  async #delete(table: IdTable, id: string): Promise<boolean> {
    const result = await this.#db.deleteFrom(table).where("id", "=", id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  // --- Canonical email blocks ---------------------------------------------

  canonicalPage(page: PageRequest): Promise<CanonicalEmailBlockRow[]> {
    return this.#page("canonical_email_blocks", page);
  }

  canonical(id: string): Promise<CanonicalEmailBlockRow | null> {
    return this.#one("canonical_email_blocks", id);
  }

  async canonicalByHash(hash: string): Promise<CanonicalEmailBlockRow[]> {
    return this.#db.selectFrom("canonical_email_blocks").selectAll().where("canonical_email_hash", "=", hash).execute();
  }

  /** False when the hash is blocked already. */
  async insertCanonical(row: CanonicalEmailBlockRow): Promise<boolean> {
    const result = await this.#db
      .insertInto("canonical_email_blocks")
      .values(row)
      .onConflict((oc) => oc.column("canonical_email_hash").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  deleteCanonical(id: string): Promise<boolean> {
    return this.#delete("canonical_email_blocks", id);
  }

  // --- Email domain blocks --------------------------------------------------

  domainPage(page: PageRequest): Promise<EmailDomainBlockRow[]> {
    return this.#page("email_domain_blocks", page);
  }

  domainBlock(id: string): Promise<EmailDomainBlockRow | null> {
    return this.#one("email_domain_blocks", id);
  }

  async domainsIn(domains: readonly string[]): Promise<EmailDomainBlockRow[]> {
    if (domains.length === 0) return [];
    return this.#db.selectFrom("email_domain_blocks").selectAll().where("domain", "in", domains).execute();
  }

  /** False when the domain is blocked already. */
  async insertDomain(row: EmailDomainBlockRow): Promise<boolean> {
    const result = await this.#db
      .insertInto("email_domain_blocks")
      .values(row)
      .onConflict((oc) => oc.column("domain").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  deleteDomain(id: string): Promise<boolean> {
    return this.#delete("email_domain_blocks", id);
  }

  async recordHit(blockId: string, day: string, source: string): Promise<void> {
    await this.#db
      .insertInto("email_domain_block_hits")
      .values({ block_id: blockId, day, source, hits: 1 })
      .onConflict((oc) => oc.columns(["block_id", "day", "source"]).doUpdateSet({ hits: sql`email_domain_block_hits.hits + 1` }))
      .execute();
  }

  /** Per block and day since `sinceDay`: attempts, and distinct addresses they came from. */
  async hitsSince(
    blockIds: readonly string[],
    sinceDay: string,
  ): Promise<{ blockId: string; day: string; uses: number; sources: number }[]> {
    if (blockIds.length === 0) return [];
    const rows = await this.#db
      .selectFrom("email_domain_block_hits")
      .select((eb) => ["block_id", "day", eb.fn.sum<number | string>("hits").as("uses"), eb.fn.countAll<number | string>().as("sources")])
      .where("block_id", "in", blockIds)
      .where("day", ">=", sinceDay)
      .groupBy(["block_id", "day"])
      .execute();
    return rows.map((row) => ({ blockId: row.block_id, day: row.day, uses: Number(row.uses), sources: Number(row.sources) }));
  }

  // --- IP blocks -------------------------------------------------------------

  ipPage(page: PageRequest): Promise<IpBlockRow[]> {
    return this.#page("ip_blocks", page);
  }

  ipBlock(id: string): Promise<IpBlockRow | null> {
    return this.#one("ip_blocks", id);
  }

  /** The blocks in force at `now`: a check reads them all, since ranges are matched here rather than in SQL. */
  async activeIpBlocks(now: string): Promise<IpBlockRow[]> {
    return this.#db
      .selectFrom("ip_blocks")
      .selectAll()
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .execute();
  }

  async ipBlockByRange(ip: string): Promise<IpBlockRow | null> {
    return (await this.#db.selectFrom("ip_blocks").selectAll().where("ip", "=", ip).executeTakeFirst()) ?? null;
  }

  /** False when the range is blocked already. */
  async insertIp(row: IpBlockRow): Promise<boolean> {
    const result = await this.#db
      .insertInto("ip_blocks")
      .values(row)
      .onConflict((oc) => oc.column("ip").doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async updateIp(id: string, change: Partial<Omit<IpBlockRow, "id" | "created_at">>): Promise<void> {
    await this.#db.updateTable("ip_blocks").set(change).where("id", "=", id).execute();
  }

  deleteIp(id: string): Promise<boolean> {
    return this.#delete("ip_blocks", id);
  }

  /** Expired blocks are removed when next read, as Mastodon removes them. */
  async deleteExpiredIp(now: string): Promise<void> {
    await this.#db.deleteFrom("ip_blocks").where("expires_at", "is not", null).where("expires_at", "<=", now).execute();
  }
}
