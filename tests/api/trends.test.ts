import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

/** Rankings are cached for five minutes per process; tests that change activity move past that. */
const RANKING_TTL_MS = 5 * 60_000;

interface Tag {
  name: string;
  history: { uses: string; accounts: string }[];
}

describeOnEngines("trends", (engine) => {
  let kith: TestKith;
  const users: TestUser[] = [];

  async function post(user: TestUser, status: string, visibility = "public"): Promise<string> {
    const response = await kith.request("POST", "/api/v1/statuses", { token: user.token, json: { status, visibility } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  }

  beforeAll(async () => {
    kith = await engine.testKith();
    for (const name of ["trenda", "trendb", "trendc", "trendd"]) users.push(await kith.createUser(name));
    await kith.storage.db.updateTable("accounts").set({ discoverable: true }).execute();
  });
  afterAll(() => kith.close());

  it("ranks tags by the accounts using them lately, with history; older use counts less", async () => {
    const [a, b, c, d] = users as [TestUser, TestUser, TestUser, TestUser];
    await post(a, "#oldnews");
    await post(b, "#oldnews");
    await post(c, "#oldnews");
    kith.clock.advance(3 * 86_400_000);
    await post(a, "#fresh");
    await post(b, "#fresh");
    await post(c, "#quiet");
    await post(d, "#hidden", "private");
    const response = await kith.request("GET", "/api/v1/trends/tags");
    expect(response.status).toBe(200);
    const tags = (await response.json()) as Tag[];
    expect(tags.map((t) => t.name)).toEqual(["fresh", "quiet", "oldnews"]);
    expect(tags[0]?.history[0]).toMatchObject({ uses: "2", accounts: "2" });
    expect(tags[2]?.history[3]).toMatchObject({ uses: "3", accounts: "3" });
    const legacy = (await (await kith.request("GET", "/api/v1/trends")).json()) as Tag[];
    expect(legacy.map((t) => t.name)).toEqual(["fresh", "quiet", "oldnews"]);

    const page = await kith.request("GET", "/api/v1/trends/tags?limit=2");
    expect(((await page.json()) as Tag[]).map((t) => t.name)).toEqual(["fresh", "quiet"]);
    expect(page.headers.get("link")).toContain("offset=2");
    expect(((await (await kith.request("GET", "/api/v1/trends/tags?limit=2&offset=2")).json()) as Tag[]).map((t) => t.name)).toEqual([
      "oldnews",
    ]);

    kith.clock.advance(8 * 86_400_000);
    expect(await (await kith.request("GET", "/api/v1/trends/tags")).json()).toEqual([]);
  });

  it("ranks public posts by favourites and boosts, leaving out private posts, hidden authors and filtered posts", async () => {
    const [a, b, c, d] = users as [TestUser, TestUser, TestUser, TestUser];
    const popular = await post(a, "popular post");
    const liked = await post(b, "liked post");
    const secret = await post(a, "private post", "private");
    const ignored = await post(c, "nobody cares");
    for (const fan of [b, c, d]) await kith.request("POST", `/api/v1/statuses/${popular}/reblog`, { token: fan.token });
    await kith.request("POST", `/api/v1/statuses/${liked}/favourite`, { token: c.token });
    await kith.request("POST", `/api/v1/statuses/${secret}/favourite`, { token: a.token });
    const trending = (await (await kith.request("GET", "/api/v1/trends/statuses")).json()) as { id: string }[];
    expect(trending.map((s) => s.id)).toEqual([popular, liked]);
    expect(trending.map((s) => s.id)).not.toContain(ignored);

    await kith.storage.db
      .insertInto("mutes")
      .values({
        id: kith.ids.next("mute"),
        account_id: d.account.id,
        target_account_id: a.account.id,
        created_at: kith.clock.now().toISOString(),
        updated_at: kith.clock.now().toISOString(),
      })
      .execute();
    const forD = (await (await kith.request("GET", "/api/v1/trends/statuses", { token: d.token })).json()) as { id: string }[];
    expect(forD.map((s) => s.id)).toEqual([liked]);
    await kith.request("POST", "/api/v2/filters", {
      token: c.token,
      json: { title: "no likes", context: ["public"], filter_action: "hide", keywords_attributes: [{ keyword: "liked" }] },
    });
    const forC = (await (await kith.request("GET", "/api/v1/trends/statuses", { token: c.token })).json()) as { id: string }[];
    expect(forC.map((s) => s.id)).toEqual([popular]);

    await kith.storage.db.updateTable("accounts").set({ discoverable: false }).where("id", "=", a.account.id).execute();
    // The ranking is kept for a while: the change shows once it is recomputed.
    expect(((await (await kith.request("GET", "/api/v1/trends/statuses")).json()) as { id: string }[]).map((s) => s.id)).toEqual([
      popular,
      liked,
    ]);
    kith.clock.advance(RANKING_TTL_MS);
    expect(((await (await kith.request("GET", "/api/v1/trends/statuses")).json()) as { id: string }[]).map((s) => s.id)).toEqual([liked]);
  });

  it("answers links with an empty list while no status links a page, and refuses bad paging", async () => {
    const links = await kith.request("GET", "/api/v1/trends/links");
    expect(links.status).toBe(200);
    expect(await links.json()).toEqual([]);
    expect((await kith.request("GET", "/api/v1/trends/tags?offset=-1")).status).toBe(422);
    expect((await kith.request("GET", "/api/v1/trends/statuses?limit=abc")).status).toBe(400);
  });
});
