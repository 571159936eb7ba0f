import { type Expression, type Kysely, type SqlBool, sql } from "kysely";
import type { StorageCapabilities } from "../../ports/storage.js";
import { visibleTo } from "../statuses/visibility-store.js";
import type { Database } from "../../ports/storage-schema.js";
import { notHiddenFrom } from "../relationships/hidden-authors-store.js";
import { notFromLimitedDomain } from "../domain-policy/limited-domains-store.js";

/**
 * Full-text queries over the indexes of migration 0009, one flavour per
 * engine. Terms are reduced to runs of letters and digits before they reach
 * either query language, so nothing a user types is read as an operator.
 */
export type FullTextFlavour = StorageCapabilities["fullTextSearch"];

const MAX_TERMS = 8;

/** The words of a query, lower-cased, as both engines' tokenizers split them. */
export function searchTerms(query: string): string[] {
  return [
    ...query
      .toLowerCase()
      .normalize("NFKC")
      .matchAll(/[\p{L}\p{N}]+/gu),
  ]
    .map((m) => m[0])
    .slice(0, MAX_TERMS);
}

/** Every term must appear; with `prefix`, the last one may be the start of a word (typing ahead). */
function fts5Query(terms: readonly string[], prefix: boolean): string {
  return terms.map((term, i) => `"${term}"${prefix && i === terms.length - 1 ? "*" : ""}`).join(" ");
}

function tsQuery(terms: readonly string[], prefix: boolean): string {
  return terms.map((term, i) => `${term}${prefix && i === terms.length - 1 ? ":*" : ""}`).join(" & ");
}

/**
 * A condition on `statuses` matching statuses whose text (and content warning)
 * holds every term; boosts never match. Each flavour leaves boosts out its
 * own way: SQLite never indexes them (migration 0009), so its condition needs
 * no `reblog_of_id is null` (which, before migration 0018 made
 * statuses_reblog_idx partial, SQLite served from that index, reading nearly
 * every status before the matches).
 */
export function statusTextMatches(flavour: FullTextFlavour, terms: readonly string[]): Expression<SqlBool> {
  if (terms.length === 0) return sql<SqlBool>`1 = 0`;
  switch (flavour) {
    case "fts5":
      return sql<SqlBool>`statuses.id in (
        select k.status_id from statuses_fts f join statuses_fts_keys k on k.doc = f.rowid
        where statuses_fts match ${fts5Query(terms, false)})`;
    case "tsvector":
      return tsvectorMatches(terms, "from the index");
    default:
      return sql<SqlBool>`(statuses.reblog_of_id is null and ${sql.join(
        terms.map((term) => sql`lower(statuses.text) like ${`%${term}%`}`),
        sql` and `,
      )})`;
  }
}

/**
 * The tsvector condition on `statuses`, in one of two forms.
 *
 * "from the index": the expression and predicate of statuses_search_idx,
 * repeated so the planner uses it.
 *
 * "status by status": the same condition, written so that it is not the index's
 * expression (the text gains an empty string), checked on the statuses
 * PostgreSQL walks newest first. The index hands over every post with the
 * words before any is checked: for a word in a sixth of a million statuses,
 * 160 000 entries for a page of 20, read once to count and again for each
 * window. Walking the newest statuses of a window finds the 20 of a common word
 * in about 120.
 *
 * Status by status, parsing a text into its words (20 µs a status) is most of the
 * cost, and most statuses walked lack a word: each status is first asked whether
 * its lower-cased text holds every term at all, which a post with the words
 * always does (a word of the 'simple' configuration is a piece of the text,
 * lower-cased), and only the statuses that do are parsed.
 */
function tsvectorMatches(terms: readonly string[], checked: "from the index" | "post by post"): Expression<SqlBool> {
  const text = sql`coalesce(statuses.spoiler_text, '') || ' ' || coalesce(statuses.text, '')`;
  const words = sql<SqlBool>`to_tsvector('simple', ${checked === "from the index" ? text : sql`${text} || ''`}) @@ to_tsquery('simple', ${tsQuery(terms, false)})`;
  if (checked === "from the index") return sql<SqlBool>`(statuses.reblog_of_id is null and ${words})`;
  // Terms are letters and digits only (searchTerms): nothing in them is a pattern's wildcard. The text is lower-cased
  // once for all the terms.
  const patterns = terms.map((term) => sql`lower(${`%${term}%`})`);
  return sql<SqlBool>`(statuses.reblog_of_id is null and lower(${text}) like all (array[${sql.join(patterns)}]) and ${words})`;
}

