import { coreMigrations } from "@kith/core";
import type { Storage } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { reachedAccounts } from "../../packages/core/src/modules/notifications/notifications-store.js";
import { nodesOf, planOf } from "../support/postgres-plans.js";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";

/**
 * How PostgreSQL finds the sender when it checks whom a notification reaches (the rules of `reachedAccounts`, run in
 * the statement of every incoming Like). The checks of the sender's domain (a limited domain, a domain the recipient
 * blocks) once read the sender with its domain's condition beside its key, and with statistics that counted no
 * remote account (a server that has just met its first hundred, before autovacuum looks again) the planner walked
 * the domain index over every remote account instead of probing the key: 0.2 ms of each Like on the benchmark's small
 * dataset. The sender is now read by its key alone, fenced.
 */
const LOCALS = 1_000;
const REMOTES = 100;

describeIfPostgres("the sender of a notification, on PostgreSQL", () => {
  let database: FreshPostgresDatabase;
  let storage: Storage;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    storage = createPostgresStorage({ connectionString: database.url, max: 2 });
    await storage.migrate(coreMigrations);
    const now = "2026-11-01T00:00:00.000Z";
    await sql`insert into accounts (id, username, acct_key, created_at, updated_at)
      select 'l' || n, 'l' || n, 'l' || n, ${now}, ${now} from generate_series(1, ${LOCALS}) n`.execute(storage.db);
    await sql`insert into statuses (id, account_id, visibility, created_at, updated_at) values ('s1', 'l1', 'public', ${now}, ${now})`.execute(
      storage.db,
    );
    await sql`analyze`.execute(storage.db);
    // Met after the statistics were taken.
    await sql`insert into accounts (id, username, domain, acct_key, created_at, updated_at)
      select 'r' || n, 'r' || n, 'remote' || n || '.example', 'r' || n || '@remote' || n || '.example', ${now}, ${now}
      from generate_series(1, ${REMOTES}) n`.execute(storage.db);
  });

  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it("reads the sender by its key, not by walking the remote accounts' domains", async () => {
    const query = reachedAccounts(storage.db, { fromId: "r7", conversationOf: "s1", now: "2026-11-02T00:00:00.000Z" }).where(
      "recipient.id",
      "=",
      "l1",
    );
    const compiled = query.compile();
    const explained = await storage.db.executeQuery<{ "QUERY PLAN": unknown }>({
      ...compiled,
      sql: `explain (format json) ${compiled.sql}`,
    });
    const plan = planOf(explained.rows[0]?.["QUERY PLAN"]);
    const described = JSON.stringify(plan, null, 1);
    const accountReads = nodesOf(plan).filter((node) => node["Relation Name"] === "accounts");
    // The recipient and the sender's two reads.
    expect(accountReads.length, described).toBeGreaterThanOrEqual(3);
    expect(
      accountReads.map((node) => node["Index Name"]),
      described,
    ).toEqual(accountReads.map(() => "accounts_pkey"));
  });

  it("still finds whom the notification reaches", async () => {
    const reached = await reachedAccounts(storage.db, { fromId: "r7", conversationOf: "s1", now: "2026-11-02T00:00:00.000Z" })
      .where("recipient.id", "in", ["l1", "l2", "r8"])
      .orderBy("recipient.id")
      .execute();
    expect(reached.map((row) => row.id)).toEqual(["l1", "l2"]);
    await sql`insert into domain_blocks (id, domain, severity, created_at, updated_at) values ('d1', 'remote7.example', 'LIMIT', now(), now())`.execute(
      storage.db,
    );
    try {
      // A limited domain's account reaches only those who follow it, with a notification no policy holds back; with
      // the others, the recipients' policies decide (filtered by default: reached, held as a request).
      await sql`insert into follows (id, account_id, target_account_id, follower_local, created_at, updated_at) values ('f1', 'l2', 'r7', true, now(), now())`.execute(
        storage.db,
      );
      const limited = await reachedAccounts(storage.db, {
        fromId: "r7",
        conversationOf: "s1",
        now: "2026-11-02T00:00:00.000Z",
        unfiltered: true,
      })
        .where("recipient.id", "in", ["l1", "l2"])
        .execute();
      expect(limited.map((row) => row.id)).toEqual(["l2"]);
      const filtered = await reachedAccounts(storage.db, { fromId: "r7", conversationOf: "s1", now: "2026-11-02T00:00:00.000Z" })
        .where("recipient.id", "in", ["l1", "l2"])
        .orderBy("recipient.id")
        .execute();
      expect(filtered.map((row) => row.id)).toEqual(["l1", "l2"]);
    } finally {
      await sql`delete from domain_blocks`.execute(storage.db);
      await sql`delete from follows`.execute(storage.db);
    }
  });
});
