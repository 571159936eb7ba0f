/**
 * Quote posts as Mastodon 4.5 has them, between accounts of one server:
 * `quoted_status_id` and `quote_approval_policy` on a new status, the Quote
 * entity and `quote_approval`, `quotes_count`, a status's quotes, revoking a
 * quote, the interaction policy, the `quote` and `quoted_update`
 * notifications, and a quoted status deleted. masto.js over real HTTP where
 * it has the call.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith, TestUser } from "@kith/core/testing";
import { createRestAPIClient } from "masto";
import { describeOnEngines } from "../support/engines.js";

type Json = Record<string, unknown>;

describeOnEngines("quote posts", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const fresh = () => kith.createUser(`qp${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith?.close());

  const call = async (user: TestUser | null, method: string, path: string, json?: unknown) => {
    const response = await kith.request(method, path, { ...(user && { token: user.token }), ...(json !== undefined && { json }) });
    return { status: response.status, body: (await response.json()) as Json & Json[], link: response.headers.get("link") };
  };
  const ok = async (user: TestUser, method: string, path: string, json?: unknown) => {
    const response = await call(user, method, path, json);
    expect(response.status, `${method} ${path}: ${JSON.stringify(response.body)}`).toBe(200);
    return response.body;
  };
  const post = async (user: TestUser, json: Json) => ok(user, "POST", "/api/v1/statuses", json);
  const statusOf = (user: TestUser, id: string) => ok(user, "GET", `/api/v1/statuses/${id}`);
  const settle = () => kith.services.events.settled();
  const notificationsOf = async (user: TestUser, type: string) => {
    await settle();
    return ((await ok(user, "GET", `/api/v1/notifications?types[]=${type}`)) as unknown as Json[]).map((n) => ({
      type: n.type,
      from: (n.account as Json).id,
      status: (n.status as Json | null)?.id,
    }));
  };

  it("quotes a public status: accepted at once, counted, shown as a Quote, the quoted author notified", async () => {
    const [alice, bob] = [await fresh(), await fresh()];
    const original = await post(alice, { status: "quote me" });
    expect(original.quote_approval).toEqual({ automatic: ["public"], manual: [], current_user: "automatic" });
    expect((await statusOf(bob, String(original.id))).quote_approval).toEqual({
      automatic: ["public"],
      manual: [],
      current_user: "automatic",
    });
    const quote = await post(bob, { status: "look at this", quoted_status_id: original.id });
    expect(quote.quote).toMatchObject({ state: "accepted", quoted_status: { id: original.id, quote: null } });
    expect((await statusOf(alice, String(original.id))).quotes_count).toBe(1);
    expect(await notificationsOf(alice, "quote")).toEqual([{ type: "quote", from: bob.account.id, status: quote.id }]);

    // A quote of the quote names the first quote's quoted status only by id (ShallowQuote).
    const carol = await fresh();
    const nested = await post(carol, { status: "deeper", quoted_status_id: quote.id });
    expect((nested.quote as Json).quoted_status).toMatchObject({
      id: quote.id,
      quote: { state: "accepted", quoted_status_id: original.id },
    });
  });

  it("refuses what may not be quoted: a boost, a direct or another's private status, a policy of nobody, a status not seen", async () => {
    const [alice, bob] = [await fresh(), await fresh()];
    const open = await post(alice, { status: "open" });
    const boost = await ok(bob, "POST", `/api/v1/statuses/${open.id}/reblog`);
    const privateOne = await post(alice, { status: "followers only", visibility: "private" });
    const direct = await post(alice, { status: `@${bob.account.username} secret`, visibility: "direct" });
    const closed = await post(alice, { status: "nobody", quote_approval_policy: "nobody" });
    expect(privateOne.quote_approval).toMatchObject({ automatic: [], current_user: "automatic" });
    expect(closed.quote_approval).toEqual({ automatic: [], manual: [], current_user: "automatic" });
    expect((await statusOf(bob, String(closed.id))).quote_approval).toEqual({ automatic: [], manual: [], current_user: "denied" });
    for (const id of [boost.id, direct.id, closed.id]) {
      const refused = await call(bob, "POST", "/api/v1/statuses", { status: "no", quoted_status_id: id });
      expect(refused.status, String(id)).toBe(403);
      expect(refused.body).toMatchObject({ code: "status.not_quotable" });
    }
    // Bob does not follow Alice: her private status is not his to see.
    expect((await call(bob, "POST", "/api/v1/statuses", { status: "no", quoted_status_id: privateOne.id })).status).toBe(404);
    expect((await call(bob, "POST", "/api/v1/statuses", { status: "no", quoted_status_id: "st_nothing" })).status).toBe(404);
    expect((await call(bob, "POST", "/api/v1/statuses", { status: "no", quote_approval_policy: "everyone" })).status).toBe(422);
    // An account she blocks may not quote her.
    const blocked = await fresh();
    await ok(alice, "POST", `/api/v1/accounts/${blocked.account.id}/block`);
    const barred = await call(blocked, "POST", "/api/v1/statuses", { status: "no", quoted_status_id: open.id });
    expect([403, 404]).toContain(barred.status);
    // Her own private status she may quote, and the quote stays private.
    const own = await post(alice, { status: "me again", quoted_status_id: privateOne.id, visibility: "public" });
    expect(own).toMatchObject({ visibility: "private", quote: { state: "accepted", quoted_status: { id: privateOne.id } } });
  });

  it("lets followers quote a status whose policy says followers, and nobody else", async () => {
    const [alice, bob, carol] = [await fresh(), await fresh(), await fresh()];
    await ok(bob, "POST", `/api/v1/accounts/${alice.account.id}/follow`);
    const status = await post(alice, { status: "for followers to quote", quote_approval_policy: "followers" });
    expect((await statusOf(bob, String(status.id))).quote_approval).toEqual({
      automatic: ["followers"],
      manual: [],
      current_user: "automatic",
    });
    expect((await statusOf(carol, String(status.id))).quote_approval).toMatchObject({ current_user: "denied" });
    expect((await post(bob, { status: "follower", quoted_status_id: status.id })).quote).toMatchObject({ state: "accepted" });
    expect((await call(carol, "POST", "/api/v1/statuses", { status: "stranger", quoted_status_id: status.id })).status).toBe(403);
  });

  it("lists a status's quotes to its author, paged, through masto.js; revokes one; changes the policy", async () => {
    const [alice, bob, carol] = [await fresh(), await fresh(), await fresh()];
    const original = await post(alice, { status: "much quoted" });
    const first = await post(bob, { status: "one", quoted_status_id: original.id });
    const second = await post(carol, { status: "two", quoted_status_id: original.id });

    const server: NodeServer = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
    try {
      const masto = createRestAPIClient({ url: server.url, accessToken: alice.token });
      const listed = await masto.v1.statuses.$select(String(original.id)).quotes.list();
      expect(listed.map((status) => status.id)).toEqual([second.id, first.id]);
      const created = await masto.v1.statuses.create({
        status: "via masto",
        quotedStatusId: String(first.id),
        quoteApprovalPolicy: "nobody",
      });
      expect(created.quote).toMatchObject({ state: "accepted" });
      expect(created.quoteApproval).toMatchObject({ automatic: [], currentUser: "automatic" });
    } finally {
      await server.close();
    }
    const paged = await call(alice, "GET", `/api/v1/statuses/${original.id}/quotes?limit=1`);
    expect(paged.body.map((status) => status.id)).toEqual([second.id]);
    expect(paged.link).toContain("max_id=");
    // Only the author lists them.
    expect((await call(bob, "GET", `/api/v1/statuses/${original.id}/quotes`)).status).toBe(403);

    const revoked = await ok(alice, "POST", `/api/v1/statuses/${original.id}/quotes/${first.id}/revoke`);
    expect(revoked).toMatchObject({ id: first.id, quote: { state: "revoked", quoted_status: null } });
    expect((await statusOf(bob, String(first.id))).quote).toEqual({ state: "revoked", quoted_status: null });
    expect((await statusOf(alice, String(original.id))).quotes_count).toBe(1);
    expect((await ok(alice, "GET", `/api/v1/statuses/${original.id}/quotes`)).map((status) => status.id)).toEqual([second.id]);
    // Revoking again changes nothing; a status that does not quote it is not found; another's status is not hers to revoke.
    expect((await call(alice, "POST", `/api/v1/statuses/${original.id}/quotes/${first.id}/revoke`)).status).toBe(200);
    expect((await statusOf(alice, String(original.id))).quotes_count).toBe(1);
    expect((await call(alice, "POST", `/api/v1/statuses/${original.id}/quotes/${original.id}/revoke`)).status).toBe(404);
    expect((await call(bob, "POST", `/api/v1/statuses/${original.id}/quotes/${second.id}/revoke`)).status).toBe(403);

    const changed = await ok(alice, "PUT", `/api/v1/statuses/${original.id}/interaction_policy`, { quote_approval_policy: "nobody" });
    expect(changed.quote_approval).toEqual({ automatic: [], manual: [], current_user: "automatic" });
    expect((await call(carol, "POST", "/api/v1/statuses", { status: "again", quoted_status_id: original.id })).status).toBe(403);
    expect((await call(alice, "PUT", `/api/v1/statuses/${original.id}/interaction_policy`, { quote_approval_policy: "all" })).status).toBe(
      422,
    );
    expect((await call(bob, "PUT", `/api/v1/statuses/${original.id}/interaction_policy`, { quote_approval_policy: "public" })).status).toBe(
      403,
    );
  });

  it("tells quoters of an edit, and shows a deleted quoted status as deleted", async () => {
    const [alice, bob] = [await fresh(), await fresh()];
    const original = await post(alice, { status: "before" });
    const quote = await post(bob, { status: "quoting", quoted_status_id: original.id });
    await ok(alice, "PUT", `/api/v1/statuses/${original.id}`, { status: "after" });
    expect(await notificationsOf(bob, "quoted_update")).toEqual([{ type: "quoted_update", from: alice.account.id, status: quote.id }]);
    expect(((await statusOf(bob, String(quote.id))).quote as Json).quoted_status).toMatchObject({ content: "<p>after</p>" });

    await ok(alice, "DELETE", `/api/v1/statuses/${original.id}`);
    await settle();
    expect((await statusOf(bob, String(quote.id))).quote).toEqual({ state: "deleted", quoted_status: null });
    // The quote deleted takes the count back and the notification with it.
    const other = await post(alice, { status: "second" });
    const gone = await post(bob, { status: "short-lived", quoted_status_id: other.id });
    await ok(bob, "DELETE", `/api/v1/statuses/${gone.id}`);
    expect((await statusOf(alice, String(other.id))).quotes_count).toBe(0);
    expect((await notificationsOf(alice, "quote")).map((n) => n.status)).toEqual([quote.id]);
  });
});
