import { type RemoteServer, type TestKith, type TestUser, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";

/**
 * Incoming activities are handled while their request waits, with no job,
 * as long as nothing has to be fetched from another server; an activity
 * that needs a fetch is answered at once and handled by a worker, which
 * fetches it. Either way the answer is 202 and the effect is the same.
 */
describeOnEngines("inbox activities handled in their request", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let alice: TestUser;
  let count = 0;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    remote.fetched.length = 0;
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    alice = await kith.createUser("alice");
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");

  function noteOf(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      type: "Note",
      id: `${mallory().id.href}/statuses/${++count}`,
      attributedTo: mallory().id.href,
      content: `<p>note ${count}</p>`,
      to: [PUBLIC],
      ...extra,
    };
  }

  function activityOf(type: string, object: unknown): Record<string, unknown> {
    return {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${mallory().id.href}/activities/${++count}`,
      type,
      actor: mallory().id.href,
      to: [PUBLIC],
      object,
    };
  }

  async function deliver(activity: Record<string, unknown>, inbox = "https://kith.test/inbox"): Promise<Response> {
    return kith.fetch(await remote.signedPost(inbox, activity, mallory()), { clientIp: "127.0.0.1" });
  }

  /** Every job the federation queue has had, whatever became of it. */
  async function federationJobs(): Promise<number> {
    const counts = await kith.queue.counts("federation");
    return Object.values(counts).reduce((sum, n) => sum + n, 0);
  }

  async function settle(): Promise<void> {
    await eventually(async () => {
      const counts = await kith.queue.counts("federation");
      expect(counts.submitted + counts.active).toBe(0);
    });
  }

  async function statusAt(uri: unknown) {
    return kith.storage.db.selectFrom("statuses").selectAll().where("uri", "=", String(uri)).executeTakeFirst();
  }

  /** mallory, known here: its first activity is handled by a worker (its actor document is fetched). */
  async function introduce(): Promise<void> {
    const note = noteOf();
    expect((await deliver(activityOf("Create", note))).status).toBe(202);
    await settle();
    expect(await statusAt(note.id)).toBeDefined();
  }

  for (const inbox of ["https://kith.test/inbox", "https://kith.test/users/alice/inbox"]) {
    it(`stores a Create with its Note embedded, from a known sender, before answering, without a job or a fetch (${new URL(inbox).pathname})`, async () => {
      await introduce();
      const jobs = await federationJobs();
      remote.fetched.length = 0;
      const note = noteOf();
      const response = await deliver(activityOf("Create", note), inbox);
      expect(response.status).toBe(202);
      expect(await statusAt(note.id)).toMatchObject({ content: note.content });
      expect(await federationJobs()).toBe(jobs);
      // The sender's key is known: nothing is fetched (a personal inbox's POST once fetched the sender's actor).
      expect(remote.fetched).toEqual([]);
    });
  }

  it("records a Like of a local post before answering, without a job", async () => {
    await introduce();
    const posted = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      json: { status: "like me", visibility: "public" },
    });
    const { id } = (await posted.json()) as { id: string };
    await settle();
    const jobs = await federationJobs();
    const response = await deliver(activityOf("Like", `https://kith.test/users/alice/statuses/${id}`));
    expect(response.status).toBe(202);
    const favourites = await kith.storage.db.selectFrom("favourites").selectAll().where("status_id", "=", id).execute();
    expect(favourites).toHaveLength(1);
    expect(await federationJobs()).toBe(jobs);
  });

  it("fans a stored post out, notifies its mentions and a Like's author from what the activity's handling knew", async () => {
    await introduce();
    const malloryId = (await kith.storage.db.selectFrom("accounts").select("id").where("uri", "=", mallory().id.href).executeTakeFirst())?.id;
    const now = kith.clock.now().toISOString();
    await kith.storage.db
      .insertInto("follows")
      .values({
        id: kith.ids.next("follow"),
        account_id: alice.account.id,
        target_account_id: malloryId ?? expect.unreachable("mallory's account"),
        follower_local: true,
        languages: null,
        uri: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const note = noteOf({
      content: "<p>hi @alice</p>",
      tag: [
        { type: "Mention", href: "https://kith.test/users/alice", name: "@alice@kith.test" },
      ],
    });
    expect((await deliver(activityOf("Create", note))).status).toBe(202);
    const stored = await statusAt(note.id);
    // Counted without the account being read back: introduce's post and this one.
    const author = await kith.request("GET", `/api/v1/accounts/${malloryId}`, { token: alice.token });
    expect(((await author.json()) as { statuses_count: number }).statuses_count).toBe(2);
    const home = (await (await kith.request("GET", "/api/v1/timelines/home", { token: alice.token })).json()) as { id: string }[];
    expect(home.map((status) => status.id)).toContain(stored?.id);
    const posted = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "like me", visibility: "public" } });
    const { id } = (await posted.json()) as { id: string };
    expect((await deliver(activityOf("Like", `https://kith.test/users/alice/statuses/${id}`))).status).toBe(202);
    const notifications = (await (await kith.request("GET", "/api/v1/notifications", { token: alice.token })).json()) as {
      type: string;
      status: { id: string };
    }[];
    expect(notifications.map((n) => [n.type, n.status.id])).toEqual([
      ["favourite", id],
      ["mention", stored?.id],
    ]);
  });

  it("ignores a Like of a post named under another local account's path", async () => {
    await introduce();
    const bob = await kith.createUser("bob");
    const posted = await kith.request("POST", "/api/v1/statuses", { token: bob.token, json: { status: "bob's", visibility: "public" } });
    const { id } = (await posted.json()) as { id: string };
    expect((await deliver(activityOf("Like", `https://kith.test/users/alice/statuses/${id}`))).status).toBe(202);
    await settle();
    expect(await kith.storage.db.selectFrom("favourites").select("id").where("status_id", "=", id).execute()).toHaveLength(0);
    expect((await deliver(activityOf("Like", `https://kith.test/users/bob/statuses/${id}`))).status).toBe(202);
    expect(await kith.storage.db.selectFrom("favourites").select("id").where("status_id", "=", id).execute()).toHaveLength(1);
  });

  it("answers a Create of a Note given by URL at once, and a worker fetches and stores it", async () => {
    await introduce();
    const note = noteOf();
    const path = new URL(String(note.id)).pathname;
    remote.serve(path, { "@context": "https://www.w3.org/ns/activitystreams", ...note });
    const jobs = await federationJobs();
    expect((await deliver(activityOf("Create", note.id))).status).toBe(202);
    expect(await federationJobs()).toBe(jobs + 1);
    await settle();
    expect(await statusAt(note.id)).toBeDefined();
    expect(remote.fetched.map((request) => request.path)).toContain(path);
  });

  it("stores a post whose attachment is given by URL with its attachment: a worker fetches it, nothing is stored half-read before", async () => {
    await introduce();
    const imagePath = `/media/${++count}`;
    const file = `${remote.origin}/files/${count}.png`;
    remote.serve(imagePath, {
      "@context": "https://www.w3.org/ns/activitystreams",
      type: "Image",
      id: `${remote.origin}${imagePath}`,
      mediaType: "image/png",
      url: file,
      name: "a fetched picture",
    });
    const note = noteOf({ attachment: [`${remote.origin}${imagePath}`] });
    const jobs = await federationJobs();
    expect((await deliver(activityOf("Create", note))).status).toBe(202);
    expect(await federationJobs()).toBe(jobs + 1);
    await settle();
    const stored = (await statusAt(note.id)) ?? expect.unreachable("not stored");
    const media = await kith.storage.db
      .selectFrom("media_attachments")
      .select(["remote_url", "description"])
      .where("status_id", "=", stored.id)
      .execute();
    expect(media).toEqual([{ remote_url: file, description: "a fetched picture" }]);
  });

  it("gives an activity sent again while its first copy waits for a worker one effect", async () => {
    const note = noteOf();
    const create = activityOf("Create", note);
    // mallory is unknown: its actor document is fetched by a worker.
    expect((await deliver(create)).status).toBe(202);
    expect((await deliver(create)).status).toBe(202);
    await settle();
    const rows = await kith.storage.db.selectFrom("statuses").select("id").where("uri", "=", String(note.id)).execute();
    expect(rows).toHaveLength(1);
  });

  /** The activities Fedify remembers as handled (its idempotence keys), by id. */
  async function remembered(): Promise<string[]> {
    const rows = await kith.storage.db.selectFrom("federation_kv").select("key").where("key", "like", '%"activityIdempotence"%').execute();
    return rows.map((row) => String((JSON.parse(row.key) as string[]).at(-1)).split("\n")[1] ?? "");
  }

  it("does not remember a Create, and handling it again has one effect", async () => {
    await introduce();
    const note = noteOf({ content: "<p>hello @alice</p>", tag: [{ type: "Mention", href: "https://kith.test/users/alice" }] });
    const create = activityOf("Create", note);
    for (let i = 0; i < 3; i++) expect((await deliver(create)).status).toBe(202);
    await settle();
    const stored = (await statusAt(note.id)) ?? expect.unreachable("not stored");
    expect(await kith.storage.db.selectFrom("statuses").select("id").where("uri", "=", String(note.id)).execute()).toHaveLength(1);
    const mentions = await kith.storage.db.selectFrom("notifications").select("id").where("status_id", "=", stored.id).execute();
    expect(mentions).toHaveLength(1);
    expect(await remembered()).not.toContain(create.id);
  });

  async function localStatus(): Promise<string> {
    const posted = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "like me", visibility: "public" } });
    return ((await posted.json()) as { id: string }).id;
  }

  it("does not remember a Like, and one sent again after its Undo, or arriving after it, does not count", async () => {
    await introduce();
    const id = await localStatus();
    const like = activityOf("Like", `https://kith.test/users/alice/statuses/${id}`);
    const favourites = () => kith.storage.db.selectFrom("favourites").select("id").where("status_id", "=", id).execute();
    expect((await deliver(like)).status).toBe(202);
    expect((await deliver(like)).status).toBe(202);
    expect(await favourites()).toHaveLength(1);
    expect(await remembered()).not.toContain(like.id);
    expect((await deliver(activityOf("Undo", like))).status).toBe(202);
    await settle();
    expect(await favourites()).toHaveLength(0);
    expect((await deliver(like)).status).toBe(202);
    await settle();
    expect(await favourites()).toHaveLength(0);

    // Delivered out of order: the Undo first.
    const late = activityOf("Like", `https://kith.test/users/alice/statuses/${id}`);
    expect((await deliver(activityOf("Undo", late))).status).toBe(202);
    expect((await deliver(late)).status).toBe(202);
    await settle();
    expect(await favourites()).toHaveLength(0);
  });

  it("does not boost again with an Announce sent again after its Undo", async () => {
    await introduce();
    const id = await localStatus();
    const announce = activityOf("Announce", `https://kith.test/users/alice/statuses/${id}`);
    const boosts = () => kith.storage.db.selectFrom("statuses").select("id").where("reblog_of_id", "=", id).execute();
    expect((await deliver(announce)).status).toBe(202);
    expect((await deliver(announce)).status).toBe(202);
    expect(await boosts()).toHaveLength(1);
    expect((await deliver(activityOf("Undo", announce))).status).toBe(202);
    await settle();
    expect(await boosts()).toHaveLength(0);
    expect((await deliver(announce)).status).toBe(202);
    await settle();
    expect(await boosts()).toHaveLength(0);
  });
});
