/**
 * The relays admin API (`/api/v1/admin/relays`): who may call it, what it
 * refuses (URLs that are not http(s), private addresses outside test
 * networks, a relay added twice, transitions its state does not allow), and
 * the subscription's states as the API shows them. What goes over the wire
 * is tests/federation/relays.test.ts's.
 */
import type { AccessType } from "@kith/core";
import { type RemoteServer, type TestKith, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { giveGrants } from "../support/roles.js";

const RELAYS = "/api/v1/admin/relays";
const MANAGE: AccessType[] = ["Add", "Modify", "Delete"];
/** A public address (no lookup needed, nothing is delivered: the test Kith works no jobs). */
const PUBLIC_INBOX = "https://93.184.215.14/inbox";

interface Relay {
  id: string;
  inbox_url: string;
  kind: string;
  actor_url: string | null;
  state: string;
  created_at: string;
  updated_at: string;
}

describeOnEngines("admin relays", (engine) => {
  let kith: TestKith;
  let serial = 0;

  async function userWith(access: AccessType[] | null): Promise<string> {
    const user = await kith.createUser(`staff${++serial}`);
    if (access) await giveGrants(kith, user.account.id, [{ resource: "Federation", access, scope: "global" }]);
    return user.token;
  }

  describe("on a server of the public network", () => {
    let token: string;
    beforeEach(async () => {
      kith = await engine.testKith();
      token = await userWith(MANAGE);
    });
    afterEach(() => kith.close());

    const add = (json: unknown, as = token) => kith.request("POST", RELAYS, { token: as, json });

    it("answers 401 without a token and 403 without Federation; Federation.Read lists but does not change", async () => {
      expect((await kith.request("GET", RELAYS)).status).toBe(401);
      expect((await kith.request("POST", RELAYS, { json: { inbox_url: PUBLIC_INBOX } })).status).toBe(401);
      const none = await userWith(null);
      const forbidden = await kith.request("GET", RELAYS, { token: none });
      expect(forbidden.status).toBe(403);
      expect(await forbidden.json()).toMatchObject({ code: "auth.forbidden" });
      expect((await add({ inbox_url: PUBLIC_INBOX }, none)).status).toBe(403);

      const reader = await userWith(["Read"]);
      expect((await kith.request("GET", RELAYS, { token: reader })).status).toBe(200);
      expect((await add({ inbox_url: PUBLIC_INBOX }, reader)).status).toBe(403);
      const relay = (await (await add({ inbox_url: PUBLIC_INBOX })).json()) as Relay;
      expect((await kith.request("DELETE", `${RELAYS}/${relay.id}`, { token: reader })).status).toBe(403);
      expect((await kith.request("POST", `${RELAYS}/${relay.id}/disable`, { token: reader })).status).toBe(403);
      expect((await kith.request("GET", `${RELAYS}/${relay.id}`, { token: reader })).status).toBe(200);
    });

    it("asks for a token with an admin scope", async () => {
      const user = await kith.createUser(`scoped${++serial}`, { scopes: ["read", "write"] });
      await giveGrants(kith, user.account.id, [{ resource: "Federation", access: MANAGE, scope: "global" }]);
      const response = await add({ inbox_url: PUBLIC_INBOX }, user.token);
      expect(response.status).toBe(403);
    });

    it("refuses what is not an http or https URL, and one URL of each kind at once or none", async () => {
      for (const body of [
        { inbox_url: "relay.example/inbox" },
        { inbox_url: "ftp://relay.example/inbox" },
        { inbox_url: "javascript:alert(1)" },
        { inbox_url: "https://user:secret@relay.example/inbox" },
        { inbox_url: "" },
        { inbox_url: `https://relay.example/${"x".repeat(2_100)}` },
        { actor_url: "mailto:relay@relay.example" },
        { inbox_url: PUBLIC_INBOX, actor_url: "https://93.184.215.14/actor" },
        {},
      ]) {
        const response = await add(body);
        expect(response.status, JSON.stringify(body)).toBe(422);
        expect(await response.json()).toMatchObject({ code: "request.validation_failed" });
      }
      // Not a string at all: malformed, not invalid.
      const number = await add({ inbox_url: 42 });
      expect(number.status).toBe(400);
      expect(await number.json()).toMatchObject({ code: expect.stringMatching(/^request\./) });
      expect(await (await kith.request("GET", RELAYS, { token })).json()).toEqual([]);
    });

    it("refuses private addresses: loopback, private networks, names that resolve to them", async () => {
      for (const url of [
        "http://127.0.0.1:8080/inbox",
        "https://10.1.2.3/inbox",
        "https://[::1]/inbox",
        "https://localhost/inbox",
        "https://192.168.1.1/inbox",
      ]) {
        const response = await add({ inbox_url: url });
        expect(response.status, url).toBe(422);
        expect(await response.json()).toMatchObject({ code: "relay.private_address" });
      }
      const actor = await add({ actor_url: "http://127.0.0.1:8080/actor" });
      expect(actor.status).toBe(422);
      expect(await actor.json()).toMatchObject({ code: "relay.private_address" });
      expect(await (await kith.request("GET", RELAYS, { token })).json()).toEqual([]);
    });

    it("adds a relay of Mastodon's kind, pending, and refuses its inbox twice", async () => {
      const created = await add({ inbox_url: `${PUBLIC_INBOX}#fragment` });
      expect(created.status).toBe(200);
      const relay = (await created.json()) as Relay;
      expect(relay).toMatchObject({ inbox_url: PUBLIC_INBOX, kind: "mastodon", actor_url: null, state: "pending" });
      expect(relay.id).toMatch(/^rl_/);
      expect(relay.created_at).toMatch(/Z$/);

      const again = await add({ inbox_url: PUBLIC_INBOX });
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: "relay.already_added" });
      expect(await (await kith.request("GET", RELAYS, { token })).json()).toEqual([relay]);
      expect(await (await kith.request("GET", `${RELAYS}/${relay.id}`, { token })).json()).toEqual(relay);
    });

    it("moves between states only as they allow: enable when idle or rejected, disable when pending or accepted", async () => {
      const relay = (await (await add({ inbox_url: PUBLIC_INBOX })).json()) as Relay;
      const action = (what: string) => kith.request("POST", `${RELAYS}/${relay.id}/${what}`, { token });

      const enabled = await action("enable");
      expect(enabled.status).toBe(409);
      expect(await enabled.json()).toMatchObject({ code: "relay.already_enabled" });
      const disabled = await action("disable");
      expect(disabled.status).toBe(200);
      expect(await disabled.json()).toMatchObject({ id: relay.id, state: "idle" });
      const twice = await action("disable");
      expect(twice.status).toBe(409);
      expect(await twice.json()).toMatchObject({ code: "relay.not_enabled" });
      expect(await (await action("enable")).json()).toMatchObject({ state: "pending" });

      expect((await kith.request("DELETE", `${RELAYS}/${relay.id}`, { token })).status).toBe(200);
      for (const request of [
        kith.request("DELETE", `${RELAYS}/${relay.id}`, { token }),
        kith.request("GET", `${RELAYS}/${relay.id}`, { token }),
        action("enable"),
        action("disable"),
      ]) {
        const response = await request;
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ code: "relay.not_found" });
      }
    });

    it("lists the routes in the reference", async () => {
      const openapi = (await (await kith.request("GET", "/api/v1/openapi.json")).json()) as { paths: Record<string, object> };
      expect(Object.keys(openapi.paths)).toEqual(
        expect.arrayContaining([RELAYS, `${RELAYS}/{id}`, `${RELAYS}/{id}/enable`, `${RELAYS}/{id}/disable`]),
      );
    });
  });

  describe("on a test network, with a relay of LitePub's kind", () => {
    let remote: RemoteServer;
    let token: string;
    beforeAll(async () => {
      remote = await startRemoteServer([]);
      remote.serve("/actor", {
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${remote.origin}/actor`,
        type: "Application",
        preferredUsername: "relay",
        inbox: `${remote.origin}/actor/inbox`,
        endpoints: { sharedInbox: `${remote.origin}/inbox` },
      });
      remote.serve("/note", { "@context": "https://www.w3.org/ns/activitystreams", id: `${remote.origin}/note`, type: "Note" });
      kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
      token = await userWith(MANAGE);
    });
    afterAll(async () => {
      await kith.close();
      await remote.close();
    });

    it("follows the actor at its shared inbox", async () => {
      const created = await kith.request("POST", RELAYS, { token, json: { actor_url: `${remote.origin}/actor` } });
      expect(created.status).toBe(200);
      expect(await created.json()).toMatchObject({
        kind: "litepub",
        inbox_url: `${remote.origin}/inbox`,
        actor_url: `${remote.origin}/actor`,
        state: "pending",
      });
      // The actor was fetched signed, by the instance actor.
      expect(remote.fetched.find((request) => request.path === "/actor")?.headers).toHaveProperty("signature");
    });

    it("refuses an actor URL that gives no actor", async () => {
      for (const path of ["/missing", "/note"]) {
        const response = await kith.request("POST", RELAYS, { token, json: { actor_url: `${remote.origin}${path}` } });
        expect(response.status, path).toBe(422);
        expect(await response.json()).toMatchObject({ code: "relay.actor_unavailable" });
      }
    });
  });
});
