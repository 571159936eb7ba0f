import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type StatusBody, follow, get, post } from "./statuses-support.js";

type PollBody = NonNullable<StatusBody["poll"]>;

describeOnEngines("polls", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    carol = await kith.createUser("carol");
  });
  afterAll(() => kith.close());

  const vote = (user: TestUser, pollId: string, choices: unknown) =>
    kith.request("POST", `/api/v1/polls/${pollId}/votes`, { token: user.token, json: { choices } });

  it("creates a poll from Rails-style form keys", async () => {
    const response = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      body: new URLSearchParams([
        ["status", "Which?"],
        ["poll[options][]", "Tea"],
        ["poll[options][]", "Coffee"],
        ["poll[expires_in]", "3600"],
        ["poll[multiple]", "true"],
      ]),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(200);
    const status = (await response.json()) as StatusBody;
    expect(status.poll).toMatchObject({
      expired: false,
      multiple: true,
      votes_count: 0,
      voters_count: 0,
      voted: true,
      own_votes: [],
      options: [
        { title: "Tea", votes_count: 0 },
        { title: "Coffee", votes_count: 0 },
      ],
    });
  });

  it("refuses bad polls with 422", async () => {
    const cases = [
      { options: ["only one"], expires_in: 3600 },
      { options: ["a", "b", "c", "d", "e"], expires_in: 3600 },
      { options: ["a", "a"], expires_in: 3600 },
      { options: ["a", "b"], expires_in: 10 },
      { options: ["a", "x".repeat(51)], expires_in: 3600 },
    ];
    for (const poll of cases) {
      const response = await kith.request("POST", "/api/v1/statuses", { token: alice.token, json: { status: "poll", poll } });
      expect(response.status).toBe(422);
    }
  });

  it("takes one vote per account: single choice, never one's own, never twice", async () => {
    const status = await post(kith, alice, { status: "single", poll: { options: ["Yes", "No"], expires_in: 3600 } });
    const pollId = status.poll?.id ?? "";
    expect((await vote(alice, pollId, [0])).status).toBe(422);
    expect((await vote(bob, pollId, [0, 1])).status).toBe(422);
    expect((await vote(bob, pollId, [5])).status).toBe(422);
    const voted = await vote(bob, pollId, [1]);
    expect(voted.status).toBe(200);
    expect(await voted.json()).toMatchObject({ voted: true, own_votes: [1], votes_count: 1, voters_count: null });
    expect((await vote(bob, pollId, [0])).status).toBe(422);
    const seen = (await (await get(kith, `/api/v1/polls/${pollId}`, carol.token)).json()) as PollBody;
    expect(seen).toMatchObject({ voted: false, own_votes: [] });
    expect(seen.options.map((o) => o.votes_count)).toEqual([0, 1]);
    const guest = (await (await get(kith, `/api/v1/polls/${pollId}`)).json()) as PollBody;
    expect(guest.voted).toBeUndefined();
    expect((await vote(bob, "po_00000000000000000000000000", [0])).status).toBe(404);
    expect((await kith.request("POST", `/api/v1/polls/${pollId}/votes`, { json: { choices: [0] } })).status).toBe(401);
  });

  it("counts voters and votes on multiple-choice polls, and hides totals until the end when asked", async () => {
    const status = await post(kith, alice, {
      status: "multi",
      poll: { options: ["A", "B", "C"], expires_in: 3600, multiple: true, hide_totals: true },
    });
    const pollId = status.poll?.id ?? "";
    await vote(bob, pollId, [0, 2]);
    const afterVote = (await (await vote(carol, pollId, [2])).json()) as PollBody;
    expect(afterVote.votes_count).toBe(3);
    expect(afterVote.voters_count).toBe(2);
    expect(afterVote.options.map((o) => o.votes_count)).toEqual([null, null, null]);
    const forAuthor = (await (await get(kith, `/api/v1/polls/${pollId}`, alice.token)).json()) as PollBody;
    expect(forAuthor.options.map((o) => o.votes_count)).toEqual([1, 0, 2]);
  });

  it("ends: expired polls refuse votes, and the close job sets closed_at and announces it once", async () => {
    const status = await post(kith, alice, { status: "ends", poll: { options: ["A", "B"], expires_in: 300 } });
    const pollId = status.poll?.id ?? "";
    const jobs = await kith.queue.list({ queue: "polls.close", limit: 100 });
    expect(jobs.map((job) => job.payload)).toContainEqual({ pollId });
    const closed: string[] = [];
    kith.services.events.on("poll.closed", (event) => {
      closed.push(event.pollId);
    });
    expect(await kith.services.polls.close(pollId)).toBe(false);
    kith.clock.advance(301_000);
    expect((await vote(bob, pollId, [0])).status).toBe(422);
    const expired = (await (await get(kith, `/api/v1/polls/${pollId}`)).json()) as PollBody;
    expect(expired.expired).toBe(true);
    expect(await kith.services.polls.close(pollId)).toBe(true);
    expect(await kith.services.polls.close(pollId)).toBe(false);
    expect(closed).toEqual([pollId]);
    const row = await kith.storage.db.selectFrom("polls").select("closed_at").where("id", "=", pollId).executeTakeFirstOrThrow();
    expect(row.closed_at).not.toBeNull();
  });

  it("hides the poll of a post the caller may not see", async () => {
    const status = await post(kith, alice, { status: "secret", visibility: "private", poll: { options: ["A", "B"], expires_in: 3600 } });
    const pollId = status.poll?.id ?? "";
    expect((await get(kith, `/api/v1/polls/${pollId}`, carol.token)).status).toBe(404);
    expect((await vote(carol, pollId, [0])).status).toBe(404);
    await follow(kith, carol, alice);
    expect((await vote(carol, pollId, [0])).status).toBe(200);
  });

  it("replaces the poll when an edit changes its options", async () => {
    const status = await post(kith, alice, { status: "edit poll", poll: { options: ["A", "B"], expires_in: 3600 } });
    await vote(bob, status.poll?.id ?? "", [0]);
    const edited = await kith.request("PUT", `/api/v1/statuses/${status.id}`, {
      token: alice.token,
      json: { status: "edit poll", poll: { options: ["A", "B", "C"], expires_in: 3600 } },
    });
    expect(edited.status).toBe(200);
    const body = (await edited.json()) as StatusBody;
    expect(body.poll?.options.map((o) => o.title)).toEqual(["A", "B", "C"]);
    expect(body.poll?.votes_count).toBe(0);
    const history = (await (await get(kith, `/api/v1/statuses/${status.id}/history`)).json()) as {
      poll: { options: { title: string }[] };
    }[];
    expect(history.map((h) => h.poll.options.length)).toEqual([2, 3]);
  });
});
