import type { Storage } from "@kith/core";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadHomeFeedPage } from "../../packages/core/src/modules/timelines/home-feed-store.js";
import {
  type RecordingStorage,
  planChoices,
  planOfSent,
  recordingStorage,
  seedReaderFollowing,
  wholeTableWork,
} from "../support/postgres-plans.js";
import { describeIfPostgres } from "../support/real-servers.js";

/**
 * How PostgreSQL runs a home page: one statement reads the page of the feed,
 * each entry's post when the reader may see it, the post a boost boosts, and
 * the reader's marks (modules/statuses/visible-statuses-store.ts). It must probe
 * indexes once per entry, and, prepared, run on its generic plan: with its
 * limit bound as a value, the planner judged that plan dearer than a plan
 * made for each run's values, and planned every run anew (4 ms, against
 * 0.6 ms to run it).
 */
const AUTHORS = 400;
const POSTS_PER_AUTHOR = 5;
const READER = "reader";
const HOME_PAGE = 'with "page"("id") as (select "home_feed"."status_id"';

describeIfPostgres("a home page on PostgreSQL", () => {
  let recording: RecordingStorage;
  let storage: Storage;

  beforeAll(async () => {
    // One connection: the statement is prepared on it, and pg_prepared_statements shows that connection's.
    recording = await recordingStorage(1);
    storage = recording.storage;
    const now = "2026-11-01T00:00:00.000Z";
    await seedReaderFollowing(storage.db, READER, AUTHORS, now);
    // Every fifth post is for followers only, and every seventh a boost of the post before it.
    await sql`insert into statuses (id, account_id, visibility, reblog_of_id, created_at, updated_at)
      select 's' || lpad(n::text, 6, '0'), 'a' || (n % ${AUTHORS} + 1), case when n % 5 = 0 then 'private' else 'public' end,
        case when n % 7 = 0 then 's' || lpad((n - 1)::text, 6, '0') end, ${now}, ${now}
      from generate_series(1, ${AUTHORS * POSTS_PER_AUTHOR}) n`.execute(storage.db);
    await sql`insert into home_feed (account_id, status_id, author_id, reblog_of_id, created_at)
      select ${READER}, id, account_id, reblog_of_id, created_at from statuses`.execute(storage.db);
    // The reader favourited a tenth of the posts; the authors many more (an index beats a scan only on a large table).
    await sql`insert into favourites (id, account_id, status_id, created_at)
      select 'fav' || id, ${READER}, id, ${now} from statuses where id like '%3'`.execute(storage.db);
    await sql`insert into favourites (id, account_id, status_id, created_at)
      select 'fav' || a.id || s.id, a.id, s.id, ${now} from accounts a, statuses s where a.id <> ${READER} and s.id like '%0'`.execute(
      storage.db,
    );
    await sql`analyze`.execute(storage.db);
  });

  afterAll(() => recording?.close());

  const readPage = () => loadHomeFeedPage(storage.db, READER, { limit: 40 });

  it("reads a page with index probes for each entry, joining and hashing no whole table", async () => {
    const page = await readPage();
    expect(page.ids).toHaveLength(40);
    expect(page.ids[0]).toBe(`s${String(AUTHORS * POSTS_PER_AUTHOR).padStart(6, "0")}`);
    expect(page.posts.filter((post) => post.boosted !== null).length).toBeGreaterThan(0);
    expect(page.posts.filter((post) => post.marks?.favourited).length).toBeGreaterThan(0);

    const plan = await planOfSent(recording.pool, recording.sent, HOME_PAGE);
    expect(
      wholeTableWork(plan, { nodeTypes: /Hash|Merge|Sort|Materialize/, tables: /^(accounts|follows|statuses|home_feed|favourites)$/ }),
      JSON.stringify(plan, null, 1),
    ).toEqual([]);
  });

  // PostgreSQL plans the first five runs for their values, then keeps the generic plan if it costs no more.
  it("runs the prepared statement on its generic plan, not planning each run anew", async () => {
    for (let run = 0; run < 12; run++) expect((await readPage()).ids).toHaveLength(40);
    const choices = await planChoices(storage.db, HOME_PAGE);
    expect(choices.generic).toBeGreaterThan(0);
    expect(choices.custom).toBeLessThanOrEqual(5);
  });
});
