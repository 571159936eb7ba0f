import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

interface Filter {
  id: string;
  title: string;
  context: string[];
  expires_at: string | null;
  filter_action: string;
  keywords: { id: string; keyword: string; whole_word: boolean }[];
  statuses: { id: string; status_id: string }[];
}

/** A post row written directly: these tests are about filters, not about posting. */
async function insertStatus(kith: TestKith, accountId: string, text: string): Promise<string> {
  const id = kith.ids.next("status");
  const now = kith.clock.now().toISOString();
  await kith.storage.db
    .insertInto("statuses")
    .values({ id, account_id: accountId, text, content: `<p>${text}</p>`, created_at: now, updated_at: now })
    .execute();
  return id;
}

interface TestStatus {
  id: string;
  content: string;
  spoiler_text: string;
  reblog: TestStatus | null;
  filtered?: { filter: { title: string }; keyword_matches: string[] | null; status_matches: string[] | null }[];
}

function status(id: string, content: string, extra: Partial<TestStatus> = {}): TestStatus {
  return { id, content, spoiler_text: "", reblog: null, ...extra };
}

describeOnEngines("filters", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("filteralice");
    bob = await kith.createUser("filterbob");
  });
  afterAll(() => kith.close());

  async function create(token: string, json: unknown): Promise<Filter> {
    const response = await kith.request("POST", "/api/v2/filters", { token, json });
    expect(response.status).toBe(200);
    return response.json();
  }

  it("creates, lists, changes and deletes a v2 filter with keywords", async () => {
    const filter = await create(alice.token, {
      title: "Spoilers",
      context: ["home", "public"],
      filter_action: "hide",
      keywords_attributes: [{ keyword: "finale" }, { keyword: "ending", whole_word: false }],
    });
    expect(filter).toMatchObject({ title: "Spoilers", context: ["home", "public"], filter_action: "hide", expires_at: null, statuses: [] });
    expect(filter.keywords.map((k) => [k.keyword, k.whole_word])).toEqual([
      ["finale", true],
      ["ending", false],
    ]);

    const listed = (await (await kith.request("GET", "/api/v2/filters", { token: alice.token })).json()) as Filter[];
    expect(listed.map((f) => f.id)).toContain(filter.id);

    const [finale, ending] = filter.keywords;
    const updated = await kith.request("PUT", `/api/v2/filters/${filter.id}`, {
      token: alice.token,
      json: {
        title: "TV",
        filter_action: "warn",
        keywords_attributes: [{ id: finale?.id, _destroy: true }, { id: ending?.id, keyword: "endings" }, { keyword: "cliffhanger" }],
      },
    });
    expect(updated.status).toBe(200);
    const changed = (await updated.json()) as Filter;
    expect(changed.title).toBe("TV");
    expect(changed.filter_action).toBe("warn");
    expect(changed.keywords.map((k) => k.keyword).sort()).toEqual(["cliffhanger", "endings"]);

    expect((await kith.request("DELETE", `/api/v2/filters/${filter.id}`, { token: alice.token })).status).toBe(200);
    expect((await kith.request("GET", `/api/v2/filters/${filter.id}`, { token: alice.token })).status).toBe(404);
  });

  it("accepts form bodies with Rails-style keys and expires_in", async () => {
    const response = await kith.request("POST", "/api/v2/filters", {
      token: alice.token,
      form: {
        title: "Form",
        "context[]": "notifications",
        expires_in: "3600",
        "keywords_attributes[0][keyword]": "crypto",
        "keywords_attributes[0][whole_word]": "false",
      },
    });
    expect(response.status).toBe(200);
    const filter = (await response.json()) as Filter;
    expect(filter.context).toEqual(["notifications"]);
    expect(filter.keywords).toEqual([expect.objectContaining({ keyword: "crypto", whole_word: false })]);
    expect(Date.parse(filter.expires_at ?? "") - kith.clock.now().getTime()).toBe(3_600_000);
  });

  it("manages keywords and posts on their own paths", async () => {
    const filter = await create(alice.token, { title: "Paths", context: ["thread"] });
    const added = await kith.request("POST", `/api/v2/filters/${filter.id}/keywords`, { token: alice.token, json: { keyword: "  tea " } });
    expect(added.status).toBe(200);
    const keyword = await added.json();
    expect(keyword).toMatchObject({ keyword: "tea", whole_word: true });
    expect(await (await kith.request("GET", `/api/v2/filters/${filter.id}/keywords`, { token: alice.token })).json()).toEqual([keyword]);
    const put = await kith.request("PUT", `/api/v2/filters/keywords/${keyword.id}`, { token: alice.token, json: { whole_word: false } });
    expect(await put.json()).toMatchObject({ id: keyword.id, whole_word: false });
    expect((await kith.request("GET", `/api/v2/filters/keywords/${keyword.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v2/filters/keywords/${keyword.id}`, { token: alice.token })).status).toBe(200);
    expect((await kith.request("GET", `/api/v2/filters/keywords/${keyword.id}`, { token: alice.token })).status).toBe(404);

    const statusId = await insertStatus(kith, bob.account.id, "hello");
    const linked = await kith.request("POST", `/api/v2/filters/${filter.id}/statuses`, {
      token: alice.token,
      json: { status_id: statusId },
    });
    expect(linked.status).toBe(200);
    const filterStatus = await linked.json();
    expect(filterStatus).toMatchObject({ status_id: statusId });
    const again = await kith.request("POST", `/api/v2/filters/${filter.id}/statuses`, {
      token: alice.token,
      json: { status_id: statusId },
    });
    expect(again.status).toBe(422);
    const missing = await kith.request("POST", `/api/v2/filters/${filter.id}/statuses`, {
      token: alice.token,
      json: { status_id: "st_nope" },
    });
    expect(missing.status).toBe(404);
    expect(await (await kith.request("GET", `/api/v2/filters/statuses/${filterStatus.id}`, { token: alice.token })).json()).toEqual(
      filterStatus,
    );
    expect(await (await kith.request("GET", `/api/v2/filters/${filter.id}/statuses`, { token: alice.token })).json()).toEqual([
      filterStatus,
    ]);
    expect((await kith.request("DELETE", `/api/v2/filters/statuses/${filterStatus.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v2/filters/statuses/${filterStatus.id}`, { token: alice.token })).status).toBe(200);
  });

  it("refuses bad input, other people's filters and guests", async () => {
    expect((await kith.request("POST", "/api/v2/filters", { token: alice.token, json: { title: "", context: ["home"] } })).status).toBe(
      422,
    );
    expect((await kith.request("POST", "/api/v2/filters", { token: alice.token, json: { title: "x", context: ["kitchen"] } })).status).toBe(
      422,
    );
    expect((await kith.request("POST", "/api/v2/filters", { token: alice.token, json: { title: "x", context: [] } })).status).toBe(422);
    expect((await kith.request("POST", "/api/v2/filters", { token: alice.token, json: { context: ["home"] } })).status).toBe(400);
    const filter = await create(alice.token, { title: "Mine", context: ["home"] });
    expect((await kith.request("GET", `/api/v2/filters/${filter.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("PUT", `/api/v2/filters/${filter.id}`, { token: bob.token, json: { title: "x" } })).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v2/filters/${filter.id}`, { token: bob.token })).status).toBe(404);
    const foreign = await create(bob.token, { title: "Bob's", context: ["home"], keywords_attributes: [{ keyword: "b" }] });
    const steal = await kith.request("PUT", `/api/v2/filters/${filter.id}`, {
      token: alice.token,
      json: { keywords_attributes: [{ id: foreign.keywords[0]?.id, _destroy: true }] },
    });
    expect(steal.status).toBe(404);
    expect((await kith.request("GET", "/api/v2/filters")).status).toBe(401);
    expect((await kith.request("GET", "/api/v1/filters")).status).toBe(401);
  });

  it("serves v1 filters over the same data", async () => {
    const user = await kith.createUser("filterv1");
    const created = await kith.request("POST", "/api/v1/filters", {
      token: user.token,
      json: { phrase: "politics", context: ["home"], irreversible: true, whole_word: false },
    });
    expect(created.status).toBe(200);
    const v1 = await created.json();
    expect(v1).toMatchObject({ phrase: "politics", context: ["home"], irreversible: true, whole_word: false, expires_at: null });
    const v2 = (await (await kith.request("GET", "/api/v2/filters", { token: user.token })).json()) as Filter[];
    expect(v2).toHaveLength(1);
    expect(v2[0]).toMatchObject({ title: "politics", filter_action: "hide" });
    expect(v2[0]?.keywords[0]?.id).toBe(v1.id);

    const put = await kith.request("PUT", `/api/v1/filters/${v1.id}`, {
      token: user.token,
      json: { phrase: "elections", irreversible: false },
    });
    expect(await put.json()).toMatchObject({ id: v1.id, phrase: "elections", irreversible: false });
    expect(await (await kith.request("GET", "/api/v1/filters", { token: user.token })).json()).toEqual([
      expect.objectContaining({ id: v1.id, phrase: "elections" }),
    ]);
    expect((await kith.request("GET", `/api/v1/filters/${v1.id}`, { token: alice.token })).status).toBe(404);
    expect((await kith.request("POST", "/api/v1/filters", { token: user.token, json: { phrase: "x" } })).status).toBe(400);
    expect((await kith.request("DELETE", `/api/v1/filters/${v1.id}`, { token: user.token })).status).toBe(200);
    expect(await (await kith.request("GET", "/api/v2/filters", { token: user.token })).json()).toEqual([]);
  });

  it("announces changes on the owner's stream", async () => {
    const user = await kith.createUser("filterstream");
    const seen: unknown[] = [];
    const stop = await kith.pubsub.subscribe(`stream:user:${user.account.id}`, (message) => seen.push(message));
    await create(user.token, { title: "Announced", context: ["home"] });
    await stop();
    expect(seen).toEqual([{ event: "filters_changed" }]);
  });

  describe("the matcher", () => {
    it("hides, warns, matches whole words, boosted posts and filtered posts, in the right context only", async () => {
      const user = await kith.createUser("filtermatch");
      const kept = await insertStatus(kith, bob.account.id, "named post");
      await create(user.token, { title: "Cats", context: ["home"], filter_action: "warn", keywords_attributes: [{ keyword: "cat" }] });
      await create(user.token, {
        title: "Rude",
        context: ["home"],
        filter_action: "hide",
        keywords_attributes: [{ keyword: "darn", whole_word: false }],
      });
      const named = await create(user.token, { title: "Named", context: ["home"] });
      await kith.request("POST", `/api/v2/filters/${named.id}/statuses`, { token: user.token, json: { status_id: kept } });

      const home = await kith.services.filters.forViewer(user.account.id, "home");
      const result = home.apply([
        status("st_1", "<p>A cat &amp; a dog</p>"),
        status("st_2", "<p>concatenate</p>"),
        status("st_3", "<p>well DARNIT</p>"),
        status("st_4", "<p>boost</p>", { reblog: status("st_5", "<p>my cat</p>") }),
        status(kept, "<p>anything</p>"),
      ]);
      expect(result.map((s) => s.id)).toEqual(["st_1", "st_2", "st_4", kept]);
      expect(result[0]?.filtered).toEqual([
        expect.objectContaining({ filter: expect.objectContaining({ title: "Cats" }), keyword_matches: ["cat"], status_matches: null }),
      ]);
      expect(result[1]?.filtered).toBeUndefined();
      expect(result[2]?.filtered?.[0]?.keyword_matches).toEqual(["cat"]);
      expect(result[2]?.reblog?.filtered?.[0]?.keyword_matches).toEqual(["cat"]);
      expect(result[3]?.filtered?.[0]).toMatchObject({ status_matches: [kept], keyword_matches: null });

      const notifications = await kith.services.filters.forViewer(user.account.id, "notifications");
      expect(notifications.empty).toBe(true);
      expect(notifications.apply([status("st_3", "darn")]).map((s) => s.id)).toEqual(["st_3"]);
    });

    it("ignores expired filters", async () => {
      const user = await kith.createUser("filterexpiry");
      await create(user.token, {
        title: "Brief",
        context: ["public"],
        filter_action: "hide",
        expires_in: 60,
        keywords_attributes: [{ keyword: "soon" }],
      });
      const before = await kith.services.filters.forViewer(user.account.id, "public");
      expect(before.apply([status("st_1", "soon")])).toEqual([]);
      kith.clock.advance(61_000);
      const after = await kith.services.filters.forViewer(user.account.id, "public");
      expect(after.apply([status("st_1", "soon")]).map((s) => s.id)).toEqual(["st_1"]);
    });
  });
});
