import { type Storage, coreMigrations } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type PlanNode, nodesOf, planOf, seedReaderFollowing, wholeTableWork } from "../support/postgres-plans.js";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";
import { visibleTo } from "../../packages/core/src/modules/statuses/visibility-store.js";

/**
 * How PostgreSQL runs the visibility check of a page of posts. Left to itself,
 * its planner joined the whole accounts table to check the page's authors, and
 * hashed every account a reader follows to check a few followers-only posts:
 * for a reader of 995 accounts that was most of a home page's database time.
 * Fenced (storage/exists-fence.ts), each check probes an index once per post.
 */
const AUTHORS = 400;
const POSTS_PER_AUTHOR = 5;
const READER = "reader";

describeIfPostgres("visibility checks on PostgreSQL", () => {
  let database: FreshPostgresDatabase;
  let storage: Storage;
  let page: string[];

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    storage = createPostgresStorage({ connectionString: database.url, max: 2 });
    await storage.migrate(coreMigrations);
    const now = "2026-11-01T00:00:00.000Z";
    await seedReaderFollowing(storage.db, READER, AUTHORS, now);
    // Every fifth post is for followers only: the page needs the follows check, as a reader's home page does.
    await sql`insert into statuses (id, account_id, visibility, created_at, updated_at)
      select 's' || lpad(n::text, 6, '0'), 'a' || (n % ${AUTHORS} + 1), case when n % 5 = 0 then 'private' else 'public' end, ${now}, ${now}
      from generate_series(1, ${AUTHORS * POSTS_PER_AUTHOR}) n`.execute(storage.db);
    await sql`analyze`.execute(storage.db);
    const rows = await storage.db.selectFrom("statuses").select("id").orderBy("id", "desc").limit(40).execute();
    page = rows.map((row) => row.id);
  });

  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  async function pagePlan(viewerId: string | null): Promise<PlanNode> {
    const query = storage.db
      .selectFrom("statuses")
      .select("statuses.id")
      .where("statuses.id", "in", page)
      .where(visibleTo(viewerId, "statuses", storage.db));
    const compiled = query.compile();
    const explained = await storage.db.executeQuery<{ "QUERY PLAN": unknown }>({
      ...compiled,
      sql: `explain (format json) ${compiled.sql}`,
    });
    return planOf(explained.rows[0]?.["QUERY PLAN"]);
  }

  it.each([
    ["a reader", READER],
    ["a guest", null],
  ])("checks each post of a page with index probes for %s, joining and hashing no whole table", async (_who, viewerId) => {
    const plan = await pagePlan(viewerId);
    const nodes = nodesOf(plan);
    const described = JSON.stringify(plan, null, 1);
    // blocks and mentions are empty here, and an empty table is scanned whatever the query.
    expect(wholeTableWork(plan, { nodeTypes: /Join|Hash|Nested Loop/, tables: /^(accounts|follows|statuses)$/ }), described).toEqual([]);
    // The page's posts are found by their key, and the author of each is probed by its key.
    expect(
      nodes.some((node) => node["Relation Name"] === "accounts" && /Index/.test(node["Node Type"])),
      described,
    ).toBe(true);
    if (viewerId !== null)
      expect(
        nodes.some((node) => node["Relation Name"] === "follows" && /Index/.test(node["Node Type"])),
        described,
      ).toBe(true);
  });

  it("shows the reader the same posts as without the fence", async () => {
    const fenced = await storage.db
      .selectFrom("statuses")
      .select("statuses.id")
      .where("statuses.id", "in", page)
      .where(visibleTo(READER, "statuses", storage.db))
      .execute();
    const plain = await storage.db
      .selectFrom("statuses")
      .select("statuses.id")
      .where("statuses.id", "in", page)
      .where(visibleTo(READER))
      .execute();
    expect(fenced.map((row) => row.id).sort()).toEqual(plain.map((row) => row.id).sort());
    expect(fenced).toHaveLength(40);
  });
});
