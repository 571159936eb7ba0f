import { type RemoteServer, type TestKith, eventually, startRemoteServer } from "@kith/core/testing";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

/**
 * A local poll's results told to the servers that have the post, as
 * Mastodon does: votes (remote or local) and the poll's end each lead to an
 * Update of the Question with the current counts, sent later from a queued
 * job so that votes close together go out as one. One process against a
 * loopback server that follows the poll's author and votes; time is the
 * fake clock's.
 */
describeOnEngines("a local poll's results over federation", (engine) => {
  let remote: RemoteServer;
  let kith: TestKith;
  let alice: { token: string };
  let bob: { token: string };
  let carol: { token: string };
  let serial = 0;
  const SECOND = 1000;

  beforeAll(async () => {
    remote = await startRemoteServer(["mallory"]);
  });
  afterAll(async () => {
    await remote.close();
  });
  beforeEach(async () => {
    remote.received.length = 0;
    kith = await engine.testKith({ config: { origin: "https://kith.test", allowPrivateAddress: true } });
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    carol = await kith.createUser("carol");
    await kith.start();
  });
  afterEach(async () => {
    await kith.close();
  });

  const mallory = () => remote.actors.mallory ?? expect.unreachable("mallory");

  async function deliver(activity: Record<string, unknown>): Promise<void> {
    const request = await remote.signedPost("https://kith.test/users/alice/inbox", activity, mallory());
    expect((await kith.fetch(request, { clientIp: remote.host })).status).toBe(202);
  }

  /** Waits until no job is ready or running (delayed ones wait for the clock). */
  async function settle(): Promise<void> {
    await eventually(async () => {
      const counts = await kith.queue.counts();
      expect(counts.submitted + counts.active).toBe(0);
    });
  }

  interface SentQuestion {
    type: string;
    votersCount?: number;
    closed?: string;
    oneOf?: { name: string; replies?: { totalItems?: number } }[];
  }

  const updates = (): SentQuestion[] =>
    remote.received.flatMap((request) => {
      const body = request.body as { type?: string; object?: SentQuestion };
      return body.type === "Update" && body.object?.type === "Question" ? [body.object] : [];
    });

  const talliesOf = (question: SentQuestion | undefined) => question?.oneOf?.map((option) => option.replies?.totalItems ?? 0);

  it("sends an Update with the new counts after a remote vote, one for local votes close together, and another when the poll ends", async () => {
    await deliver({
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${mallory().id.href}/follows/${++serial}`,
      type: "Follow",
      actor: mallory().id.href,
      object: "https://kith.test/users/alice",
    });
    await eventually(() => expect(remote.received.map((request) => (request.body as { type?: string }).type)).toEqual(["Accept"]));
    const created = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      json: { status: "Tea or coffee?", poll: { options: ["tea", "coffee"], expires_in: 3600 } },
    });
    expect(created.status).toBe(200);
    const question = (await created.json()) as { uri: string; poll: { id: string } };
    await eventually(() => expect(remote.received.map((request) => (request.body as { type?: string }).type)).toEqual(["Accept", "Create"]));

    // Mallory votes from her server: nothing is sent at once, an Update a moment later.
    const voteId = `${mallory().id.href}/votes/${++serial}`;
    await deliver({
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${voteId}/activity`,
      type: "Create",
      actor: mallory().id.href,
      to: ["https://kith.test/users/alice"],
      object: { id: voteId, type: "Note", name: "tea", attributedTo: mallory().id.href, inReplyTo: question.uri, to: ["https://kith.test/users/alice"] },
    });
    await settle();
    expect(updates()).toEqual([]);
    kith.clock.advance(5 * SECOND);
    await eventually(() => expect(updates()).toHaveLength(1));
    expect(updates()[0]?.votersCount).toBe(1);
    expect(talliesOf(updates()[0])).toEqual([1, 0]);

    // Bob and Carol vote here, close together: one Update carries both votes.
    for (const voter of [bob, carol]) {
      const voted = await kith.request("POST", `/api/v1/polls/${question.poll.id}/votes`, { token: voter.token, json: { choices: [1] } });
      expect(voted.status).toBe(200);
    }
    await settle();
    expect(updates()).toHaveLength(1);
    kith.clock.advance(5 * SECOND);
    await eventually(() => expect(updates()).toHaveLength(2));
    await settle();
    expect(updates()).toHaveLength(2);
    expect(updates()[1]?.votersCount).toBe(3);
    expect(talliesOf(updates()[1])).toEqual([1, 2]);
    expect(updates()[1]?.closed).toBeUndefined();

    // The poll ends: its results go out once more, closed.
    kith.clock.advance(3600 * SECOND);
    await settle();
    kith.clock.advance(5 * SECOND);
    await eventually(() => expect(updates()).toHaveLength(3));
    expect(updates()[2]?.closed).toBeTruthy();
    expect(talliesOf(updates()[2])).toEqual([1, 2]);
  });

  it("sends nothing for a vote that was not counted, nor for a poll with no remote audience", async () => {
    const created = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      json: { status: "Tea or coffee?", poll: { options: ["tea", "coffee"], expires_in: 3600 } },
    });
    const question = (await created.json()) as { poll: { id: string } };
    expect((await kith.request("POST", `/api/v1/polls/${question.poll.id}/votes`, { token: bob.token, json: { choices: [0] } })).status).toBe(200);
    expect((await kith.request("POST", `/api/v1/polls/${question.poll.id}/votes`, { token: bob.token, json: { choices: [1] } })).status).toBe(422);
    kith.clock.advance(5 * SECOND);
    await settle();
    expect(remote.received).toEqual([]);
  });
});
