import { type Kysely, type SelectQueryBuilder, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import type { Database } from "../../ports/storage-schema.js";

/** An entry as stored: `tags` and `content` are JSON text. */
export interface DataEntryRow {
  readonly id: string;
  readonly owner_id: string;
  readonly type: string | null;
  readonly tags: string;
  readonly content: string;
  readonly created_at: string;
  readonly updated_at: string;
}

interface DataEntryTagRow {
  readonly owner_id: string;
  readonly tag: string;
  readonly entry_id: string;
}

type DataTables = { data_entries: DataEntryRow; data_entry_tags: DataEntryTagRow };
type DataDb = Kysely<DataTables>;

/** What a page of entries is asked for: `owners` null is every owner's (a server-wide Data.Manage). */
export interface EntryFilter {
  readonly owners: readonly string[] | null;
  readonly type?: string;
  /** Every one of them must be an entry's tag. */
  readonly tags: readonly string[];
}

/**
 * How many of a tag's rows are counted to pick the rarest tag of an AND: past
 * this a tag is "common", and the cost of the page is bounded by the rows of
 * the tag it is driven by that it reads before it fills up, not by the count.
 * Counting is read on every page: 2 000 cost a page of two common tags over a
 * million entries 2.9 ms of CPU on SQLite (pnpm bench, large dataset).
 */
const TAG_COUNT_CAP = 256;
/** Owners a statement reads at most: a SQLite compound select has at most 500 terms. */
const OWNERS_A_STATEMENT = 100;

function dataDb(db: Kysely<Database>): DataDb {
  return db.withTables<DataTables>() as unknown as DataDb;
}

/** The ordered id bounds of a page: below `maxId`, above `minId` or `sinceId`; ascending for `minId`. */
function bounds(page: PageRequest): { below?: string; above?: string; ascending: boolean } {
  const above = page.minId ?? page.sinceId;
  return {
    ...(page.maxId !== undefined && { below: page.maxId }),
    ...(above !== undefined && { above }),
    ascending: page.minId !== undefined,
  };
}

/** Inserts the entry and one row for each of its tags. */
export async function insertEntry(db: Kysely<Database>, row: DataEntryRow, tags: readonly string[]): Promise<void> {
  const data = dataDb(db);
  await data.insertInto("data_entries").values(row).execute();
  await insertTags(data, row.owner_id, row.id, tags);
}

async function insertTags(data: DataDb, ownerId: string, entryId: string, tags: readonly string[]): Promise<void> {
  if (tags.length === 0) return;
  await data
    .insertInto("data_entry_tags")
    .values(tags.map((tag) => ({ owner_id: ownerId, tag, entry_id: entryId })))
    .execute();
}

async function deleteTags(data: DataDb, ownerId: string, entryId: string, tags: readonly string[]): Promise<void> {
  if (tags.length === 0) return;
  // By the whole key: the table has no index led by the entry (see migrations.ts).
  await data
    .deleteFrom("data_entry_tags")
    .where("owner_id", "=", ownerId)
    .where("tag", "in", tags)
    .where("entry_id", "=", entryId)
    .execute();
}

export async function findEntry(db: Kysely<Database>, id: string): Promise<DataEntryRow | null> {
  return (await dataDb(db).selectFrom("data_entries").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
}

/**
 * The entry, its row locked until the transaction ends (PostgreSQL's row
 * lock of an update; SQLite's writer is alone already): two changes of its
 * tags at once then run one after the other.
 */
export async function lockedEntry(db: Kysely<Database>, id: string): Promise<DataEntryRow | null> {
  const data = dataDb(db);
  await data
    .updateTable("data_entries")
    .set((eb) => ({ updated_at: eb.ref("updated_at") }))
    .where("id", "=", id)
    .execute();
  return findEntry(db, id);
}

/** Writes an entry's new type, tags and content; the tag rows change by the tags removed and added. */
export async function updateEntry(
  db: Kysely<Database>,
  before: DataEntryRow,
  beforeTags: readonly string[],
  after: Pick<DataEntryRow, "type" | "tags" | "content" | "updated_at">,
  afterTags: readonly string[],
): Promise<void> {
  const data = dataDb(db);
  await data.updateTable("data_entries").set(after).where("id", "=", before.id).execute();
  const kept = new Set(afterTags);
  const was = new Set(beforeTags);
  await deleteTags(
    data,
    before.owner_id,
    before.id,
    beforeTags.filter((tag) => !kept.has(tag)),
  );
  await insertTags(
    data,
    before.owner_id,
    before.id,
    afterTags.filter((tag) => !was.has(tag)),
  );
}

export async function deleteEntry(db: Kysely<Database>, row: DataEntryRow, tags: readonly string[]): Promise<void> {
  const data = dataDb(db);
  await deleteTags(data, row.owner_id, row.id, tags);
  await data.deleteFrom("data_entries").where("id", "=", row.id).execute();
}

/** Deletes every entry of an owner (an account that goes); how many. */
export async function deleteEntriesOf(db: Kysely<Database>, ownerId: string): Promise<number> {
  const data = dataDb(db);
  await data.deleteFrom("data_entry_tags").where("owner_id", "=", ownerId).execute();
  const result = await data.deleteFrom("data_entries").where("owner_id", "=", ownerId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Of the tags, the one with the fewest rows among the owners' (counted up to
 * TAG_COUNT_CAP each, in one statement): the page is read along that tag's
 * rows, and each other tag is one key lookup per row read.
 */
async function rarestTag(data: DataDb, owners: readonly string[] | null, tags: readonly string[]): Promise<string> {
  if (tags.length === 1) return tags[0] as string;
  const counted = tags.map((tag, index) => {
    let rows = data.selectFrom("data_entry_tags").select(sql.lit(1).as("one")).where("tag", "=", tag);
    if (owners !== null) rows = rows.where("owner_id", "in", owners);
    return sql<number>`(select count(*) from (${rows.limit(TAG_COUNT_CAP)}) as capped)`.as(`c${index}`);
  });
  const row = (await data.selectNoFrom(counted).executeTakeFirstOrThrow()) as Record<string, number | string | bigint>;
  let best = 0;
  tags.forEach((_, index) => {
    if (Number(row[`c${index}`]) < Number(row[`c${best}`])) best = index;
  });
  return tags[best] as string;
}

type EntryQuery = SelectQueryBuilder<DataTables & { t0: DataEntryTagRow; e: DataEntryRow }, "e" | "t0", DataEntryRow>;

/**
 * One owner's page (or every owner's, `owner` null), newest first unless
 * `ascending`: along the driving tag's key range when there are tags, else
 * along the entries' owner index.
 */
function ownerPage(
  data: DataDb,
  owner: string | null,
  filter: EntryFilter,
  driver: string | null,
  page: PageRequest,
): SelectQueryBuilder<DataTables, "data_entries", DataEntryRow> | EntryQuery {
  const { below, above, ascending } = bounds(page);
  const direction = ascending ? "asc" : "desc";
  if (driver === null) {
    let query = data.selectFrom("data_entries").selectAll();
    if (owner !== null) query = query.where("owner_id", "=", owner);
    if (filter.type !== undefined) query = query.where("type", "=", filter.type);
    if (below !== undefined) query = query.where("id", "<", below);
    if (above !== undefined) query = query.where("id", ">", above);
    return query.orderBy("id", direction).limit(page.limit);
  }
  let query = data
    .selectFrom("data_entry_tags as t0")
    .innerJoin("data_entries as e", "e.id", "t0.entry_id")
    .selectAll("e")
    .where("t0.tag", "=", driver);
  if (owner !== null) query = query.where("t0.owner_id", "=", owner);
  if (filter.type !== undefined) query = query.where("e.type", "=", filter.type);
  if (below !== undefined) query = query.where("t0.entry_id", "<", below);
  if (above !== undefined) query = query.where("t0.entry_id", ">", above);
  for (const tag of filter.tags) {
    if (tag === driver) continue;
    // An entry's tag rows carry its owner: the lookup is the whole primary key.
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom("data_entry_tags as t1")
          .select(sql.lit(1).as("one"))
          .whereRef("t1.owner_id", "=", "t0.owner_id")
          .where("t1.tag", "=", tag)
          .whereRef("t1.entry_id", "=", "t0.entry_id"),
      ),
    );
  }
  return query.orderBy("t0.entry_id", direction).limit(page.limit) as EntryQuery;
}

/** One statement: the pages of up to OWNERS_A_STATEMENT owners, merged and cut to the page. */
async function ownersPage(
  data: DataDb,
  owners: readonly (string | null)[],
  filter: EntryFilter,
  driver: string | null,
  page: PageRequest,
): Promise<DataEntryRow[]> {
  const direction = page.minId !== undefined ? "asc" : "desc";
  if (owners.length === 1) return (await ownerPage(data, owners[0] ?? null, filter, driver, page).execute()) as DataEntryRow[];
  // Each owner's page is ordered and cut on its own, so that each reads its own index range; the few rows are merged.
  const parts = owners.map((owner, index) => data.selectFrom(ownerPage(data, owner, filter, driver, page).as(`p${index}`)).selectAll());
  const [first, ...rest] = parts;
  if (!first) return [];
  const union = rest.reduce((all, part) => all.unionAll(part), first);
  return (await data.selectFrom(union.as("merged")).selectAll().orderBy("id", direction).limit(page.limit).execute()) as DataEntryRow[];
}

/**
 * A page of entries that pass the filter, newest first (the oldest of those
 * above `minId` when it is given, still newest first).
 */
export async function entriesPage(db: Kysely<Database>, filter: EntryFilter, page: PageRequest): Promise<DataEntryRow[]> {
  if (filter.owners !== null && filter.owners.length === 0) return [];
  const data = dataDb(db);
  const driver = filter.tags.length === 0 ? null : await rarestTag(data, filter.owners, filter.tags);
  const owners = filter.owners ?? [null];
  let rows: DataEntryRow[] = [];
  for (let start = 0; start < owners.length; start += OWNERS_A_STATEMENT) {
    rows.push(...(await ownersPage(data, owners.slice(start, start + OWNERS_A_STATEMENT), filter, driver, page)));
  }
  const ascending = page.minId !== undefined;
  if (owners.length > OWNERS_A_STATEMENT) {
    rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (ascending ? 1 : -1));
    rows = rows.slice(0, page.limit);
  }
  return ascending ? rows.reverse() : rows;
}
