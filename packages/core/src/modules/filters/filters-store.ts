import type { Kysely } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import type { FilterAction, FilterContext, FilterKeywordRecord, FilterRecord, FilterStatusRecord } from "../../domain/filters.js";
import { type Database, toBool } from "../../ports/storage-schema.js";

export interface NewFilter {
  readonly id: string;
  readonly accountId: string;
  readonly title: string;
  readonly context: readonly FilterContext[];
  readonly action: FilterAction;
  readonly expiresAt: string | null;
  readonly now: string;
}

export interface FilterChanges {
  readonly title?: string;
  readonly context?: readonly FilterContext[];
  readonly action?: FilterAction;
  readonly expiresAt?: string | null;
}

/**
 * `Generated<DbBool>` nests one column type in another, which Kysely reads as
 * the wrapper itself; the value written is a plain boolean on every engine.
 */
function dbBool(value: boolean): never {
  return value as never;
}

function parseContext(value: string): FilterContext[] {
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? (parsed.filter((item) => typeof item === "string") as FilterContext[]) : [];
  } catch {
    return [];
  }
}

// Sorted here rather than by the statement: on SQLite an ORDER BY over the account's index costs a sorter even when
// there is no row, three times the statement's own cost, and an account has a handful of filters at most.
const selectFilters = compiledOnce((db, args: { accountId: string }) =>
  db.selectFrom("filters").selectAll().where("account_id", "=", args.accountId),
);

const selectFiltersAmong = compiledOnce((db, args: { accountId: string; filterIds: readonly string[] }) =>
  db.selectFrom("filters").selectAll().where("account_id", "=", args.accountId).where("id", "in", args.filterIds),
);