/** A condition on `accounts` matching accounts whose username or display name has words starting with the terms. */
export function accountTextMatches(flavour: FullTextFlavour, terms: readonly string[]): Expression<SqlBool> {
  if (terms.length === 0) return sql<SqlBool>`1 = 0`;
  switch (flavour) {
    case "fts5":
      return sql<SqlBool>`accounts.id in (
        select k.account_id from accounts_fts f join accounts_fts_keys k on k.doc = f.rowid
        where accounts_fts match ${fts5Query(terms, true)})`;
    case "tsvector":
      return sql<SqlBool>`to_tsvector('simple', accounts.username || ' ' || accounts.display_name) @@ to_tsquery('simple', ${tsQuery(terms, true)})`;
    default:
      return sql<SqlBool>`${sql.join(
        terms.map((term) => sql`lower(accounts.username || ' ' || accounts.display_name) like ${`%${term}%`}`),
        sql` and `,
      )}`;
  }
}

/** `column` starts with `prefix`, taken literally (an index range scan on both engines). */
export function startsWith(column: string, prefix: string): Expression<SqlBool> {
  const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
  return sql<SqlBool>`${sql.ref(column)} like ${`${escaped}%`} escape ${"\\"}`;
}

export interface StatusSearch {
  readonly viewerId: string;
  readonly terms: readonly string[];
  readonly accountId?: string;
  readonly maxId?: string;
  readonly minId?: string;
  readonly limit: number;
  readonly offset: number;
  readonly now: string;
}

/** When a status search walks the newest statuses window by window instead of gathering every match. */
export interface SearchWindows {
  /** Terms found in at least this many statuses are searched for window by window. */
  readonly commonTermsStatuses: number;
  /** Statuses in the first window. */
  readonly windowStatuses: number;
  /** How many times more statuses each window holds than the one before. */
  readonly growth: number;
  /** Windows walked before the rest of the matches is gathered at once. */
  readonly maxWindows: number;
}

/**
 * A window costs in proportion to its statuses, and a common word fills a page
 * within a few hundred of the newest statuses that a viewer may see: the first
 * window is small, and each after it four times the one before, so a search
 * that needs older statuses walks about as many (42 500 in four windows) as
 * eight windows of 5 000 did, in half the statements.
 */
export const SEARCH_WINDOWS: SearchWindows = { commonTermsStatuses: 2_000, windowStatuses: 500, growth: 4, maxWindows: 4 };

/**
 * Where a search asks whether its terms are common: `ask` asks the database;
 * a memo may answer from what it asked before (`CommonTermsMemo`).
 */
export interface CommonTerms {
  common(terms: readonly string[], ask: () => Promise<boolean>): Promise<boolean>;
}

const askEveryTime: CommonTerms = { common: (_terms, ask) => ask() };

/**
 * Ids of statuses matching the terms that the viewer may see, newest first.
 * As Mastodon does since 4.2, a status is searchable by its author, by those it
 * mentions or who favourited, boosted or bookmarked it, and, when public, by
 * everyone if its author opted into discovery.
 *
 * Both engines' indexes hand over every matching status, in no useful order,
 * before the newest can be picked: cheap for a rare word, but a word in a
 * sixth of a million statuses cost 0.1-0.9 s on SQLite and 8 s on PostgreSQL.
 * Common terms are therefore looked for among the newest statuses first, a
 * window of them at a time, and the matches of each window are checked
 * alone; the answer is the same.
 */
export async function searchStatusIds(
  db: Kysely<Database>,
  flavour: FullTextFlavour,
  search: StatusSearch,
  windows: SearchWindows = SEARCH_WINDOWS,
  commonTerms: CommonTerms = askEveryTime,
): Promise<string[]> {
  const indexed = flavour === "fts5" || flavour === "tsvector";
  if (
    search.terms.length > 0 &&
    indexed &&
    search.accountId === undefined &&
    (await commonTerms.common(search.terms, () => termsAreCommon(db, flavour, search.terms, windows.commonTermsStatuses)))
  ) {
    return searchWindowByWindow(db, flavour, search, windows);
  }
  return searchMatching(db, search, statusTextMatches(flavour, search.terms));
}

/**
 * Whether at least `statuses` statuses have every term (the index stops counting
 * there). On PostgreSQL the statistics of the index's words answer first when
 * they hold every term: counting reads the whole of a common word's entries.
 */
