/**
 * `statuses.version` is raised by the database on every update that names a
 * column of a post but its counters (migration 0020), so a renderer that kept
 * a row may trust it while the version is the same (kept-status-rows.ts).
 * Every column is tried, so a column added to `statuses` without joining the
 * triggers fails here.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeFeedsOnEngines } from "../api/timelines-engines.js";

const COUNTERS = ["replies_count", "reblogs_count", "favourites_count"];
const UNVERSIONED = new Set(["id", "version", ...COUNTERS]);

describeFeedsOnEngines("the version of a post", (makeKith) => {
  let kith: TestKith;
  let alice: TestUser;
  let statusId: string;

  beforeAll(async () => {
    kith = await makeKith();
    alice = await kith.createUser("ver_alice");
    const response = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "Versioned" } });
    expect(response.status).toBe(200);
    statusId = String(((await response.json()) as { id: string }).id);
  });
  afterAll(() => kith.close());

  async function version(): Promise<number> {
    const row = await kith.storage.db.selectFrom("statuses").select("version").where("id", "=", statusId).executeTakeFirstOrThrow();
    return Number(row.version);
  }

  /** Updates one column to the value it has: the triggers go by the columns an update names, not by what changed. */
  async function touch(column: string): Promise<void> {
    await sql`UPDATE statuses SET ${sql.ref(column)} = ${sql.ref(column)} WHERE id = ${statusId}`.execute(kith.storage.db);
  }

  it("starts at 0 and stays while only the counters are written", async () => {
    expect(await version()).toBe(0);
    for (const counter of COUNTERS) await touch(counter);
    await kith.storage.db.updateTable("statuses").set({ favourites_count: 5 }).where("id", "=", statusId).execute();
    const favourited = await kith.request("POST", `/api/v1/statuses/${statusId}/favourite`, { token: alice.token });
    expect(favourited.status).toBe(200);
    expect(await version()).toBe(0);
  });

  it("rises by one with each update of any other column, and with each edit", async () => {
    const statuses = (await kith.storage.describeSchema()).tables.find((table) => table.name === "statuses");
    const columns = (statuses?.columns ?? []).map((column) => column.name).filter((name) => !UNVERSIONED.has(name));
    expect(columns).toContain("content");
    let expected = await version();
    for (const column of columns) {
      await touch(column);
      expected++;
      expect(await version(), column).toBe(expected);
    }
    const edited = await kith.request("PUT", `/api/v1/statuses/${statusId}`, { token: alice.token, json: { status: "Edited" } });
    expect(edited.status).toBe(200);
    expect(await version()).toBe(expected + 1);
  });
});
