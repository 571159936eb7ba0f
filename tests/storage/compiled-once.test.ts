import type { TestKith } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledOnce } from "../../packages/core/src/storage/compiled-once.js";
import { sqliteTestKith } from "../support/test-kith.js";

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
    kith = await sqliteTestKith();
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

  it("keeps its shapes per database handle", async () => {
    const before = builds;
    await kith.storage.db.transaction().execute(async (trx) => {
      expect((await accountsNamed(trx, { ids: [id("co_a")], except: "nobody" })).map((row) => row.username)).toEqual(["co_a"]);
    });
    expect(builds).toBe(before + 1);
  });
});