export async function termsAreCommon(
  db: Kysely<Database>,
  flavour: FullTextFlavour,
  terms: readonly string[],
  posts: number,
): Promise<boolean> {
  if (flavour === "tsvector") {
    const estimated = await estimatedStatusesWithTerms(db, terms);
    if (estimated !== null) return estimated >= posts;
  }
  const matching =
    flavour === "fts5"
      ? sql`select 1 from statuses_fts where statuses_fts match ${fts5Query(terms, false)} limit ${posts}`
      : sql`select 1 from statuses where ${statusTextMatches(flavour, terms)} limit ${posts}`;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${matching}) m`.execute(db);
  return Number(rows[0]?.n ?? 0) >= posts;
}

/**
 * How many statuses have every term, as the statistics ANALYZE keeps of
 * statuses_search_idx's words estimate it (the rarest term's share of the
 * statuses, times the statuses); null when a term is not among the words it keeps
 * (rarer ones, or no statistics yet). PostgreSQL's planner does not use these
 * itself: it ignores the statistics of a partial index.
 */
async function estimatedStatusesWithTerms(db: Kysely<Database>, terms: readonly string[]): Promise<number | null> {
  const { rows } = await sql<{ known: number | string; share: number | null; posts: number | null }>`
    select count(*) as known, min(e.share) as share,
      (select c.reltuples from pg_class c where c.oid = to_regclass('statuses')) as posts
    from pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as e(word, share)
    where s.schemaname = current_schema() and s.tablename = 'statuses_search_idx' and e.word in (${sql.join(terms)})`.execute(db);
  const row = rows[0];
  const distinct = new Set(terms).size;
  if (!row || Number(row.known) < distinct || row.share === null || row.posts === null || row.posts < 0) return null;
  return row.share * row.posts;
}

/** Bounds of a window of status ids: `from` inclusive, `above` and `below` exclusive. */
interface IdWindow {
  readonly from?: string;
  readonly above?: string;
  readonly below?: string;
}

async function searchWindowByWindow(
  db: Kysely<Database>,
  flavour: FullTextFlavour,
  search: StatusSearch,
  windows: SearchWindows,
): Promise<string[]> {
  const wanted = search.offset + search.limit;
  const found: string[] = [];
  let below = search.maxId;
  const unbounded = { ...search, maxId: undefined, minId: undefined, offset: 0 };
  let windowStatuses = Math.max(1, Math.trunc(windows.windowStatuses));
  for (let walked = 0; walked < windows.maxWindows; walked++, windowStatuses = Math.trunc(windowStatuses * Math.max(1, windows.growth))) {
    let edge = db
      .selectFrom("statuses")
      .select("id")
      .orderBy("id", "desc")
      .offset(windowStatuses - 1)
      .limit(1);
    if (below !== undefined) edge = edge.where("id", "<", below);
    if (search.minId !== undefined) edge = edge.where("id", ">", search.minId);
    const bounds: IdWindow = {
      ...(search.minId !== undefined && { above: search.minId }),
      ...(below !== undefined && { below }),
    };
    const page = { ...unbounded, limit: wanted - found.length };
    const window =
      flavour === "tsvector"
        ? await windowPageWithEdge(db, page, edge, bounds)
        : await windowPage(db, flavour, page, (await edge.executeTakeFirst())?.id, bounds);
    found.push(...window.ids);
    // No edge: the window reached the oldest status (or min_id), and this was the last window.
    if (found.length >= wanted || window.from === undefined) return found.slice(search.offset, wanted);
    below = window.from;
  }
  // Common terms, but the viewer may see few of the newest statuses that have them: the older ones at once.
  const rest = await searchMatching(
    db,
    {
      ...unbounded,
      ...(below !== undefined && { maxId: below }),
      ...(search.minId !== undefined && { minId: search.minId }),
      limit: wanted - found.length,
    },
    statusTextMatches(flavour, search.terms),
  );
  return [...found, ...rest].slice(search.offset, wanted);
}

/** The matches of one window, and where it begins (undefined: it reaches the oldest status). */
interface WindowPage {
  readonly ids: string[];
  readonly from: string | undefined;
}

/** The matches of the window that begins at `from`, its edge read before. */
async function windowPage(
  db: Kysely<Database>,
  flavour: FullTextFlavour,
  page: StatusSearch,
  from: string | undefined,
  bounds: IdWindow,
): Promise<WindowPage> {
  const match = await windowMatches(db, flavour, page.terms, { ...bounds, ...(from !== undefined && { from }) });
  return { ids: await searchMatching(db, page, match), from };
}

/**
 * The matches of the window that begins at `edge`, and that edge, in one
 * statement: the page's query walks the window from its top, bounded by the
 * edge the same statement reads (every id is above the empty text, so no
 * edge bounds nothing), instead of a round trip for the edge first. For
 * PostgreSQL, which checks a window's statuses one by one (`windowMatches`).
 */
async function windowPageWithEdge(
  db: Kysely<Database>,
  page: StatusSearch,
  edge: Expression<{ id: string }>,
  bounds: IdWindow,
): Promise<WindowPage> {
  const match = await windowMatches(db, "tsvector", page.terms, bounds);
  const matching = matchingQuery(db, page, sql<SqlBool>`(${match} and statuses.id >= coalesce(window_edge.id, ''))`);
  const { rows } = await sql<{ edge: string | null; id: string | null }>`
    select window_edge.id as edge, page.id from (select (${edge}) as id) as window_edge
    left join lateral (${matching}) as page on true
    order by page.id desc`.execute(db);
  return { ids: rows.flatMap((row) => (row.id === null ? [] : [row.id])), from: rows[0]?.edge ?? undefined };
}

/**
 * The text condition limited to one window of ids. On SQLite the full-text
 * index is read only over the documents of the window's statuses (its rowid
 * range, found first, read down from its top), and the bounds stay inside
 * the subquery so SQLite still starts from the matches. On PostgreSQL the
 * window's statuses are checked one by one, newest first, until the page is
 * full (`tsvectorMatches`, "status by status").
 */
async function windowMatches(
  db: Kysely<Database>,
  flavour: FullTextFlavour,
  terms: readonly string[],
  window: IdWindow,
): Promise<Expression<SqlBool>> {
  const bounds = (column: string) =>
    sql.join(
      [
        sql<SqlBool>`1 = 1`,
        ...(window.from !== undefined ? [sql<SqlBool>`${sql.ref(column)} >= ${window.from}`] : []),
        ...(window.above !== undefined ? [sql<SqlBool>`${sql.ref(column)} > ${window.above}`] : []),
        ...(window.below !== undefined ? [sql<SqlBool>`${sql.ref(column)} < ${window.below}`] : []),
      ],
      sql` and `,
    );
  if (flavour === "tsvector") return sql<SqlBool>`(${tsvectorMatches(terms, "post by post")} and ${bounds("statuses.id")})`;
  if (flavour !== "fts5") return sql<SqlBool>`(${statusTextMatches(flavour, terms)} and ${bounds("statuses.id")})`;
  const { rows } = await sql<{ lo: number | null; hi: number | null }>`
    select min(k.doc) as lo, max(k.doc) as hi from statuses_fts_keys k where ${bounds("k.status_id")}`.execute(db);
  const lo = rows[0]?.lo;
  const hi = rows[0]?.hi;
  if (lo === null || lo === undefined || hi === null || hi === undefined) return sql<SqlBool>`1 = 0`;
  // FTS5 reaches a rowid in a word's list of documents by reading the list up to it, from either end: a lower bound
  // cost as much as every match below it (11 ms on a million statuses for a word in a sixth of them, for a window of 800
  // matches). Read down from `hi` instead, the list is read only as far as the window's matches can go: no more of
  // them than the window has rowids.
  return sql<SqlBool>`statuses.id in (
    select k.status_id from (
      select rowid from statuses_fts where statuses_fts match ${fts5Query(terms, false)} and rowid <= ${hi}
      order by rowid desc limit ${hi - lo + 1}
    ) f join statuses_fts_keys k on k.doc = f.rowid
    where f.rowid >= ${lo} and ${bounds("k.status_id")})`;
}

/** The viewer's page of the statuses meeting `match`. */
async function searchMatching(db: Kysely<Database>, search: StatusSearch, match: Expression<SqlBool>): Promise<string[]> {
  const rows = await matchingQuery(db, search, match).execute();
  return rows.map((row) => row.id);
}

/** The statement of `searchMatching`. */
function matchingQuery(db: Kysely<Database>, search: StatusSearch, match: Expression<SqlBool>) {
  const viewer = search.viewerId;
  let query = db
    .selectFrom("statuses")
    .select("statuses.id")
    .where(match)
    .where(visibleTo(viewer, "statuses", db))
    .where(notHiddenFrom("statuses.account_id", viewer, search.now))
    .where(
      sql<SqlBool>`(
        statuses.account_id = ${viewer}
        or (statuses.visibility = 'public' and exists (select 1 from accounts s_a where s_a.id = statuses.account_id and s_a.discoverable = ${sql.lit(true)}))
        or exists (select 1 from mentions s_m where s_m.status_id = statuses.id and s_m.account_id = ${viewer})
        or exists (select 1 from favourites s_f where s_f.status_id = statuses.id and s_f.account_id = ${viewer})
        or exists (select 1 from bookmarks s_k where s_k.status_id = statuses.id and s_k.account_id = ${viewer})
        or exists (select 1 from statuses s_r where s_r.reblog_of_id = statuses.id and s_r.account_id = ${viewer})
      )`,
    );
  if (search.accountId !== undefined) query = query.where("statuses.account_id", "=", search.accountId);
  if (search.maxId !== undefined) query = query.where("statuses.id", "<", search.maxId);
  if (search.minId !== undefined) query = query.where("statuses.id", ">", search.minId);
  return query.orderBy("statuses.id", "desc").limit(search.limit).offset(search.offset);
}

export interface AccountSearch {
  readonly viewerId: string | null;
  readonly query: string;
  readonly terms: readonly string[];
  /** Only accounts the viewer follows. */
  readonly following: boolean;
  readonly limit: number;
  readonly offset: number;
  readonly now: string;
}

/**
 * Ids of accounts matching a query, the viewer's own among them: the exact `username` or `username@domain`
 * first, then accounts whose names start with the words typed, those the
 * viewer follows before others, then the most followed. Accounts of a
 * limited domain only when the viewer follows them or asked for their exact handle.
 */
export async function searchAccountIds(db: Kysely<Database>, flavour: FullTextFlavour, search: AccountSearch): Promise<string[]> {
  const acct = search.query.trim().replace(/^@/, "").toLowerCase();
  const viewer = search.viewerId;
  const follows = (column: string) =>
    viewer === null
      ? sql<SqlBool>`1 = 0`
      : sql<SqlBool>`exists (select 1 from follows a_f where a_f.account_id = ${viewer} and a_f.target_account_id = ${sql.ref(column)})`;
  const matches: Expression<SqlBool>[] = [accountTextMatches(flavour, search.terms)];
  if (acct.length > 0) matches.push(startsWith("accounts.acct_key", acct));
  let query = db
    .selectFrom("accounts")
    .select("accounts.id")
    .where("accounts.suspended_at", "is", null)
    .where(sql<SqlBool>`(${sql.join(matches, sql` or `)})`);
  // The viewer is found too, as Mastodon finds them (and counts as one they follow).
  if (viewer !== null) query = query.where(notHiddenFrom("accounts.id", viewer, search.now));
  // Accounts of a limited domain are found only by those who follow them, or by their exact handle (to follow them).
  query = query.where(sql<SqlBool>`(accounts.acct_key = ${acct} or ${notFromLimitedDomain("accounts.domain", "accounts.id", viewer)})`);
  if (search.following)
    query = query.where((eb) =>
      viewer === null ? follows("accounts.id") : eb.or([eb("accounts.id", "=", viewer), follows("accounts.id")]),
    );
  const rows = await query
    .orderBy(sql`case when accounts.acct_key = ${acct} then 0 else 1 end`)
    .orderBy(sql`case when ${follows("accounts.id")} then 0 else 1 end`)
    .orderBy("accounts.followers_count", "desc")
    .orderBy("accounts.id", "asc")
    .limit(search.limit)
    .offset(search.offset)
    .execute();
  return rows.map((row) => row.id);
}

export interface TagRow {
  readonly id: string;
  readonly name: string;
  readonly displayName: string;
  readonly lastStatusAt: string | null;
}

/** Usable hashtags whose name starts with the query, the exact name first, then the most recently used. */
export async function searchTags(
  db: Kysely<Database>,
  search: { readonly name: string; readonly reviewedOnly: boolean; readonly limit: number; readonly offset: number },
): Promise<TagRow[]> {
  if (search.name.length === 0) return [];
  let query = db
    .selectFrom("tags")
    .select(["id", "name", "display_name", "last_status_at"])
    .where(sql<SqlBool>`usable = ${sql.lit(true)}`)
    .where(startsWith("name", search.name));
  if (search.reviewedOnly) query = query.where(sql<SqlBool>`listable = ${sql.lit(true)}`);
  const rows = await query
    .orderBy(sql`case when name = ${search.name} then 0 else 1 end`)
    .orderBy(sql`case when last_status_at is null then 1 else 0 end`)
    .orderBy("last_status_at", "desc")
    .orderBy("name", "asc")
    .limit(search.limit)
    .offset(search.offset)
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, displayName: row.display_name, lastStatusAt: row.last_status_at }));
}
