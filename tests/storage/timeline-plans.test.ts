import type { Storage } from "@kith/core";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadPublicTimelinePage, loadTagTimelinePage } from "../../packages/core/src/modules/timelines/timelines-store.js";
import { type PlanNode, type RecordingStorage, nodesOf, planOfSent, recordingStorage } from "../support/postgres-plans.js";
import { describeIfPostgres } from "../support/real-servers.js";

/**
 * How PostgreSQL runs the public and hashtag pages, as the stores send
 * them: each one statement, the page of ids and what rendering its posts
 * needs first (visible-posts.ts). Written as joins, the hashtag page hashed
 * every post of the database to find 40 (the viewer's hidden-account
 * conditions made the planner expect a twentieth of the posts to pass), and
 * the public page at times read every account for each post. With each
 * post's checks in a fenced `exists` (storage/exists-fence.ts), both walk an
 * index newest first and stop, and the page's posts are then probed by key.
 */
const AUTHORS = 1_000;
const POSTS = 20_000;
/** Every eightieth post has the tag: 250 of them, as in the benchmark's small dataset. */
const TAG_EVERY = 80;
const VIEWER = "a1";

describeIfPostgres("public and hashtag pages on PostgreSQL", () => {
  let recording: RecordingStorage;
  let storage: Storage;

  beforeAll(async () => {
    // Every statement the adapter sends is kept, to be explained with the same values.
    recording = await recordingStorage(2);
    storage = recording.storage;
    const now = "2026-11-01T00:00:00.000Z";
    await sql`insert into accounts (id, username, acct_key, created_at, updated_at)
      select 'a' || n, 'a' || n, 'a' || n, ${now}, ${now} from generate_series(1, ${AUTHORS}) n`.execute(storage.db);
    await sql`insert into statuses (id, account_id, visibility, created_at, updated_at)
      select 's' || lpad(n::text, 6, '0'), 'a' || (n % ${AUTHORS} + 1), 'public', ${now}, ${now}
      from generate_series(1, ${POSTS}) n`.execute(storage.db);
    await sql`insert into tags (id, name, display_name, created_at, updated_at) values ('t1', 'gardening', 'gardening', ${now}, ${now})`.execute(
      storage.db,
    );
    await sql`insert into status_tags (tag_id, status_id)
      select 't1', 's' || lpad(n::text, 6, '0') from generate_series(${TAG_EVERY}::int, ${POSTS}::int, ${TAG_EVERY}::int) n`.execute(
      storage.db,
    );
    await sql`analyze`.execute(storage.db);
  });

  afterAll(() => recording?.close());

  const planOfSentStatement = (start: string): Promise<PlanNode> => planOfSent(recording.pool, recording.sent, start);

  /**
   * The statement's page of ids (its one `Limit`) walks `index` and stops, and the rest of the statement joins, hashes,
   * sorts and scans nothing whole: the page's posts are probed by key (the viewer's few blocks and mutes are hashed
   * once, as before).
   */
  function expectWalk(statement: PlanNode, index: RegExp): void {
    expect(
      nodesOf(statement).filter(
        (node) =>
          /Hash|Merge|Sort|Materialize/.test(node["Node Type"]) ||
          (node["Node Type"] === "Seq Scan" && /^(accounts|statuses|status_tags)$/.test(node["Relation Name"] ?? "")),
      ),
      JSON.stringify(statement, null, 1),
    ).toEqual([]);
    const limits = nodesOf(statement).filter((node) => node["Node Type"] === "Limit");
    expect(limits, JSON.stringify(statement, null, 1)).toHaveLength(1);
    const plan = limits[0] as PlanNode;
    const nodes = nodesOf(plan);
    const described = JSON.stringify(plan, null, 1);
    // A join is allowed only inside a check of one post (the viewer's hidden domains); none over the page's rows.
    expect(
      nodes.filter(
        (node) =>
          /Hash|Sort|Merge|Materialize/.test(node["Node Type"]) ||
          (/Join|Nested Loop/.test(node["Node Type"]) && node["Parent Relationship"] !== "SubPlan"),
      ),
      described,
    ).toEqual([]);
    expect(
      nodes.filter((node) => node["Node Type"] === "Seq Scan" && /^(accounts|statuses|status_tags)$/.test(node["Relation Name"] ?? "")),
      described,
    ).toEqual([]);
    expect(
      nodes.some((node) => index.test(node["Index Name"] ?? "")),
      described,
    ).toBe(true);
  }

  it("walks a hashtag's posts newest first by the tag's index, probing each post and its author", async () => {
    const page = await loadTagTimelinePage(
      storage.db,
      { accountId: VIEWER, now: "2026-11-27T00:00:00.000Z" },
      { tag: "gardening" },
      { limit: 40 },
    );
    expect(page.ids).toHaveLength(40);
    expect(page.ids[0]).toBe(`s${String(POSTS).padStart(6, "0")}`);
    expect(page.posts).toHaveLength(40);
    expectWalk(await planOfSentStatement('with "page"("id") as (select "status_tags"."status_id"'), /^status_tags_/);
  });

  it("walks the public posts newest first, probing each post's author", async () => {
    const page = await loadPublicTimelinePage(storage.db, { accountId: VIEWER, now: "2026-11-27T00:00:00.000Z" }, {}, { limit: 40 });
    expect(page.ids).toHaveLength(40);
    expect(page.posts).toHaveLength(40);
    expectWalk(await planOfSentStatement('with "page"("id") as (select "statuses"."id" from "statuses"'), /^statuses_/);
  });
});
