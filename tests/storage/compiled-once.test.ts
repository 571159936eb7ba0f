import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledOnce } from "../../packages/core/src/platform/storage/compiled-once.js";
import { sqlite } from "../support/engines.js";

/** A statement built once per shape must run with each call's own values, never the first call's. */
describe("statements compiled once", () => {
  let kith: TestKith;
  const names = new Map<string, string>();
  let builds = 0;
  const accountsNamed = compiledOnce((db, args: { ids: readonly string[]; except: string }) => {
    builds++;
    return db
      .selectFrom("accounts")
      .select(["id", "username"])
      .where("id", "in", args.ids)
      .where("id", "!=", args.except)
      .where("domain", "is", null)
      .orderBy("username");
  });

  beforeAll(async () => {
    kith = await sqlite.testKith();
    for (const name of ["co_a", "co_b", "co_c"]) names.set(name, (await kith.createUser(name)).account.id);
  });
  afterAll(() => kith.close());

  const id = (name: string) => names.get(name) ?? "";
  const usernames = async (ids: readonly string[], except: string) =>
    (await accountsNamed(kith.storage.db, { ids, except })).map((row) => row.username);

  it("puts each call's values in place, per list length", async () => {
    expect(await usernames([id("co_a"), id("co_b")], id("co_a"))).toEqual(["co_b"]);
    expect(await usernames([id("co_b"), id("co_c")], id("co_c"))).toEqual(["co_b"]);
    expect(await usernames([id("co_a"), id("co_c")], "nobody")).toEqual(["co_a", "co_c"]);
    expect(builds).toBe(1);
    expect(await usernames([id("co_a"), id("co_b"), id("co_c")], id("co_b"))).toEqual(["co_a", "co_c"]);
    expect(await usernames([id("co_c")], "nobody")).toEqual(["co_c"]);
    expect(builds).toBe(3);
  });

  it("compiles numbers and absent values into the shape", async () => {
    const page = compiledOnce((db, args: { limit: number; after: string | undefined }) => {
      let query = db
        .selectFrom("accounts")
        .select("username")
        .where("username", "in", ["co_a", "co_b", "co_c"])
        .orderBy("username")
        .limit(args.limit);
      if (args.after !== undefined) query = query.where("username", ">", args.after);
      return query;
    });
    const names = async (args: { limit: number; after: string | undefined }) =>
      (await page(kith.storage.db, args)).map((row) => row.username);
    expect(await names({ limit: 2, after: undefined })).toEqual(["co_a", "co_b"]);
    expect(await names({ limit: 1, after: undefined })).toEqual(["co_a"]);
    expect(await names({ limit: 2, after: "co_a" })).toEqual(["co_b", "co_c"]);
    expect(await names({ limit: 2, after: "co_b" })).toEqual(["co_c"]);
  });

  it("compiles null into the shape, apart from a value in its place", async () => {
    let nullBuilds = 0;
    const byDomain = compiledOnce((db, args: { domain: string | null }) => {
      nullBuilds++;
      const query = db.selectFrom("accounts").select("username").where("username", "in", ["co_a", "co_b"]).orderBy("username");
      return args.domain === null ? query.where("domain", "is", null) : query.where("domain", "=", args.domain);
    });
    const names = async (domain: string | null) => (await byDomain(kith.storage.db, { domain })).map((row) => row.username);
    expect(await names(null)).toEqual(["co_a", "co_b"]);
    expect(await names("remote.example")).toEqual([]);
    expect(await names(null)).toEqual(["co_a", "co_b"]);
    expect(nullBuilds).toBe(2);
  });

  it("shares its shapes with a transaction of the same database, and keeps them apart for other plugins", async () => {
    const before = builds;
    await kith.storage.db.transaction().execute(async (trx) => {
      expect((await accountsNamed(trx, { ids: [id("co_a")], except: "nobody" })).map((row) => row.username)).toEqual(["co_a"]);
    });
    expect(builds).toBe(before);
    // A plugin may rewrite what a handle compiles: its handles (and their transactions) get shapes of their own.
    const seen: string[] = [];
    const plugged = kith.storage.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        seen.push(String(args.result.rows.length));
        return args.result;
      },
    });
    expect((await accountsNamed(plugged, { ids: [id("co_b")], except: "nobody" })).map((row) => row.username)).toEqual(["co_b"]);
    expect(builds).toBe(before + 1);
    await plugged.transaction().execute(async (trx) => {
      expect((await accountsNamed(trx, { ids: [id("co_c")], except: "nobody" })).map((row) => row.username)).toEqual(["co_c"]);
    });
    expect(builds).toBe(before + 1);
    expect(seen).toEqual(["1", "1"]);
  });
});
