/**
 * Mastodon's scheduled statuses: `scheduled_at` on `POST /api/v1/statuses`
 * keeps the status and answers a ScheduledStatus; the list, one, a new time
 * and a cancel at `/api/v1/scheduled_statuses`; Mastodon's lead time and
 * limits; and the status posted by the queue when the (fake) clock reaches
 * its time, through the usual posting path (a mention notifies).
 */
import { type QueueFactory, SqlQueue } from "@kith/core";
import { SCHEDULED_STATUS_PUBLISH_QUEUE } from "../../packages/core/src/modules/scheduled-statuses/index.js";
import type { TestKith, TestUser } from "@kith/core/testing";
import { eventually } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { insertCompletedMedia } from "../support/completed-media.js";
import { describeOnEngines } from "../support/engines.js";
import type { StatusBody } from "./statuses-support.js";

interface ScheduledBody {
  id: string;
  scheduled_at: string;
  params: {
    text: string;
    visibility: string | null;
    media_ids: string[] | null;
    poll: { options: string[]; expires_in: string; multiple: boolean } | null;
    in_reply_to_id: string | null;
    scheduled_at: null;
  };
  media_attachments: { id: string }[];
}

const MINUTE = 60_000;

describeOnEngines("scheduled statuses", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;
  let serial = 0;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("alice");
    bob = await kith.createUser("bob");
    await kith.start();
  });
  afterAll(() => kith.close());

  const at = (ms: number) => new Date(kith.clock.now().getTime() + ms).toISOString();
  const schedule = (user: TestUser, json: Record<string, unknown>) => kith.request("POST", "/api/v1/statuses", { token: user.token, json });
  const scheduleOk = async (user: TestUser, json: Record<string, unknown>): Promise<ScheduledBody> => {
    const response = await schedule(user, json);
    expect(response.status, await response.clone().text()).toBe(200);
    return (await response.json()) as ScheduledBody;
  };
  const own = async (user: TestUser, path = "/api/v1/scheduled_statuses") => kith.request("GET", path, { token: user.token });
  const statusesOf = async (user: TestUser) =>
    (await (await kith.request("GET", `/api/v1/accounts/${user.account.id}/statuses`, { token: user.token })).json()) as StatusBody[];

  it("keeps a status with scheduled_at and answers Mastodon's ScheduledStatus", async () => {
    const media = await insertCompletedMedia(kith, alice.account.id, `md_sched${++serial}`);
    const when = at(10 * MINUTE);
    const scheduled = await scheduleOk(alice, { status: "later", visibility: "unlisted", media_ids: [media], scheduled_at: when });
    expect(scheduled).toMatchObject({
      scheduled_at: when,
      params: { text: "later", visibility: "unlisted", media_ids: [media], poll: null, in_reply_to_id: null, scheduled_at: null },
    });
    expect(scheduled.id).toMatch(/^sd_/);
    expect(scheduled.media_attachments.map((attachment) => attachment.id)).toEqual([media]);
    // Nothing is posted yet, and the media stay unattached.
    expect((await statusesOf(alice)).map((status) => status.content)).not.toContain("<p>later</p>");
    const one = await own(alice, `/api/v1/scheduled_statuses/${scheduled.id}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(scheduled);
    // Another account's is not found.
    expect((await own(bob, `/api/v1/scheduled_statuses/${scheduled.id}`)).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v1/scheduled_statuses/${scheduled.id}`, { token: bob.token })).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v1/scheduled_statuses/${scheduled.id}`, { token: alice.token })).status).toBe(200);
    expect((await own(alice, `/api/v1/scheduled_statuses/${scheduled.id}`)).status).toBe(404);
  });

  it("answers the same Idempotency-Key with the same scheduled status, for an hour", async () => {
    const user = await kith.createUser("idempotent");
    const json = { status: "once", scheduled_at: at(2 * 60 * MINUTE) };
    const send = () => kith.request("POST", "/api/v1/statuses", { token: user.token, json, headers: { "idempotency-key": "k1" } });
    const first = (await (await send()).json()) as ScheduledBody & { params: { idempotency: string | null } };
    expect(first.params.idempotency).toBe("k1");
    expect(((await (await send()).json()) as ScheduledBody).id).toBe(first.id);
    expect(((await (await own(user)).json()) as ScheduledBody[]).map((entry) => entry.id)).toEqual([first.id]);
    kith.clock.advance(61 * MINUTE);
    const later = (await (await send()).json()) as ScheduledBody;
    expect(later.id).not.toBe(first.id);
    expect(((await (await own(user)).json()) as ScheduledBody[]).map((entry) => entry.id)).toEqual([later.id, first.id]);
  });

  it("keeps a poll's parameters", async () => {
    const scheduled = await scheduleOk(alice, {
      status: "which?",
      poll: { options: ["a", "b"], expires_in: 3600, multiple: true },
      scheduled_at: at(20 * MINUTE),
    });
    expect(scheduled.params.poll).toEqual({ options: ["a", "b"], expires_in: "3600", multiple: true, hide_totals: false });
    await kith.request("DELETE", `/api/v1/scheduled_statuses/${scheduled.id}`, { token: alice.token });
  });

  it("refuses a time under five minutes ahead, bad times and what posting would refuse", async () => {
    const soon = await schedule(alice, { status: "soon", scheduled_at: at(4 * MINUTE) });
    expect(soon.status).toBe(422);
    expect(await soon.json()).toMatchObject({ code: "scheduled_status.too_soon", details: [{ field: "scheduled_at" }] });
    expect((await schedule(alice, { status: "x", scheduled_at: "tomorrow-ish" })).status).toBe(422);
    expect((await schedule(alice, { status: "", scheduled_at: at(10 * MINUTE) })).status).toBe(422);
    // Unknown media, or another account's, as posting at once refuses them.
    const unknown = await schedule(alice, { status: "x", media_ids: ["md_nothere"], scheduled_at: at(10 * MINUTE) });
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as { code: string }).code).toBe("media.not_found");
    const bobsMedia = await insertCompletedMedia(kith, bob.account.id, `md_sched${++serial}`);
    expect((await schedule(alice, { status: "x", media_ids: [bobsMedia], scheduled_at: at(10 * MINUTE) })).status).toBe(422);
    expect((await schedule(alice, { status: "x", in_reply_to_id: "st_nothere", scheduled_at: at(10 * MINUTE) })).status).toBe(404);
    expect((await own(alice)).status).toBe(200);
    expect(await (await own(alice)).json()).toEqual([]);
  });

  it("posts at once a time already past, as Mastodon does", async () => {
    const response = await schedule(alice, { status: "past time", scheduled_at: at(-MINUTE) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as StatusBody;
    expect(body.content).toBe("<p>past time</p>");
  });

  it("pages the list with Link, newest first", async () => {
    const user = await kith.createUser("pager");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await scheduleOk(user, { status: `s${i}`, scheduled_at: at((10 + i) * MINUTE) })).id);
    const first = await own(user, "/api/v1/scheduled_statuses?limit=2");
    expect(((await first.json()) as ScheduledBody[]).map((entry) => entry.id)).toEqual([ids[2], ids[1]]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toContain(`max_id=${ids[1]}`);
    const rest = await own(user, new URL(next ?? "").pathname + new URL(next ?? "").search);
    expect(((await rest.json()) as ScheduledBody[]).map((entry) => entry.id)).toEqual([ids[0]]);
  });

  it("moves one to another time with PUT, under the same rules; only scheduled_at changes", async () => {
    const scheduled = await scheduleOk(alice, { status: "move me", scheduled_at: at(10 * MINUTE) });
    const path = `/api/v1/scheduled_statuses/${scheduled.id}`;
    const later = at(60 * MINUTE);
    const moved = await kith.request("PUT", path, { token: alice.token, json: { scheduled_at: later, status: "changed?" } });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ scheduled_at: later, params: { text: "move me" } });
    expect((await kith.request("PUT", path, { token: alice.token, json: { scheduled_at: at(MINUTE) } })).status).toBe(422);
    expect((await kith.request("PUT", path, { token: alice.token, json: { scheduled_at: "never" } })).status).toBe(422);
    expect((await kith.request("PUT", path, { token: alice.token, json: {} })).status).toBe(400);
    expect((await kith.request("PUT", path, { token: bob.token, json: { scheduled_at: later } })).status).toBe(404);
    // The job of the first time finds it moved and posts nothing then.
    kith.clock.advance(11 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await statusesOf(alice)).map((status) => status.content)).not.toContain("<p>move me</p>");
    kith.clock.advance(50 * MINUTE);
    await eventually(async () => expect((await statusesOf(alice)).map((status) => status.content)).toContain("<p>move me</p>"));
    expect((await own(alice, path)).status).toBe(404);
  });

  it("posts it when its time comes, through the usual path: media attached, mentions notified", async () => {
    const media = await insertCompletedMedia(kith, alice.account.id, `md_sched${++serial}`);
    const scheduled = await scheduleOk(alice, { status: "@bob on time", media_ids: [media], scheduled_at: at(6 * MINUTE) });
    kith.clock.advance(5 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await statusesOf(alice)).map((status) => status.text ?? status.content).join()).not.toContain("on time");
    kith.clock.advance(2 * MINUTE);
    const posted = await eventually(async () => {
      const found = (await statusesOf(alice)).find((status) => status.content.includes("on time"));
      expect(found).toBeDefined();
      return found as StatusBody;
    });
    expect(posted.media_attachments).toHaveLength(1);
    expect(posted.mentions.map((mention) => mention.id)).toEqual([bob.account.id]);
    await eventually(async () => {
      const notifications = (await (await kith.request("GET", "/api/v1/notifications", { token: bob.token })).json()) as {
        type: string;
        status?: { id: string };
      }[];
      expect(notifications.some((entry) => entry.type === "mention" && entry.status?.id === posted.id)).toBe(true);
    });
    expect((await own(alice, `/api/v1/scheduled_statuses/${scheduled.id}`)).status).toBe(404);
  });

  it("holds Mastodon's limits: 25 on one day, 300 in all", async () => {
    const user = await kith.createUser("limits");
    // Two days ahead, all on one UTC day.
    const day = new Date(kith.clock.now().getTime() + 2 * 24 * 60 * MINUTE);
    day.setUTCHours(1, 0, 0, 0);
    for (let i = 0; i < 25; i++)
      await scheduleOk(user, { status: `d${i}`, scheduled_at: new Date(day.getTime() + i * MINUTE).toISOString() });
    const over = await schedule(user, { status: "one more", scheduled_at: new Date(day.getTime() + 30 * MINUTE).toISOString() });
    expect(over.status).toBe(422);
    expect(((await over.json()) as { code: string }).code).toBe("scheduled_status.over_daily_limit");
    // Another day is fine, and moving one there is too.
    const nextDay = new Date(day.getTime() + 24 * 60 * MINUTE).toISOString();
    await scheduleOk(user, { status: "next day", scheduled_at: nextDay });
    // The total: rows written straight, 300 in all, spread over days.
    const now = kith.clock.now().toISOString();
    const rows = Array.from({ length: 274 }, (_, i) => ({
      id: `sd_fill${String(i).padStart(4, "0")}`,
      account_id: user.account.id,
      scheduled_at: new Date(day.getTime() + (i + 10) * 24 * 60 * MINUTE).toISOString(),
      params: JSON.stringify({ text: `f${i}` }),
      created_at: now,
    }));
    const db = kith.storage.db.withTables<{ scheduled_statuses: (typeof rows)[number] }>();
    await db.insertInto("scheduled_statuses").values(rows).execute();
    const total = await schedule(user, {
      status: "too many",
      scheduled_at: new Date(day.getTime() + 500 * 24 * 60 * MINUTE).toISOString(),
    });
    expect(total.status).toBe(422);
    expect(((await total.json()) as { code: string }).code).toBe("scheduled_status.over_total_limit");
    // Moving one of the 300 is no new one.
    const moved = await kith.request("PUT", "/api/v1/scheduled_statuses/sd_fill0000", {
      token: user.token,
      json: { scheduled_at: new Date(day.getTime() + 600 * 24 * 60 * MINUTE).toISOString() },
    });
    expect(moved.status).toBe(200);
  });

  it("is refused where the module is left out", async () => {
    const { defaultModules } = await import("@kith/core");
    const bare = await engine.testKith({ modules: defaultModules.filter((module) => module.name !== "scheduled-statuses") });
    try {
      const user = await bare.createUser("bare");
      const response = await bare.request("POST", "/api/v1/statuses", {
        token: user.token,
        json: { status: "x", scheduled_at: new Date(bare.clock.now().getTime() + 3_600_000).toISOString() },
      });
      expect(response.status).toBe(422);
      expect(((await response.json()) as { code: string }).code).toBe("status.scheduling_unsupported");
      expect((await bare.request("GET", "/api/v1/scheduled_statuses", { token: user.token })).status).toBe(404);
    } finally {
      await bare.close();
    }
  });
});

/** The queue a server keeps its jobs in: in memory, lost with the process (the start queues them again), or in the database. */
const QUEUES: [string, QueueFactory | undefined][] = [
  ["memory queue", undefined],
  ["SQL queue", ({ storage, clock, ids }) => new SqlQueue({ storage, clock, ids, pollIntervalMs: 5, heartbeatIntervalMs: 20 })],
];

describeOnEngines("scheduled statuses across a restart", (engine) => {
  it.each(QUEUES)("survive a restart of the server and are posted on time, once (%s)", async (_, queue) => {
    const database = await engine.database();
    try {
      const first = await database.testKith({ ...(queue && { queue }) });
      const alice = await first.createUser("alice");
      await first.start();
      const when = new Date(first.clock.now().getTime() + 30 * MINUTE);
      const response = await first.request("POST", "/api/v1/statuses", {
        token: alice.token,
        json: { status: "after the restart", scheduled_at: when.toISOString() },
      });
      expect(response.status).toBe(200);
      const { id } = (await response.json()) as ScheduledBody;
      await first.close();

      const second = await database.testKith({ ...(queue && { queue }) });
      second.clock.set(first.clock.now());
      await second.start();
      try {
        const listed = await second.request("GET", "/api/v1/scheduled_statuses", { token: alice.token });
        expect(((await listed.json()) as ScheduledBody[]).map((entry) => entry.id)).toEqual([id]);
        // One job waits for it, whether the queue kept the first or the start queued it again.
        const waiting = await second.queue.list({ queue: SCHEDULED_STATUS_PUBLISH_QUEUE, status: "schedule", limit: 10 });
        expect(waiting.map((job) => job.payload)).toEqual([{ id, scheduledAt: when.toISOString() }]);
        second.clock.advance(31 * MINUTE);
        await eventually(async () => {
          expect((await second.request("GET", `/api/v1/scheduled_statuses/${id}`, { token: alice.token })).status).toBe(404);
          const statuses = (await (
            await second.request("GET", `/api/v1/accounts/${alice.account.id}/statuses`, { token: alice.token })
          ).json()) as StatusBody[];
          expect(statuses.map((status) => status.content)).toEqual(["<p>after the restart</p>"]);
        });
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});
