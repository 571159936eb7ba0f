/**
 * The profile directory: only accounts that asked to be discoverable, none
 * suspended, local and remote, by activity or by age, paged by offset.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call } from "../support/groups.js";
import { remoteAccount } from "./relationships-support.js";

describeOnEngines("profile directory", (engine) => {
  let kith: TestKith;
  let listed: TestUser;
  let quiet: TestUser;
  let hidden: TestUser;
  let suspended: TestUser;
  let remoteId: string;

  const discoverable = async (user: TestUser, value: boolean) => {
    expect((await call(kith, "PATCH", "/api/v1/accounts/update_credentials", user.token, { discoverable: value })).status).toBe(200);
  };
  const ids = (body: { id: string }[]) => body.map((account) => account.id);

  beforeAll(async () => {
    kith = await engine.testKith();
    quiet = await kith.createUser("dir_quiet");
    kith.clock.advance(1_000);
    listed = await kith.createUser("dir_listed");
    kith.clock.advance(1_000);
    hidden = await kith.createUser("dir_hidden");
    suspended = await kith.createUser("dir_suspended");
    for (const user of [listed, quiet, suspended]) await discoverable(user, true);
    await discoverable(hidden, false);
    expect((await call(kith, "POST", "/api/v1/statuses", listed.token, { status: "hello" })).status).toBe(200);
    remoteId = await remoteAccount(kith, "faraway", "remote.test");
    await kith.storage.db
      .updateTable("accounts")
      .set({ suspended_at: kith.clock.now().toISOString() })
      .where("id", "=", suspended.account.id)
      .execute();
  });
  afterAll(() => kith.close());

  it("lists discoverable accounts only, the one that posted last first", async () => {
    const page = await call(kith, "GET", "/api/v1/directory");
    expect(page.status).toBe(200);
    const listedIds = ids(page.body);
    expect(listedIds[0]).toBe(listed.account.id);
    expect(listedIds).toContain(quiet.account.id);
    expect(listedIds).toContain(remoteId);
    expect(listedIds).not.toContain(hidden.account.id);
    expect(listedIds).not.toContain(suspended.account.id);
  });

  it("`local` leaves remote accounts out; `order=new` lists the newest accounts first", async () => {
    const local = ids((await call(kith, "GET", "/api/v1/directory?local=true")).body);
    expect(local).not.toContain(remoteId);
    expect(local).toContain(quiet.account.id);
    const newest = ids((await call(kith, "GET", "/api/v1/directory?order=new&local=true")).body);
    expect(newest.indexOf(listed.account.id)).toBeLessThan(newest.indexOf(quiet.account.id));
  });

  it("pages with offset and limit", async () => {
    const all = ids((await call(kith, "GET", "/api/v1/directory?order=new")).body);
    const second = ids((await call(kith, "GET", "/api/v1/directory?order=new&offset=1&limit=1")).body);
    expect(second).toEqual([all[1]]);
  });

  it("leaves out accounts the viewer blocks", async () => {
    const viewer = await kith.createUser("dir_viewer");
    await call(kith, "POST", `/api/v1/accounts/${quiet.account.id}/block`, viewer.token);
    expect(ids((await call(kith, "GET", "/api/v1/directory", viewer.token)).body)).not.toContain(quiet.account.id);
  });

  it("refuses a bad order or offset with 422, and a limit or local of the wrong type with 400", async () => {
    const cases: [string, number][] = [
      ["order=oldest", 422],
      ["offset=-1", 422],
      ["local=maybe", 400],
      ["limit=abc", 400],
    ];
    for (const [query, status] of cases) {
      const refused = await call(kith, "GET", `/api/v1/directory?${query}`);
      expect([query, refused.status]).toEqual([query, status]);
      expect(refused.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
  });
});