function byId<T extends { readonly id: string }>(rows: T[]): T[] {
  return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** An account's filters with their keywords and statuses, in three queries whatever their number. */
export async function listFilters(db: Kysely<Database>, accountId: string, filterIds?: readonly string[]): Promise<FilterRecord[]> {
  if (filterIds !== undefined && filterIds.length === 0) return [];
  // Every timeline page reads the viewer's filters: the usual answer is none, and the statement should cost no more than that.
  const rows = byId(
    filterIds === undefined ? await selectFilters(db, { accountId }) : await selectFiltersAmong(db, { accountId, filterIds }),
  );
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [keywords, statuses] = await Promise.all([
    db.selectFrom("filter_keywords").selectAll().where("filter_id", "in", ids).orderBy("id", "asc").execute(),
    db.selectFrom("filter_statuses").selectAll().where("filter_id", "in", ids).orderBy("id", "asc").execute(),
  ]);
  return rows.map((row) => ({
    id: row.id,
    accountId: row.account_id,
    title: row.title,
    context: parseContext(row.context),
    action: row.filter_action as FilterAction,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    keywords: keywords
      .filter((k) => k.filter_id === row.id)
      .map((k) => ({
        id: k.id,
        filterId: k.filter_id,
        keyword: k.keyword,
        wholeWord: toBool(k.whole_word as unknown as boolean | number),
      })),
    statuses: statuses.filter((s) => s.filter_id === row.id).map((s) => ({ id: s.id, filterId: s.filter_id, statusId: s.status_id })),
  }));
}

export async function findFilter(db: Kysely<Database>, accountId: string, filterId: string): Promise<FilterRecord | null> {
  return (await listFilters(db, accountId, [filterId]))[0] ?? null;
}

export async function insertFilter(db: Kysely<Database>, filter: NewFilter): Promise<void> {
  await db
    .insertInto("filters")
    .values({
      id: filter.id,
      account_id: filter.accountId,
      title: filter.title,
      context: JSON.stringify(filter.context),
      filter_action: filter.action,
      expires_at: filter.expiresAt,
      created_at: filter.now,
      updated_at: filter.now,
    })
    .execute();
}

export async function updateFilter(db: Kysely<Database>, filterId: string, changes: FilterChanges, now: string): Promise<void> {
  await db
    .updateTable("filters")
    .set({
      ...(changes.title !== undefined && { title: changes.title }),
      ...(changes.context !== undefined && { context: JSON.stringify(changes.context) }),
      ...(changes.action !== undefined && { filter_action: changes.action }),
      ...(changes.expiresAt !== undefined && { expires_at: changes.expiresAt }),
      updated_at: now,
    })
    .where("id", "=", filterId)
    .execute();
}

export async function deleteFilter(db: Kysely<Database>, filterId: string): Promise<void> {
  await db.deleteFrom("filter_keywords").where("filter_id", "=", filterId).execute();
  await db.deleteFrom("filter_statuses").where("filter_id", "=", filterId).execute();
  await db.deleteFrom("filters").where("id", "=", filterId).execute();
}

export async function insertFilterKeyword(
  db: Kysely<Database>,
  keyword: FilterKeywordRecord & { readonly createdAt: string },
): Promise<void> {
  await db
    .insertInto("filter_keywords")
    .values({
      id: keyword.id,
      filter_id: keyword.filterId,
      keyword: keyword.keyword,
      whole_word: dbBool(keyword.wholeWord),
      created_at: keyword.createdAt,
    })
    .execute();
}

export async function updateFilterKeyword(
  db: Kysely<Database>,
  keywordId: string,
  changes: { readonly keyword?: string; readonly wholeWord?: boolean },
): Promise<void> {
  if (changes.keyword === undefined && changes.wholeWord === undefined) return;
  await db
    .updateTable("filter_keywords")
    .set({
      ...(changes.keyword !== undefined && { keyword: changes.keyword }),
      ...(changes.wholeWord !== undefined && { whole_word: dbBool(changes.wholeWord) }),
    })
    .where("id", "=", keywordId)
    .execute();
}

export async function deleteFilterKeyword(db: Kysely<Database>, keywordId: string): Promise<void> {
  await db.deleteFrom("filter_keywords").where("id", "=", keywordId).execute();
}

/** The filter id owning a keyword, when the keyword belongs to one of the account's filters. */
export async function findKeywordOwner(db: Kysely<Database>, accountId: string, keywordId: string): Promise<string | null> {
  const row = await db
    .selectFrom("filter_keywords")
    .innerJoin("filters", "filters.id", "filter_keywords.filter_id")
    .select("filters.id as filter_id")
    .where("filter_keywords.id", "=", keywordId)
    .where("filters.account_id", "=", accountId)
    .executeTakeFirst();
  return row?.filter_id ?? null;
}

export async function findStatusFilterOwner(db: Kysely<Database>, accountId: string, filterStatusId: string): Promise<string | null> {
  const row = await db
    .selectFrom("filter_statuses")
    .innerJoin("filters", "filters.id", "filter_statuses.filter_id")
    .select("filters.id as filter_id")
    .where("filter_statuses.id", "=", filterStatusId)
    .where("filters.account_id", "=", accountId)
    .executeTakeFirst();
  return row?.filter_id ?? null;
}

/** Adds a post to a filter; false when it was already there. */
export async function insertFilterStatus(
  db: Kysely<Database>,
  status: FilterStatusRecord & { readonly createdAt: string },
): Promise<boolean> {
  const result = await db
    .insertInto("filter_statuses")
    .values({ id: status.id, filter_id: status.filterId, status_id: status.statusId, created_at: status.createdAt })
    .onConflict((oc) => oc.columns(["filter_id", "status_id"]).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function deleteFilterStatus(db: Kysely<Database>, filterStatusId: string): Promise<void> {
  await db.deleteFrom("filter_statuses").where("id", "=", filterStatusId).execute();
}

/** Whether a status with this id is stored (a filter may name any status, seen or not). */
export async function statusExists(db: Kysely<Database>, statusId: string): Promise<boolean> {
  const row = await db.selectFrom("statuses").select("id").where("id", "=", statusId).executeTakeFirst();
  return row !== undefined;
}
