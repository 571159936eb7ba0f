import { defaultModules } from "@kith/core";
import { type TestKith, type TestUser, createTestKith, eventually } from "@kith/core/testing";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GUESTBOOK_PRUNE_QUEUE, type GuestbookEntryEntity, guestbookModule } from "./index.js";

const DAY_MS = 24 * 60 * 60 * 1000;

describe("the guestbook module", () => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  const module = guestbookModule({ retentionDays: 30 });

  beforeAll(async () => {
    kith = await createTestKith({
      storage: () => createSqliteStorage({ filename: ":memory:" }),
      modules: [...defaultModules, module],
    });
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    carol = await kith.createUser("carol");
    await kith.start();
  });
  afterAll(() => kith.close());

  const sign = (author: TestUser, owner: TestUser, text: string) =>
    kith.request("POST", `/api/v1/accounts/${owner.account.id}/guestbook`, { token: author.token, json: { text } });
  const entriesOf = async (owner: TestUser, query = ""): Promise<GuestbookEntryEntity[]> => {
    const response = await kith.request("GET", `/api/v1/accounts/${owner.account.id}/guestbook${query}`);
    expect(response.status).toBe(200);
    return (await response.json()) as GuestbookEntryEntity[];
  };

  it("creates its table with the core's, and lists its routes in the reference", async () => {
    const tables = await kith.storage.describeSchema();
    expect(tables.tables.map((table) => table.name)).toContain("guestbook_entries");
    expect(kith.routes.map((route) => `${route.method} ${route.path}`)).toContain("POST /api/v1/accounts/{id}/guestbook");
    const openapi = await kith.request("GET", "/api/v1/openapi.json");
    expect(openapi.status).toBe(200);
    expect(Object.keys(((await openapi.json()) as { paths: object }).paths)).toContain("/api/v1/accounts/{id}/guestbook");
  });

  it("signs a guestbook and lists its entries newest first, with their authors, paged", async () => {
    const first = await sign(bob, alice, "hello alice");
    expect(first.status).toBe(200);
    const entry = (await first.json()) as GuestbookEntryEntity;
    expect(entry.id).toMatch(/^gb_/);
    expect(entry.account.username).toBe("bob");
    expect((await sign(carol, alice, "  hi from carol  ")).status).toBe(200);

    const entries = await entriesOf(alice);
    expect(entries.map((e) => [e.account.username, e.text])).toEqual([
      ["carol", "hi from carol"],
      ["bob", "hello alice"],
    ]);
    const page = await kith.request("GET", `/api/v1/accounts/${alice.account.id}/guestbook?limit=1`);
    expect(((await page.json()) as GuestbookEntryEntity[]).map((e) => e.text)).toEqual(["hi from carol"]);
    expect(page.headers.get("link")).toContain(`max_id=${entries[0]?.id}`);
    expect((await entriesOf(alice, `?max_id=${entries[0]?.id}`)).map((e) => e.text)).toEqual(["hello alice"]);
  });

  it("refuses bad input with the error body, and unknown accounts with 404", async () => {
    const empty = await sign(bob, alice, "   ");
    expect(empty.status).toBe(422);
    expect(await empty.json()).toMatchObject({ code: "request.validation_failed" });
    expect((await sign(bob, alice, "x".repeat(501))).status).toBe(422);
    const own = await sign(alice, alice, "me");
    expect(own.status).toBe(422);
    expect(await own.json()).toMatchObject({ code: "guestbook.own_guestbook" });
    const unknown = await kith.request("GET", "/api/v1/accounts/us_0000000000000000000000000/guestbook");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "account.not_found" });
  });

  it("asks for a token to sign or delete, and lets only the author or the owner delete", async () => {
    const anonymous = await kith.request("POST", `/api/v1/accounts/${alice.account.id}/guestbook`, { json: { text: "who am I" } });
    expect(anonymous.status).toBe(401);
    const entry = (await (await sign(bob, carol, "for carol")).json()) as GuestbookEntryEntity;
    expect((await kith.request("DELETE", `/api/v1/guestbook/${entry.id}`)).status).toBe(401);

    const stranger = await kith.request("DELETE", `/api/v1/guestbook/${entry.id}`, { token: alice.token });
    expect(stranger.status).toBe(403);
    expect(await stranger.json()).toMatchObject({ code: "guestbook.not_yours" });
    expect((await kith.request("DELETE", `/api/v1/guestbook/${entry.id}`, { token: carol.token })).status).toBe(200);
    const again = await kith.request("DELETE", `/api/v1/guestbook/${entry.id}`, { token: carol.token });
    expect(again.status).toBe(404);
    expect(await again.json()).toMatchObject({ code: "guestbook.entry_not_found" });
  });

  it("removes a blocked account's entries when blocked, and refuses its new ones", async () => {
    expect((await sign(bob, carol, "before the block")).status).toBe(200);
    expect((await kith.request("POST", `/api/v1/accounts/${bob.account.id}/block`, { token: carol.token })).status).toBe(200);
    await eventually(async () => expect(await entriesOf(carol)).toEqual([]));
    const refused = await sign(bob, carol, "after the block");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "guestbook.blocked" });
  });

  it("prunes entries past the retention with its repeating job", async () => {
    expect((await sign(carol, bob, "old news")).status).toBe(200);
    expect(await entriesOf(bob)).toHaveLength(1);
    kith.clock.advance(31 * DAY_MS);
    await eventually(async () => expect(await entriesOf(bob)).toEqual([]));
    expect(await kith.queue.counts(GUESTBOOK_PRUNE_QUEUE)).toMatchObject({ failed: 0, dlq: 0 });
  });

  it("serves nothing of the module to an instance that leaves it out", async () => {
    const plain = await createTestKith({ storage: () => createSqliteStorage({ filename: ":memory:" }) });
    try {
      expect((await plain.request("GET", `/api/v1/accounts/${alice.account.id}/guestbook`)).status).toBe(404);
      expect(() => plain.module(module)).toThrow(/not composed/);
      expect((await plain.storage.describeSchema()).tables.map((table) => table.name)).not.toContain("guestbook_entries");
    } finally {
      await plain.close();
    }
  });
});
