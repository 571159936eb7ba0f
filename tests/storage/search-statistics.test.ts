/**
 * Status search on PostgreSQL for words in many posts: whether a word is
 * common is read from the statistics ANALYZE keeps of the full-text index's
 * words, without counting its posts through the index, and a window of the
 * newest posts is checked post by post, newest first, instead of through the
 * index, which hands over every post with the word before any is checked.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { searchStatusIds, termsAreCommon } from "../../packages/core/src/modules/search/search-store.js";
import { type PlanNode, type RecordingStorage, nodesOf, planOf, recordingStorage } from "../support/postgres-plans.js";
import { describeIfPostgres } from "../support/real-servers.js";

const NOW = "2026-11-01T00:00:00.000Z";
/** Posts written; every sixth has the common word, one the rare word. */
const POSTS = 12_000;
const WITH_LANTERN = POSTS / 6;

describeIfPostgres("status search for common words on PostgreSQL", () => {
  let recording: RecordingStorage;

  beforeAll(async () => {
    recording = await recordingStorage(2);
    const db = recording.storage.db;
    await sql`insert into accounts (id, username, acct_key, discoverable, created_at, updated_at)
      values ('author', 'author', 'author', true, ${NOW}, ${NOW}), ('reader', 'reader', 'reader', true, ${NOW}, ${NOW})`.execute(db);
    await sql`insert into statuses (id, account_id, text, content, visibility, created_at, updated_at)
      select 'st_' || lpad(n::text, 6, '0'), 'author',
        case when n % 6 = 0 then 'a lantern by the river' when n = 7 then 'one zephyr' else 'words of post ' || n end,
        '', 'public', ${NOW}, ${NOW}
      from generate_series(1, ${POSTS}) n`.execute(db);
    await sql`analyze statuses`.execute(db);
  });
  afterAll(() => recording?.close());

  function countsSince(start: number): number {
    return recording.sent.slice(start).filter((statement) => statement.text.startsWith("select count(*) as n from")).length;
  }

  it("knows a common word from the index's statistics, without counting its posts", async () => {
    const db = recording.storage.db;
    const start = recording.sent.length;
    expect(await termsAreCommon(db, "tsvector", ["lantern"], WITH_LANTERN / 2)).toBe(true);
    expect(await termsAreCommon(db, "tsvector", ["lantern"], WITH_LANTERN * 2)).toBe(false);
    expect(await termsAreCommon(db, "tsvector", ["lantern", "river"], WITH_LANTERN / 2)).toBe(true);
    expect(countsSince(start)).toBe(0);
  });

  it("counts through the index a word the statistics do not hold", async () => {
    const db = recording.storage.db;
    const start = recording.sent.length;
    expect(await termsAreCommon(db, "tsvector", ["zephyr"], 1)).toBe(true);
    expect(await termsAreCommon(db, "tsvector", ["zephyr"], 2)).toBe(false);
    expect(await termsAreCommon(db, "tsvector", ["lantern", "nowhere"], 1)).toBe(false);
    expect(countsSince(start)).toBe(3);
  });

  it("checks a window's posts newest first, one by one, and finds what the index finds", async () => {
    const db = recording.storage.db;
    const search = { viewerId: "reader", terms: ["lantern"], limit: 20, offset: 0, now: NOW };
    const oneQuery = { commonTermsStatuses: Number.MAX_SAFE_INTEGER, windowStatuses: 1, growth: 1, maxWindows: 0 };
    const expected = await searchStatusIds(db, "tsvector", search, oneQuery);
    expect(expected).toHaveLength(20);
    expect(expected[0]).toBe(`st_${String(POSTS).padStart(6, "0")}`);

    const start = recording.sent.length;
    const windows = { commonTermsStatuses: 100, windowStatuses: 500, growth: 1, maxWindows: 8 };
    expect(await searchStatusIds(db, "tsvector", search, windows)).toEqual(expected);
    // A window's edge and its matches are one statement, the matches bounded by the edge it reads.
    const windowSearch = recording.sent.slice(start).findLast((statement) => statement.text.includes("window_edge"));
    if (!windowSearch) throw new Error("no window was searched");
    const { rows } = await recording.pool.query<{ "QUERY PLAN": unknown }>({
      text: `explain (format json) ${windowSearch.text}`,
      values: [...(windowSearch.values ?? [])],
    });
    const nodes = nodesOf(planOf(rows[0]?.["QUERY PLAN"]));
    expect(nodes.filter((node) => node["Index Name"] === "statuses_search_idx")).toEqual([]);
    const walk = nodes.find((node) => node["Relation Name"] === "statuses" && node["Index Name"] === "statuses_pkey");
    expect(walk && (walk as PlanNode & { "Scan Direction"?: string })["Scan Direction"]).toBe("Backward");
  });
});
