/**
 * `version` on posts and accounts is raised by the database on every update
 * that names a column but the counters (migration 0020), so a renderer that
 * kept a row may trust it while the version is the same (kept-rows.ts). Every
 * column is tried, so a column added to either table without joining the
 * triggers fails here.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

const COUNTERS = {
  statuses: ["replies_count", "reblogs_count", "favourites_count"],
  accounts: ["statuses_count", "followers_count", "following_count", "last_status_at"],
} as const;
type Table = keyof typeof COUNTERS;

describeOnEngines("the version of a post or an account", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let ids: Record<Table, string>;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("ver_alice");
    bob = await kith.createUser("ver_bob");
    const response = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "Versioned" } });
    expect(response.status).toBe(200);
    ids = { statuses: String(((await response.json()) as { id: string }).id), accounts: alice.account.id };
  });
  afterAll(() => kith.close());

  async function version(table: Table): Promise<number> {
    const { rows } = await sql<{ version: number }>`SELECT version FROM ${sql.table(table)} WHERE id = ${ids[table]}`.execute(
      kith.storage.db,
    );
    return Number(rows[0]?.version);
  }

  /** Updates one column to the value it has: the triggers go by the columns an update names, not by what changed. */
  async function touch(table: Table, column: string): Promise<void> {
    await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${sql.ref(column)} WHERE id = ${ids[table]}`.execute(kith.storage.db);
  }

  async function call(user: TestUser, method: string, path: string, json?: unknown): Promise<void> {
    const response = await kith.request(method, path, { token: user.token, ...(json !== undefined && { json }) });
    expect(response.status, `${method} ${path}`).toBe(200);
  }

  it("starts at 0 and stays while only the counters are written", async () => {
    expect([await version("statuses"), await version("accounts")]).toEqual([0, 0]);
    for (const table of ["statuses", "accounts"] as const) for (const counter of COUNTERS[table]) await touch(table, counter);
    await call(bob, "POST", `/api/v1/statuses/${ids.statuses}/favourite`);
    await call(bob, "POST", `/api/v1/statuses/${ids.statuses}/reblog`);
    await call(bob, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    await call(alice, "POST", "/api/v1/statuses", { status: "Another" });
    expect([await version("statuses"), await version("accounts")]).toEqual([0, 0]);
  });

  for (const table of ["statuses", "accounts"] as const) {
    it(`rises by one with each update of any other column of ${table}`, async () => {
      const described = (await kith.storage.describeSchema()).tables.find((t) => t.name === table);
      const unversioned = new Set<string>(["id", "version", ...COUNTERS[table]]);
      const columns = (described?.columns ?? []).map((column) => column.name).filter((name) => !unversioned.has(name));
      expect(columns.length).toBeGreaterThan(15);
      let expected = await version(table);
      for (const column of columns) {
        await touch(table, column);
        expected++;
        expect(await version(table), column).toBe(expected);
      }
    });
  }

  it("rises with an edit of the post and a change of the profile", async () => {
    const [post, account] = [await version("statuses"), await version("accounts")];
    await call(alice, "PUT", `/api/v1/statuses/${ids.statuses}`, { status: "Edited" });
    await call(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice V" });
    expect(await version("statuses")).toBe(post + 1);
    expect(await version("accounts")).toBeGreaterThan(account);
  });
});
