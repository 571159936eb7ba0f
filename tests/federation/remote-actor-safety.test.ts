/**
 * A remote actor's profile is written by another server and shown by local
 * clients as if it were ours: its HTML is sanitised as statuses are, its
 * addresses must be http(s), a username that could spell another
 * account's handle is refused, and a new actor is kept only when its host's
 * WebFinger names it as the account its handle says.
 */
import { type RemoteServer, type TestKith, type TestUser, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

describeOnEngines("remote actor profiles", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let alice: TestUser;
  let notes = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory", "trudy", "admin", "eve", "oscar"]);
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    alice = await kith.createUser("alice");
    await kith.start();
  });
  afterAll(async () => {
    await kith.close();
    await remote.close();
  });

  const actor = (name: string) => remote.actors[name] ?? expect.unreachable(name);

  /** Serves the actor's document with some of its properties replaced. */
  async function serveActorWith(name: string, changes: Record<string, unknown>): Promise<void> {
    const path = actor(name).id.pathname;
    const document = (await (await fetch(`${remote.origin}${path}`)).json()) as Record<string, unknown>;
    remote.serve(path, { ...document, ...changes });
  }

  const accountOf = (name: string) =>
    kith.storage.db.selectFrom("accounts").select(["id", "username"]).where("uri", "=", actor(name).id.href).executeTakeFirst();
  const statusAt = (uri: string) => kith.storage.db.selectFrom("statuses").select("id").where("uri", "=", uri).executeTakeFirst();
  const asked = (resource: string) => remote.webFingered.filter((entry) => entry === resource).length;

  /** Delivers a public Note by the actor; the note's id. */
  async function postAs(name: string): Promise<string> {
    const id = `${actor(name).id.href}/statuses/${++notes}`;
    const activity = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${id}/activity`,
      type: "Create",
      actor: actor(name).id.href,
      to: [PUBLIC],
      object: { type: "Note", id, attributedTo: actor(name).id.href, content: "<p>hello</p>", to: [PUBLIC] },
    };
    const response = await kith.fetch(await remote.signedPost("https://kith.test/inbox", activity, actor(name)), { clientIp: "127.0.0.1" });
    expect(response.status).toBe(202);
    await eventually(async () => {
      const counts = await kith.queue.counts("federation");
      expect(counts.submitted + counts.active).toBe(0);
    });
    return id;
  }

  it("serves the bio sanitised, the display name as plain text, and no javascript: URL", async () => {
    await serveActorWith("mallory", {
      name: 'Mallory<script>alert(1)</script><img src=x onerror="alert(2)">',
      summary:
        '<p>hi<script>alert(1)</script><img src=x onerror="alert(2)"><iframe src="https://evil.example"></iframe>' +
        '<a href="javascript:alert(3)">click</a> <a href="https://evil.example/login">bank.example/login</a></p>',
      url: "javascript:alert(4)",
    });
    await postAs("mallory");
    const response = await kith.request("GET", `/api/v1/accounts/lookup?acct=mallory@${remote.host}`, { token: alice.token });
    expect(response.status).toBe(200);
    const account = (await response.json()) as { note: string; display_name: string; url: string; acct: string };
    expect(account.acct).toBe(`mallory@${remote.host}`);
    expect(account.note).not.toMatch(/<script|onerror|javascript:|<iframe|<img/i);
    expect(account.note).toContain("hi");
    expect(account.note).toContain('<span class="link-origin">[evil.example]</span>');
    expect(account.display_name).toBe("Mallory");
    expect(account.url).toMatch(/^https?:\/\//);
    expect(account.url).not.toContain("javascript");
  });

  it("refuses an actor whose username would spell a local user's handle", async () => {
    await serveActorWith("trudy", { preferredUsername: "alice@kith.test" });
    const note = await postAs("trudy");
    const spoofed = await kith.storage.db.selectFrom("accounts").select("acct_key").where("uri", "=", actor("trudy").id.href).execute();
    expect(spoofed).toEqual([]);
    expect(await kith.storage.db.selectFrom("statuses").select("id").where("uri", "=", note).execute()).toEqual([]);
    const lookup = await kith.request("GET", "/api/v1/accounts/lookup?acct=alice@kith.test", { token: alice.token });
    expect(((await lookup.json()) as { id: string }).id).toBe(alice.account.id);
  });

  it("keeps a new actor once its host's WebFinger names it, and does not ask again for a known one", async () => {
    const resource = `acct:oscar@${remote.host}`;
    const first = await postAs("oscar");
    expect(await statusAt(first)).toBeDefined();
    expect(await accountOf("oscar")).toMatchObject({ username: "oscar" });
    expect(asked(resource)).toBe(1);

    const second = await postAs("oscar");
    expect(await statusAt(second)).toBeDefined();
    expect(asked(resource)).toBe(1);
  });

  it("refuses an actor that takes the username of another account on its host, and remembers the refusal for ten minutes", async () => {
    // eve calls herself admin; the host's WebFinger names the real admin.
    await serveActorWith("eve", { preferredUsername: "admin" });
    const resource = `acct:admin@${remote.host}`;
    const note = await postAs("eve");
    expect(await accountOf("eve")).toBeUndefined();
    expect(await statusAt(note)).toBeUndefined();
    expect(asked(resource)).toBe(1);

    // A second activity within ten minutes costs no lookup.
    kith.clock.advance(9 * 60_000);
    expect(await statusAt(await postAs("eve"))).toBeUndefined();
    expect(asked(resource)).toBe(1);

    // The real admin is kept: the handle is its own.
    expect(await statusAt(await postAs("admin"))).toBeDefined();
    expect(await accountOf("admin")).toMatchObject({ username: "admin" });
  });

  it("refuses a new actor whose host does not know its handle, and asks again once the refusal is past", async () => {
    const resource = `acct:mallory-unknown@${remote.host}`;
    await serveActorWith("mallory", {});
    await serveActorWith("trudy", { preferredUsername: "mallory-unknown" });
    remote.serveWebFinger(resource, null);
    // trudy is still unknown: the earlier test refused her handle.
    expect(await accountOf("trudy")).toBeUndefined();
    const before = asked(resource);
    const note = await postAs("trudy");
    expect(await statusAt(note)).toBeUndefined();
    expect(await accountOf("trudy")).toBeUndefined();
    expect(asked(resource)).toBe(before + 1);

    // Once the host names her, and the refusal has run out, she is kept.
    remote.serveWebFinger(resource, {
      subject: resource,
      links: [{ rel: "self", type: "application/activity+json", href: actor("trudy").id.href }],
    });
    kith.clock.advance(11 * 60_000);
    const later = await postAs("trudy");
    expect(await statusAt(later)).toBeDefined();
    expect(await accountOf("trudy")).toMatchObject({ username: "mallory-unknown" });
    expect(asked(resource)).toBe(before + 2);
  });
});
