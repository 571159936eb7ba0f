/**
 * The example module (examples/module-guestbook) on both engines: its
 * migrations render and run on SQLite and PostgreSQL, its store's queries
 * answer on each, and a database keeps working when the module is left out
 * after it ran, and again when it comes back.
 */
import { defaultModules } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type GuestbookEntryEntity, guestbookModule } from "../../examples/module-guestbook/src/index.js";
import { type EngineDatabase, describeOnEngines } from "../support/engines.js";

describeOnEngines("the example guestbook module", (engine) => {
  let database: EngineDatabase;
  const withGuestbook = () => database.testKith({ modules: [...defaultModules, guestbookModule()] });

  beforeAll(async () => {
    database = await engine.database();
  });
  afterAll(() => database.drop());

  /** Signs `owner`'s guestbook as `author`, and reads it back. */
  async function signAndRead(kith: TestKith, author: TestUser, owner: TestUser, text: string): Promise<GuestbookEntryEntity[]> {
    const signed = await kith.request("POST", `/api/v1/accounts/${owner.account.id}/guestbook`, { token: author.token, json: { text } });
    expect(signed.status).toBe(200);
    const read = await kith.request("GET", `/api/v1/accounts/${owner.account.id}/guestbook`);
    expect(read.status).toBe(200);
    return (await read.json()) as GuestbookEntryEntity[];
  }

  it("creates its table, and signs and pages entries", async () => {
    const kith = await withGuestbook();
    try {
      expect((await kith.storage.describeSchema()).tables.map((table) => table.name)).toContain("guestbook_entries");
      const alice = await kith.createUser("alice");
      const bob = await kith.createUser("bob");
      await signAndRead(kith, bob, alice, "first");
      const entries = await signAndRead(kith, bob, alice, "second");
      expect(entries.map((entry) => entry.text)).toEqual(["second", "first"]);
      const older = await kith.request("GET", `/api/v1/accounts/${alice.account.id}/guestbook?max_id=${entries[0]?.id}`);
      expect(((await older.json()) as GuestbookEntryEntity[]).map((entry) => entry.text)).toEqual(["first"]);
    } finally {
      await kith.close();
    }
  });

  it("starts without the module once it has run, keeping its table, and finds its rows when it comes back", async () => {
    const without = await database.testKith();
    try {
      const alice = await without.createUser("alice2");
      expect((await without.request("GET", `/api/v1/accounts/${alice.account.id}/guestbook`)).status).toBe(404);
      expect((await without.storage.describeSchema()).tables.map((table) => table.name)).toContain("guestbook_entries");
      expect((await without.request("GET", `/api/v1/accounts/${alice.account.id}`)).status).toBe(200);
    } finally {
      await without.close();
    }
    const back = await withGuestbook();
    try {
      const accounts = await back.request("GET", "/api/v1/accounts/lookup?acct=alice");
      const alice = (await accounts.json()) as { id: string };
      const read = await back.request("GET", `/api/v1/accounts/${alice.id}/guestbook`);
      expect(((await read.json()) as GuestbookEntryEntity[]).map((entry) => entry.text)).toEqual(["second", "first"]);
    } finally {
      await back.close();
    }
  });
});
