import { type Kysely, sql } from "kysely";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import type { PageRequest } from "../../domain/page.js";
import { type Database, toBool } from "../../ports/storage-schema.js";

export type DomainBlockSeverity = "SUSPEND" | "LIMIT" | "NOOP";

export interface DomainBlockRow {
  readonly id: string;
  readonly domain: string;
  readonly severity: DomainBlockSeverity;
  readonly rejectMedia: boolean;
  readonly rejectReports: boolean;
  readonly privateComment: string | null;
  readonly publicComment: string | null;
  readonly obfuscate: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface DomainAllowRow {
  readonly id: string;
  readonly domain: string;
  readonly createdAt: string;
}

export type DomainBlockFields = Omit<DomainBlockRow, "id" | "domain" | "createdAt" | "updatedAt">;

const BLOCK_COLUMNS = [
  "id",
  "domain",
  "severity",
  "reject_media",
  "reject_reports",
  "private_comment",
  "public_comment",
  "obfuscate",
  "created_at",
  "updated_at",
] as const;

interface RawBlock {
  id: string;
  domain: string;
  severity: string;
  reject_media: boolean | number;
  reject_reports: boolean | number;
  private_comment: string | null;
  public_comment: string | null;
  obfuscate: boolean | number;
  created_at: string;
  updated_at: string;
}

function toBlock(row: RawBlock): DomainBlockRow {
  return {
    id: row.id,
    domain: row.domain,
    severity: row.severity as DomainBlockSeverity,
    rejectMedia: toBool(row.reject_media),
    rejectReports: toBool(row.reject_reports),
    privateComment: row.private_comment,
    publicComment: row.public_comment,
    obfuscate: toBool(row.obfuscate),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function listDomainBlocks(db: Kysely<Database>, page: PageRequest): Promise<DomainBlockRow[]> {
  const rows = await fetchIdPage(db.selectFrom("domain_blocks").select(BLOCK_COLUMNS), "id", page);
  return rows.map(toBlock);
}

export async function findDomainBlock(db: Kysely<Database>, id: string): Promise<DomainBlockRow | null> {
  const row = await db.selectFrom("domain_blocks").select(BLOCK_COLUMNS).where("id", "=", id).executeTakeFirst();
  return row ? toBlock(row) : null;
}

export async function findDomainBlockByDomain(db: Kysely<Database>, domain: string): Promise<DomainBlockRow | null> {
  const row = await db.selectFrom("domain_blocks").select(BLOCK_COLUMNS).where("domain", "=", domain).executeTakeFirst();
  return row ? toBlock(row) : null;
}

/** Inserts a block; false when the domain is already blocked (no-op, so concurrent inserts cannot fail on the key). */
export async function insertDomainBlock(db: Kysely<Database>, block: DomainBlockRow): Promise<boolean> {
  const result = await db
    .insertInto("domain_blocks")
    .values({
      id: block.id,
      domain: block.domain,
      severity: block.severity,
      reject_media: block.rejectMedia,
      reject_reports: block.rejectReports,
      private_comment: block.privateComment,
      public_comment: block.publicComment,
      obfuscate: block.obfuscate,
      created_at: block.createdAt,
      updated_at: block.updatedAt,
    })
    .onConflict((oc) => oc.column("domain").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function updateDomainBlock(db: Kysely<Database>, id: string, fields: DomainBlockFields, updatedAt: string): Promise<void> {
  await db
    .updateTable("domain_blocks")
    .set({
      severity: fields.severity,
      reject_media: fields.rejectMedia,
      reject_reports: fields.rejectReports,
      private_comment: fields.privateComment,
      public_comment: fields.publicComment,
      obfuscate: fields.obfuscate,
      updated_at: updatedAt,
    })
    .where("id", "=", id)
    .execute();
}

export async function deleteDomainBlock(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom("domain_blocks").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function listDomainAllows(db: Kysely<Database>, page: PageRequest): Promise<DomainAllowRow[]> {
  const rows = await fetchIdPage(db.selectFrom("domain_allows").select(["id", "domain", "created_at"]), "id", page);
  return rows.map((row) => ({ id: row.id, domain: row.domain, createdAt: row.created_at }));
}

export async function findDomainAllow(db: Kysely<Database>, id: string): Promise<DomainAllowRow | null> {
  const row = await db.selectFrom("domain_allows").select(["id", "domain", "created_at"]).where("id", "=", id).executeTakeFirst();
  return row ? { id: row.id, domain: row.domain, createdAt: row.created_at } : null;
}

export async function findDomainAllowByDomain(db: Kysely<Database>, domain: string): Promise<DomainAllowRow | null> {
  const row = await db.selectFrom("domain_allows").select(["id", "domain", "created_at"]).where("domain", "=", domain).executeTakeFirst();
  return row ? { id: row.id, domain: row.domain, createdAt: row.created_at } : null;
}

/** Inserts an allow; false when the domain is already allowed. */
export async function insertDomainAllow(db: Kysely<Database>, allow: DomainAllowRow): Promise<boolean> {
  const result = await db
    .insertInto("domain_allows")
    .values({ id: allow.id, domain: allow.domain, created_at: allow.createdAt })
    .onConflict((oc) => oc.column("domain").doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function deleteDomainAllow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom("domain_allows").where("id", "=", id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface DomainRules {
  /** Blocks of the domain or a parent domain. */
  readonly blocks: readonly DomainBlockRow[];
  /** Whether the domain or a parent domain is on the allowlist. */
  readonly allowed: boolean;
}

/**
 * The blocks and allows that apply to a host (given as the host and its
 * parent domains), in one statement: both tables' matching rows, unioned.
 */
export async function findDomainRules(db: Kysely<Database>, domains: readonly string[]): Promise<DomainRules> {
  if (domains.length === 0) return { blocks: [], allowed: false };
  const list = [...domains];
  const rows = await db
    .selectFrom("domain_blocks")
    .select([...BLOCK_COLUMNS])
    .where("domain", "in", list)
    .unionAll(
      db
        .selectFrom("domain_allows")
        .select([
          "id",
          "domain",
          sql<string>`'ALLOW'`.as("severity"),
          sql<boolean>`false`.as("reject_media"),
          sql<boolean>`false`.as("reject_reports"),
          sql<string | null>`null`.as("private_comment"),
          sql<string | null>`null`.as("public_comment"),
          sql<boolean>`false`.as("obfuscate"),
          "created_at",
          "created_at as updated_at",
        ])
        .where("domain", "in", list),
    )
    .execute();
  const raw = rows as unknown as RawBlock[];
  return {
    blocks: raw.filter((row) => row.severity !== "ALLOW").map(toBlock),
    allowed: raw.some((row) => row.severity === "ALLOW"),
  };
}
