import type { AccessType } from "@kith/core";
import { type RemoteServer, type TestKith, eventually, startRemoteServer, vocab } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { favourite, post } from "../api/timelines-fixtures.js";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";

/**
 * Outgoing deliveries, domain policy both ways and federation monitoring, in
 * one process against a loopback server. The Accept a local account sends
 * for an incoming Follow is the delivery watched. Time is the fake clock's:
 * retries wait until it moves, days pass when it is moved.
 */
describeOnEngines("deliveries, domain policy and monitoring", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let serial = 0;
  let aliceToken = "";
  const HOUR = 3_600_000;
  const MANAGE: AccessType[] = ["Add", "Modify", "Delete"];

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory", "eve"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    remote.received.length = 0;
    remote.inboxStatus = () => 202;
    // Three days of failures mark a domain here (seven by default), so that the monitoring tests stay short.
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true, unreachableAfterDays: 3 } });
    aliceToken = (await kith.createUser("alice")).token;
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");
  const eve = () => remote.actors.eve ?? expect.unreachable("eve");

  async function follow(actor = mallory()): Promise<Response> {
    const activity = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${actor.id.href}/follows/${++serial}`,
      type: "Follow",
      actor: actor.id.href,
      object: "https://kith.test/users/alice",
    };
    return kith.fetch(await remote.signedPost("https://kith.test/users/alice/inbox", activity, actor), { clientIp: remote.host });
  }

  /** Waits until no job of the federation queue is ready or running (retries wait for the clock). */
  async function settle(): Promise<void> {
    await eventually(async () => {
      const counts = await kith.queue.counts("federation");
      expect(counts.submitted + counts.active).toBe(0);
    });
  }

  const accepts = () => remote.received.filter((request) => (request.body as { type?: string }).type === "Accept");

  async function followCount(): Promise<number> {
    await settle();
    const row = await kith.storage.db.selectFrom("follows").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async function admin(access: AccessType[] = ["Read"]): Promise<string> {
    const user = await kith.createUser(`staff${++serial}`);
    await giveGrants(kith, user.account.id, [{ resource: "Federation", access, scope: "global" }]);
    return user.token;
  }

  async function getJson<T>(path: string, token: string): Promise<T> {
    const response = await kith.request("GET", path, { token });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }

  interface Deliveries {
    domain: string;
    succeeded: number;
    failed: number;
    failureDays: number;
    unreachable: boolean;
  }

  describe("retries", () => {
    it("retries a delivery the remote answered with 500, with backoff on the queue, until it is accepted", async () => {
      let failing = true;
      remote.inboxStatus = () => (failing ? 500 : 202);
      expect((await follow()).status).toBe(202);
      await eventually(() => expect(accepts().length).toBeGreaterThan(0));
      await settle();
      // The failed attempt waits as a retry the jobs API shows, not yet due.
      const waiting = await kith.queue.list({ queue: "federation", status: "retries", limit: 10 });
      expect(waiting).toHaveLength(1);
      expect(waiting[0]).toMatchObject({ tries: 1, payload: { type: "outbox" } });
      expect(Date.parse(waiting[0]?.runAt ?? "")).toBeGreaterThan(kith.clock.now().getTime());
      // One attempt knocks with both signature forms before it counts as failed.
      const firstAttempt = accepts().length;
      expect(firstAttempt).toBeLessThanOrEqual(2);
      failing = false;
      kith.clock.advance(HOUR);
      await eventually(() => expect(accepts()).toHaveLength(firstAttempt + 1));
      await settle();
      expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, failed: 0, dlq: 0 });
      const token = await admin();
      const [deliveries] = await getJson<Deliveries[]>("/api/v1/admin/federation/deliveries", token);
      expect(deliveries).toMatchObject({ domain: remote.host, succeeded: 1, failed: 1, failureDays: 0, unreachable: false });
    });

    it("keeps retrying a delivery to a server that is down for two hours, and delivers it once the server is back", async () => {
      let down = true;
      remote.inboxStatus = () => (down ? 503 : 202);
      expect((await follow()).status).toBe(202);
      await eventually(() => expect(accepts().length).toBeGreaterThan(0));
      await settle();
      // Two hours of the server answering 503, in ten-minute steps: every retry that comes due fails.
      const dueRetriesRun = () =>
        eventually(async () => {
          const retries = await kith.queue.list({ queue: "federation", status: "retries", limit: 10 });
          expect(retries.filter((job) => Date.parse(job.runAt) <= kith.clock.now().getTime())).toEqual([]);
          await settle();
        });
      for (let minutes = 0; minutes < 120; minutes += 10) {
        kith.clock.advance(10 * 60_000);
        await dueRetriesRun();
      }
      const failedAttempts = accepts().length;
      expect(failedAttempts).toBeGreaterThan(3);
      const [waiting] = await kith.queue.list({ queue: "federation", status: "retries", limit: 10 });
      expect(waiting).toMatchObject({ payload: { type: "outbox" }, maxAttempts: kith.config.deliveryRetries.retries + 1 });
      expect(await kith.queue.counts("federation")).toMatchObject({ failed: 0, dlq: 0 });
      // Back up: the next retry (within the schedule's wait, four hours at most by now) is accepted.
      down = false;
      kith.clock.advance(4 * HOUR);
      await eventually(() => expect(accepts()).toHaveLength(failedAttempts + 1));
      await settle();
      expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, failed: 0, dlq: 0 });
      const [deliveries] = await getJson<Deliveries[]>("/api/v1/admin/federation/deliveries", await admin());
      expect(deliveries).toMatchObject({ domain: remote.host, succeeded: 1, unreachable: false });
    });

    for (const status of [410, 404]) {
      it(`does not retry a delivery answered with ${status}`, async () => {
        remote.inboxStatus = () => status;
        expect((await follow()).status).toBe(202);
        await eventually(() => expect(accepts().length).toBeGreaterThan(0));
        await settle();
        expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, schedule: 0, failed: 0 });
        const sent = accepts().length;
        kith.clock.advance(24 * HOUR);
        await settle();
        expect(accepts()).toHaveLength(sent);
        const [deliveries] = await getJson<Deliveries[]>("/api/v1/admin/federation/deliveries", await admin());
        expect(deliveries).toMatchObject({ succeeded: 0, failed: 1 });
      });
    }
  });

  describe("domain policy", () => {
    it("SUSPEND severs existing follows, refuses incoming activities and drops outgoing deliveries", async () => {
      expect((await follow()).status).toBe(202);
      expect(await followCount()).toBe(1);
      await kith.services.domainPolicy.createBlock({ domain: "127.0.0.1", severity: "SUSPEND" });
      expect(await followCount()).toBe(0);
      const refused = await follow(eve());
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: "federation.domain_refused" });
      expect(await followCount()).toBe(0);
      const before = remote.received.length;
      // A delivery started anyway (a follow a local account asks for) goes nowhere.
      await kith.federation.sendFollow("alice", mallory().id.href);
      await settle();
      expect(remote.received.length).toBe(before);
      expect(await kith.queue.counts("federation")).toMatchObject({ retries: 0, failed: 0 });
    });

    it("SUSPEND severs follows both ways and pending requests, counts kept right, and tells the domain nothing", async () => {
      // Mallory follows Alice; Alice follows Mallory (accepted) and asks to follow Eve (pending).
      expect((await follow()).status).toBe(202);
      const sent = await kith.federation.sendFollow("alice", mallory().id.href);
      expect(sent).not.toBeNull();
      const accept = {
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${mallory().id.href}/accepts/${++serial}`,
        type: "Accept",
        actor: mallory().id.href,
        object: sent?.followUri,
      };
      const accepted = await remote.signedPost("https://kith.test/users/alice/inbox", accept, mallory());
      expect((await kith.fetch(accepted, { clientIp: remote.host })).status).toBe(202);
      expect(await kith.federation.sendFollow("alice", eve().id.href)).not.toBeNull();
      expect(await followCount()).toBe(2);
      const counts = () =>
        kith.storage.db.selectFrom("accounts").select(["followers_count", "following_count"]).where("username", "=", "alice").where("domain", "is", null).executeTakeFirstOrThrow();
      expect(await counts()).toEqual({ followers_count: 1, following_count: 1 });
      const requests = () => kith.storage.db.selectFrom("follow_requests").select("id").execute();
      expect(await requests()).toHaveLength(1);
      await settle();
      const before = remote.received.length;

      await kith.services.domainPolicy.createBlock({ domain: "127.0.0.1", severity: "SUSPEND" });
      expect(await followCount()).toBe(0);
      expect(await requests()).toEqual([]);
      expect(await counts()).toEqual({ followers_count: 0, following_count: 0 });
      // No Undo, Reject or anything else goes out: the domain is cut off, not told.
      await settle();
      expect(remote.received.length).toBe(before);
      const relationship = await kith.request("GET", `/api/v1/accounts/relationships?id[]=${sent?.targetAccountId}`, { token: aliceToken });
      expect(await relationship.json()).toMatchObject([{ following: false, followed_by: false, requested: false }]);
    });

    it("gates immediate sends too: none reaches a suspended domain, nor one off the allowlist", async () => {
      const ctx = (await kith.federation.load()).context();
      const alice = ctx.getActorUri("alice");
      const to = (actor = mallory()) => ({ id: actor.id, inboxId: new URL(actor.inbox) });
      const like = () => new vocab.Like({ id: new URL(`${alice.href}#likes/${++serial}`), actor: alice, object: new URL(`${mallory().id.href}/notes/1`) });
      // The same send reaches the domain while it federates, so what follows can fail.
      await ctx.sendActivity({ identifier: "alice" }, to(), like(), { immediate: true });
      expect(remote.received).toHaveLength(1);

      const block = await kith.services.domainPolicy.createBlock({ domain: "127.0.0.1", severity: "SUSPEND" });
      await ctx.sendActivity({ identifier: "alice" }, [to(), to(eve())], like(), { immediate: true });
      await ctx.sendActivity({ identifier: "alice" }, to(), like(), { immediate: true, preferSharedInbox: true });
      await kith.federation.sendFollow("alice", mallory().id.href, { immediate: true });
      await settle();
      expect(remote.received).toHaveLength(1);

      await kith.services.domainPolicy.deleteBlock(block.id);
      await kith.services.settings.update({ federationAllowlistEnabled: true });
      kith.services.domainPolicy.invalidate();
      await ctx.sendActivity({ identifier: "alice" }, to(), like(), { immediate: true });
      await settle();
      expect(remote.received).toHaveLength(1);
    });

    it("a user's own domain block removes followers there and tells their server with a Reject of the Follow", async () => {
      expect((await follow()).status).toBe(202);
      const followId = `${mallory().id.href}/follows/${serial}`;
      await eventually(() => expect(accepts()).toHaveLength(1));
      expect(await followCount()).toBe(1);
      const blocked = await kith.request("POST", "/api/v1/domain_blocks", { token: aliceToken, json: { domain: "127.0.0.1" } });
      expect(blocked.status).toBe(200);
      expect(await followCount()).toBe(0);
      const rejects = () => remote.received.filter((request) => (request.body as { type?: string }).type === "Reject");
      await eventually(() => expect(rejects()).toHaveLength(1));
      const reject = rejects()[0]?.body as { actor?: string; object?: { id?: string; type?: string } | string };
      expect(reject.actor).toBe("https://kith.test/users/alice");
      expect(typeof reject.object === "string" ? reject.object : reject.object?.id).toBe(followId);
    });

    it("NOOP only records: activities flow both ways", async () => {
      await kith.services.domainPolicy.createBlock({ domain: "127.0.0.1", severity: "NOOP" });
      expect((await follow()).status).toBe(202);
      expect(await followCount()).toBe(1);
      await eventually(() => expect(accepts()).toHaveLength(1));
    });

    it("LIMIT keeps follows but hides the domain's posts from public timelines, except to followers", async () => {
      expect((await follow()).status).toBe(202);
      await settle();
      const remoteAccount = await kith.storage.db.selectFrom("accounts").select("id").where("domain", "=", remote.host).executeTakeFirstOrThrow();
      const now = kith.clock.now().toISOString();
      await post(kith, remoteAccount.id, { local: false, text: "remote post" });
      const bob = await kith.createUser("bob");
      const carol = await kith.createUser("carol");
      await kith.storage.db
        .insertInto("follows")
        .values({ id: kith.ids.next("follow"), account_id: carol.account.id, target_account_id: remoteAccount.id, follower_local: true, uri: null, languages: null, created_at: now, updated_at: now })
        .execute();
      const publicIds = async (token?: string) => {
        const response = await kith.request("GET", "/api/v1/timelines/public", token ? { token } : {});
        expect(response.status).toBe(200);
        return ((await response.json()) as { content: string }[]).map((status) => status.content);
      };
      expect(await publicIds(bob.token)).toContain("<p>remote post</p>");
      await kith.services.domainPolicy.createBlock({ domain: "127.0.0.1", severity: "LIMIT" });
      expect(await publicIds(bob.token)).not.toContain("<p>remote post</p>");
      expect(await publicIds()).not.toContain("<p>remote post</p>");
      expect(await publicIds(carol.token)).toContain("<p>remote post</p>");
      // Its notifications reach only those who follow it: the others' policies hold them back (Mastodon's
      // `for_limited_accounts`, filter by default) or drop them.
      const mention = { fromAccountId: remoteAccount.id, type: "mention" as const, statusId: null };
      const held = await kith.services.notifications.notify({ ...mention, recipientId: bob.account.id });
      expect(held).not.toBeNull();
      await expect(kith.services.notifications.get(bob.account.id, held ?? "")).rejects.toMatchObject({ code: "notification.not_found" });
      await kith.services.notificationPolicy.changePolicy(bob.account.id, { for_limited_accounts: "drop" });
      expect(await kith.services.notifications.notify({ ...mention, recipientId: bob.account.id })).toBeNull();
      expect(await kith.services.notifications.notify({ ...mention, recipientId: carol.account.id })).not.toBeNull();
      // Federation goes on: the follow stays.
      expect(await followCount()).toBe(2);
    });

    it("LIMIT makes a follow of an unlocked account a request, and keeps the domain's accounts out of search and trends except for followers", async () => {
      expect((await follow()).status).toBe(202);
      await settle();
      const remoteAccount = await kith.storage.db
        .selectFrom("accounts")
        .select(["id", "acct_key"])
        .where("uri", "=", mallory().id.href)
        .executeTakeFirstOrThrow();
      await kith.storage.db.updateTable("accounts").set({ discoverable: true } as never).where("id", "=", remoteAccount.id).execute();
      const bob = await kith.createUser("bob");
      const carol = await kith.createUser("carol");
      const now = kith.clock.now().toISOString();
      await kith.storage.db
        .insertInto("follows")
        .values({ id: kith.ids.next("follow"), account_id: carol.account.id, target_account_id: remoteAccount.id, follower_local: true, uri: null, languages: null, created_at: now, updated_at: now })
        .execute();
      const statusId = await post(kith, remoteAccount.id, { local: false, text: "limited #limitedtag", tags: ["limitedtag"] });
      await favourite(kith, bob.account.id, statusId);
      const found = async (q: string, token: string) => {
        const body = await getJson<{ accounts: { id: string }[] }>(`/api/v2/search?type=accounts&q=${encodeURIComponent(q)}`, token);
        return body.accounts.some((account) => account.id === remoteAccount.id);
      };
      const trending = async () => {
        const tags = await getJson<{ name: string }[]>("/api/v1/trends/tags", bob.token);
        const statuses = await getJson<{ id: string }[]>("/api/v1/trends/statuses", bob.token);
        return { tag: tags.some((tag) => tag.name === "limitedtag"), status: statuses.some((status) => status.id === statusId) };
      };
      // Before the limit: found by anyone, trending.
      expect(await found("mallory", bob.token)).toBe(true);
      expect(await trending()).toEqual({ tag: true, status: true });

      await kith.services.domainPolicy.createBlock({ domain: "127.0.0.1", severity: "LIMIT" });
      kith.clock.advance(HOUR); // past the cached trend rankings
      expect(await found("mallory", bob.token)).toBe(false);
      expect(await found("mallory", carol.token)).toBe(true);
      expect(await found(remoteAccount.acct_key, bob.token)).toBe(true); // asked for by its exact handle
      expect(await trending()).toEqual({ tag: false, status: false });

      // A follow from the limited domain waits for approval, though alice is not locked.
      expect((await follow(eve())).status).toBe(202);
      await settle();
      const requests = await kith.storage.db.selectFrom("follow_requests").select("account_id").execute();
      expect(requests).toHaveLength(1);
      expect(await followCount()).toBe(2);
      expect(accepts()).toHaveLength(1);
    });

    it("allowlist mode: only listed domains federate, incoming and outgoing", async () => {
      await kith.services.settings.update({ federationAllowlistEnabled: true });
      kith.services.domainPolicy.invalidate();
      expect((await follow()).status).toBe(403);
      expect(await followCount()).toBe(0);
      await kith.federation.sendFollow("alice", mallory().id.href);
      await settle();
      expect(remote.received).toHaveLength(0);
      await kith.services.domainPolicy.createAllow("127.0.0.1");
      expect((await follow()).status).toBe(202);
      expect(await followCount()).toBe(1);
      await eventually(() => expect(accepts()).toHaveLength(1));
    });
  });

  describe("reach of a Delete", () => {
    it("a deleted post's Delete reaches a remote account that favourited it without following its author", async () => {
      const created = await kith.request("POST", "/api/v1/statuses", { token: aliceToken, json: { status: "soon gone", visibility: "public" } });
      const status = (await created.json()) as { id: string; uri: string };
      const like = {
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${eve().id.href}/likes/${++serial}`,
        type: "Like",
        actor: eve().id.href,
        object: status.uri,
      };
      const liked = await remote.signedPost("https://kith.test/users/alice/inbox", like, eve());
      expect((await kith.fetch(liked, { clientIp: remote.host })).status).toBe(202);
      await eventually(async () => {
        const response = await kith.request("GET", `/api/v1/statuses/${status.id}`, { token: aliceToken });
        expect(((await response.json()) as { favourites_count: number }).favourites_count).toBe(1);
      });
      expect((await kith.request("DELETE", `/api/v1/statuses/${status.id}`, { token: aliceToken })).status).toBe(200);
      await settle();
      const deletes = remote.received.filter((request) => (request.body as { type?: string }).type === "Delete");
      expect(deletes.map((request) => (request.body as { object?: { id?: string } }).object?.id)).toEqual([status.uri]);
    });
  });

  describe("monitoring", () => {
    /** A failed delivery to `inbox` on each of three days: the domain is marked unreachable (this file's setting). */
    async function failOnThreeDays(inbox: URL): Promise<void> {
      for (let day = 0; day < 3; day++) {
        await kith.services.federationMonitor.recordDelivery(inbox, "failure");
        kith.clock.advance(24 * HOUR);
      }
    }

    it("marks a domain unreachable after failures on the set number of distinct days, skips deliveries to it, and clears the mark on one success", async () => {
      const monitor = kith.services.federationMonitor;
      const inbox = new URL(mallory().inbox);
      const token = await admin(["Read", ...MANAGE]);
      const unreachable = () => getJson<Deliveries[]>("/api/v1/admin/federation/unreachable-domains", token);
      await monitor.recordDelivery(inbox, "failure");
      await monitor.recordDelivery(inbox, "failure");
      kith.clock.advance(24 * HOUR);
      await monitor.recordDelivery(inbox, "failure");
      expect(await unreachable()).toEqual([]);
      kith.clock.advance(24 * HOUR);
      await monitor.recordDelivery(inbox, "failure");
      const [marked] = await unreachable();
      expect(marked).toMatchObject({ domain: remote.host, failed: 4, failureDays: 3, unreachable: true });
      // Deliveries are skipped while marked...
      const follows = () => remote.received.filter((request) => (request.body as { type?: string }).type === "Follow");
      await kith.federation.sendFollow("alice", mallory().id.href);
      await settle();
      expect(follows()).toHaveLength(0);
      // ...except one attempt a day, whose success clears the mark.
      kith.clock.advance(25 * HOUR);
      await kith.federation.sendFollow("alice", eve().id.href);
      await eventually(() => expect(follows()).toHaveLength(1));
      await settle();
      expect(await unreachable()).toEqual([]);
      const [deliveries] = await getJson<Deliveries[]>("/api/v1/admin/federation/deliveries", token);
      expect(deliveries).toMatchObject({ succeeded: 1, failed: 4, failureDays: 0 });
    });

    it("lets deliveries go to a marked domain again as soon as an activity arrives from it", async () => {
      const monitor = kith.services.federationMonitor;
      const inbox = new URL(mallory().inbox);
      await failOnThreeDays(inbox);
      await monitor.recordDelivery(inbox, "failure");
      expect(await monitor.skipsDeliveryTo(remote.host)).toBe(true);
      // Mallory's Follow arrives: the domain answers, and the Accept goes to it the same day.
      expect((await follow()).status).toBe(202);
      await eventually(() => expect(accepts()).toHaveLength(1));
      await settle();
      const token = await admin();
      expect(await getJson<Deliveries[]>("/api/v1/admin/federation/unreachable-domains", token)).toEqual([]);
    });

    it("lets an administrator clear the mark, and answers 404 for a domain not marked", async () => {
      await failOnThreeDays(new URL(mallory().inbox));
      const reader = await admin(["Read"]);
      expect((await kith.request("DELETE", `/api/v1/admin/federation/unreachable-domains/${remote.host}`, { token: reader })).status).toBe(403);
      const manager = await admin(MANAGE);
      expect((await kith.request("DELETE", `/api/v1/admin/federation/unreachable-domains/${remote.host}`, { token: manager })).status).toBe(200);
      const again = await kith.request("DELETE", `/api/v1/admin/federation/unreachable-domains/${remote.host}`, { token: manager });
      expect(again.status).toBe(404);
      expect(await again.json()).toMatchObject({ code: "federation.domain_not_unreachable" });
    });

    it("counts accepted incoming activities per minute over a sliding window, and lists connected domains", async () => {
      expect((await follow()).status).toBe(202);
      expect((await follow(eve())).status).toBe(202);
      const unsigned = { "@context": "https://www.w3.org/ns/activitystreams", id: `${eve().id.href}/x`, type: "Follow", actor: eve().id.href, object: "https://kith.test/users/alice" };
      expect((await kith.fetch(new Request("https://kith.test/inbox", { method: "POST", body: JSON.stringify(unsigned) }))).status).toBe(401);
      kith.clock.advance(2 * 60_000);
      expect((await follow()).status).toBe(202);
      await settle();
      const token = await admin();
      type Metrics = { total: number; minutes: number; perMinute: { minute: string; received: number }[]; topDomains: { domain: string; received: number }[] };
      const metrics = await getJson<Metrics>("/api/v1/admin/federation/inbox-metrics", token);
      expect(metrics.minutes).toBe(60);
      expect(metrics.perMinute).toHaveLength(60);
      expect(metrics.total).toBe(3);
      expect(metrics.perMinute.filter((minute) => minute.received > 0).map((minute) => minute.received)).toEqual([2, 1]);
      expect(metrics.topDomains).toEqual([{ domain: remote.host, received: 3 }]);
      expect((await getJson<Metrics>("/api/v1/admin/federation/inbox-metrics?domain=elsewhere.example", token)).total).toBe(0);
      expect((await kith.request("GET", "/api/v1/admin/federation/inbox-metrics?minutes=0", { token })).status).toBe(422);
      kith.clock.advance(60 * 60_000);
      expect((await getJson<Metrics>("/api/v1/admin/federation/inbox-metrics", token)).total).toBe(0);

      type Domains = { total: number; domains: { domain: string; accounts: number; posts: number; deliveries: Deliveries | null }[] };
      const connected = await getJson<Domains>("/api/v1/admin/federation/domains", token);
      expect(connected.total).toBe(1);
      expect(connected.domains).toEqual([
        expect.objectContaining({ domain: remote.host, accounts: 2, posts: 0, deliveries: expect.objectContaining({ succeeded: 3 }) }),
      ]);
      const user = await kith.createUser(`plain${++serial}`);
      expect((await kith.request("GET", "/api/v1/admin/federation/domains", { token: user.token })).status).toBe(403);
    });
  });
});
