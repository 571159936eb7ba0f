import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KithError, MemoryQueue, type QueueFactory, SqlQueue } from "@kith/core";
import { KV_PRUNE_QUEUE } from "../../packages/core/src/platform/federation/kv-pruning.js";
import { UNFINISHED_REACTIONS_QUEUE } from "../../packages/core/src/modules/statuses/pending-status-reactions.js";
import { GROUP_JOIN_TOKENS_PRUNE_QUEUE } from "../../packages/core/src/modules/groups/index.js";
import { type TestKith, type TestUser, eventually } from "@kith/core/testing";
import { type Engine, describeOnEngines } from "../support/engines.js";

interface JobJson {
  id: string;
  queue: string;
  status: string;
  payload: unknown;
  rawPayload: string | null;
  tries: number;
  maxAttempts: number;
  runAt: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  lastError: string | null;
}

const ENDPOINTS: readonly (readonly [method: string, path: string])[] = [
  ["GET", "/api/v1/jobs/lists?queue=mail&status=failed"],
  ["GET", "/api/v1/jobs/dlq"],
  ["GET", "/api/v1/jobs/list-jobs"],
  ["GET", "/api/v1/jobs/list-stats?queue=mail"],
  ["GET", "/api/v1/jobs/list-stats-all"],
  ["GET", "/api/v1/jobs/stats"],
  ["GET", "/api/v1/jobs/stats-per-day?days=7"],
  ["GET", "/api/v1/jobs/summary"],
  ["GET", "/api/v1/jobs/workers"],
  ["PATCH", "/api/v1/jobs/workers/mail"],
  ["GET", "/api/v1/jobs/processes"],
  ["GET", "/api/v1/jobs/redis-info"],
  ["POST", "/api/v1/jobs/retry"],
  ["POST", "/api/v1/jobs/retry-all"],
  ["DELETE", "/api/v1/jobs/job?id=jb_00000000000000000000000000"],
  ["DELETE", "/api/v1/jobs/clear?queue=mail&status=failed"],
];

const WRITES = new Set(["POST", "PATCH", "DELETE"]);

/** The API over the in-memory reference queue and over the durable SQL queue the server uses. */
const QUEUES: readonly (readonly [name: string, factory: QueueFactory])[] = [
  ["memory queue", ({ clock, ids }) => new MemoryQueue({ clock, ids, pollIntervalMs: 5 })],
  ["SQL queue", ({ storage, clock, ids }) => new SqlQueue({ storage, clock, ids, pollIntervalMs: 5, heartbeatIntervalMs: 20 })],
];

describeOnEngines("jobs admin API", (engine) => {
  // The memory queue keeps nothing in the database, so one engine shows it.
  const queues = engine.name === "sqlite" ? QUEUES : QUEUES.filter(([name]) => name !== "memory queue");
  describe.each(queues)("on the %s", (queueName, queueFactory) => jobsSuite(engine, queueName, queueFactory));
});

function jobsSuite(engine: Engine, queueName: string, queueFactory: QueueFactory): void {
  let kith: TestKith;
  let admin: TestUser;
  /** Lets the jobs of the "held" queue finish. */
  let release: () => void;

  beforeEach(async () => {
    kith = await engine.testKith({ queue: queueFactory });
    admin = await kith.createUser("admin", { role: "Admin" });
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    kith.queue.handle("mail", async (payload) => {
      if ((payload as { fail?: boolean }).fail) throw new Error("mail server down");
    });
    kith.queue.handle("strict", async () => {
      throw new KithError("job.unreadable_payload", { message: "missing field 'to'" });
    });
    kith.queue.handle("held", () => held, { description: "Waits for the test" });
  });
  afterEach(async () => {
    release();
    await kith.close();
  });

  const get = async (path: string, token = admin.token): Promise<Response> => kith.request("GET", path, { token });
  const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;
  const statusOf = async (id: string): Promise<string | undefined> => (await kith.queue.get(id))?.status;

  /** A finished, a failed, a scheduled job on "mail", a dead letter on "strict", and an active one on "held". */
  async function seed(): Promise<{ finished: string; failed: string; scheduled: string; dead: string; active: string }> {
    await kith.start();
    // The server's own repeating jobs (pruning federation entries and groups' join tokens, running cut-short
    // reactions to new posts again), scheduled at start, are not the test's.
    await kith.queue.unschedule(KV_PRUNE_QUEUE);
    await kith.queue.unschedule(UNFINISHED_REACTIONS_QUEUE);
    await kith.queue.unschedule(GROUP_JOIN_TOKENS_PRUNE_QUEUE);
    const finished = (await kith.queue.enqueue("mail", { to: "a@kith.test" })).id;
    const failed = (await kith.queue.enqueue("mail", { fail: true }, { maxAttempts: 1 })).id;
    const scheduled = (await kith.queue.enqueue("mail", { to: "later@kith.test" }, { delayMs: 60_000 })).id;
    const dead = (await kith.queue.enqueue("strict", { wrong: true })).id;
    const active = (await kith.queue.enqueue("held", { n: 1 })).id;
    await eventually(async () => {
      expect(await statusOf(finished)).toBe("finished");
      expect(await statusOf(failed)).toBe("failed");
      expect(await statusOf(dead)).toBe("dlq");
      expect(await statusOf(active)).toBe("active");
    });
    return { finished, failed, scheduled, dead, active };
  }

  describe("access", () => {
    it.each(ENDPOINTS)("%s %s without a token is 401", async (method, path) => {
      const response = await kith.request(method, path, WRITES.has(method) ? { json: {} } : {});
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "auth.unauthenticated" });
    });

    it.each(ENDPOINTS)("%s %s as a plain User is 403", async (method, path) => {
      const user = await kith.createUser("plain");
      const response = await kith.request(method, path, { token: user.token, ...(WRITES.has(method) && { json: { queue: "mail" } }) });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "auth.forbidden" });
    });

    it("refuses a write with a token lacking admin:write, even for an Admin", async () => {
      const reader = await kith.createUser("reader", { role: "Admin", scopes: ["admin:read"] });
      expect((await get("/api/v1/jobs/workers", reader.token)).status).toBe(200);
      const response = await kith.request("POST", "/api/v1/jobs/retry-all", { token: reader.token, json: { queue: "mail" } });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "auth.insufficient_scope" });
    });
  });

  describe("GET /api/v1/jobs/lists", () => {
    it("lists the jobs of one queue in one status, as job JSON", async () => {
      const jobs = await seed();
      const response = await get("/api/v1/jobs/lists?queue=mail&status=failed");
      expect(response.status).toBe(200);
      const body = await json<JobJson[]>(response);
      expect(body.map((job) => job.id)).toEqual([jobs.failed]);
      expect(body[0]).toMatchObject({
        queue: "mail",
        status: "failed",
        payload: { fail: true },
        rawPayload: null,
        tries: 1,
        maxAttempts: 1,
        lastError: expect.stringContaining("mail server down"),
      });
      expect(Object.keys(body[0] ?? {}).sort()).toEqual(
        [
          "createdAt",
          "deduplicationKey",
          "finishedAt",
          "id",
          "lastError",
          "maxAttempts",
          "orderingKey",
          "payload",
          "queue",
          "rawPayload",
          "runAt",
          "startedAt",
          "status",
          "tries",
        ].sort(),
      );
      const scheduled = await json<JobJson[]>(await get("/api/v1/jobs/lists?queue=mail&status=schedule"));
      expect(scheduled.map((job) => job.id)).toEqual([jobs.scheduled]);
      const active = await json<JobJson[]>(await get("/api/v1/jobs/lists?queue=held&status=active"));
      expect(active.map((job) => job.id)).toEqual([jobs.active]);
    });

    it("pages newest first with a next link in the Link header", async () => {
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) ids.push((await kith.queue.enqueue("mail", { n }, { delayMs: 60_000 })).id);
      const newestFirst = [...ids].reverse();
      const first = await get("/api/v1/jobs/lists?queue=mail&status=schedule&limit=2");
      expect((await json<JobJson[]>(first)).map((job) => job.id)).toEqual(newestFirst.slice(0, 2));
      const link = first.headers.get("link") ?? "";
      expect(link).toMatch(/rel="next"/);
      expect(link).not.toMatch(/rel="prev"/);
      const next = new URL(/<([^>]+)>; rel="next"/.exec(link)?.[1] ?? "");
      expect(next.searchParams.get("max_id")).toBe(newestFirst[1]);
      expect(next.searchParams.get("queue")).toBe("mail");
      const second = await get(`${next.pathname}${next.search}`);
      expect((await json<JobJson[]>(second)).map((job) => job.id)).toEqual(newestFirst.slice(2, 4));
      const lastUrl = new URL(/<([^>]+)>; rel="next"/.exec(second.headers.get("link") ?? "")?.[1] ?? "");
      const last = await get(`${lastUrl.pathname}${lastUrl.search}`);
      expect((await json<JobJson[]>(last)).map((job) => job.id)).toEqual(newestFirst.slice(4));
      expect(last.headers.get("link")).toBeNull();
    });

    it("refuses an unknown status with 422 and a missing queue with 400", async () => {
      const unknown = await get("/api/v1/jobs/lists?queue=mail&status=sleeping");
      expect(unknown.status).toBe(422);
      expect(await unknown.json()).toMatchObject({
        code: "request.validation_failed",
        details: [expect.objectContaining({ field: "query.status" })],
      });
      const missing = await get("/api/v1/jobs/lists?status=failed");
      expect(missing.status).toBe(400);
      expect(await missing.json()).toMatchObject({ code: "request.invalid_parameters" });
    });
  });

  describe("GET /api/v1/jobs/dlq", () => {
    it("lists dead letters with their stored payload, of all queues or one", async () => {
      const jobs = await seed();
      const body = await json<JobJson[]>(await get("/api/v1/jobs/dlq"));
      expect(body.map((job) => job.id)).toEqual([jobs.dead]);
      expect(body[0]).toMatchObject({
        status: "dlq",
        queue: "strict",
        tries: 1,
        rawPayload: '{"wrong":true}',
        lastError: expect.stringContaining("missing field 'to'"),
      });
      expect(await json<JobJson[]>(await get("/api/v1/jobs/dlq?queue=mail"))).toEqual([]);
      expect((await get("/api/v1/jobs/dlq?limit=abc")).status).toBe(400);
    });
  });

  describe("GET /api/v1/jobs/list-jobs", () => {
    it("lists jobs of every queue and status, newest first, paginated", async () => {
      const jobs = await seed();
      const all = await json<JobJson[]>(await get("/api/v1/jobs/list-jobs"));
      expect(all.map((job) => job.id)).toEqual([jobs.active, jobs.dead, jobs.scheduled, jobs.failed, jobs.finished]);
      const page = await get("/api/v1/jobs/list-jobs?limit=3");
      expect((await json<JobJson[]>(page)).length).toBe(3);
      expect(page.headers.get("link")).toContain(`max_id=${jobs.scheduled}`);
      const rest = await json<JobJson[]>(await get(`/api/v1/jobs/list-jobs?max_id=${jobs.scheduled}`));
      expect(rest.map((job) => job.id)).toEqual([jobs.failed, jobs.finished]);
    });
  });

  describe("counts and statistics", () => {
    it("GET list-stats counts one queue's jobs per status", async () => {
      await seed();
      const response = await get("/api/v1/jobs/list-stats?queue=mail");
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        queue: "mail",
        submitted: 0,
        schedule: 1,
        retries: 0,
        active: 0,
        finished: 1,
        failed: 1,
        dlq: 0,
      });
      expect(await json(await get("/api/v1/jobs/list-stats?queue=nothing-here"))).toMatchObject({ queue: "nothing-here", finished: 0 });
      expect((await get("/api/v1/jobs/list-stats")).status).toBe(400);
    });

    it("GET list-stats-all counts every queue's jobs per status", async () => {
      await seed();
      expect(await json(await get("/api/v1/jobs/list-stats-all"))).toEqual({
        submitted: 0,
        schedule: 1,
        retries: 0,
        active: 1,
        finished: 1,
        failed: 1,
        dlq: 1,
      });
    });

    it("GET stats totals finished and failed jobs, and per queue", async () => {
      await seed();
      const body = await json<{ finished: number; failed: number; queues: { queue: string; finished: number; failed: number }[] }>(
        await get("/api/v1/jobs/stats"),
      );
      expect(body).toMatchObject({ finished: 1, failed: 1 });
      expect(body.queues).toEqual(
        expect.arrayContaining([
          { queue: "mail", finished: 1, failed: 1 },
          { queue: "held", finished: 0, failed: 0 },
        ]),
      );
    });

    it("GET stats-per-day reports the last days, today last, optionally of one queue", async () => {
      await seed();
      const today = kith.clock.now().toISOString().slice(0, 10);
      const week = await json<{ day: string; finished: number; failed: number }[]>(await get("/api/v1/jobs/stats-per-day"));
      expect(week.length).toBe(7);
      expect(week.at(-1)).toEqual({ day: today, finished: 1, failed: 2 });
      expect(week[0]?.day).toBe(new Date(kith.clock.now().getTime() - 6 * 86_400_000).toISOString().slice(0, 10));
      const strict = await json<unknown[]>(await get("/api/v1/jobs/stats-per-day?days=2&queue=strict"));
      expect(strict).toEqual([expect.objectContaining({ finished: 0, failed: 0 }), { day: today, finished: 0, failed: 1 }]);
    });

    it.each(["0", "91", "-3"])("GET stats-per-day with days=%s is 422", async (days) => {
      const response = await get(`/api/v1/jobs/stats-per-day?days=${days}`);
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({ code: "request.validation_failed" });
    });

    it("GET stats-per-day with days that is not a number is 400", async () => {
      expect((await get("/api/v1/jobs/stats-per-day?days=many")).status).toBe(400);
    });

    it("GET summary shows a queue whose jobs wait to be retried, with how the newest last failed", async () => {
      await seed();
      const retried = (await kith.queue.enqueue("mail", { fail: true }, { maxAttempts: 5, backoff: { baseMs: 60_000 } })).id;
      await eventually(async () => expect(await statusOf(retried)).toBe("retries"));
      const body = await json<{ queue: string; lastFailure: unknown }[]>(await get("/api/v1/jobs/summary"));
      expect(body.find((entry) => entry.queue === "mail")?.lastFailure).toEqual({ jobId: retried, tries: 1, error: expect.stringContaining("mail server down") });
      expect(body.find((entry) => entry.queue === "held")?.lastFailure).toBeNull();
    });

    it("GET summary gives each queue's counts, latency and worker configuration", async () => {
      await seed();
      await kith.queue.configureQueue("mail", { enabled: false });
      await kith.queue.enqueue("mail", { to: "waiting@kith.test" });
      kith.clock.advance(5_000);
      const body = await json<{ queue: string; counts: Record<string, number>; latencyMs: number | null; worker: unknown }[]>(
        await get("/api/v1/jobs/summary"),
      );
      const mail = body.find((entry) => entry.queue === "mail");
      expect(mail).toMatchObject({
        counts: { submitted: 1, finished: 1, failed: 1 },
        latencyMs: 5_000,
        lastFailure: null,
        worker: { name: "mail", enabled: false, concurrency: 1, maxRetries: 4, description: "" },
      });
      expect(body.find((entry) => entry.queue === "held")).toMatchObject({
        counts: { active: 1 },
        latencyMs: null,
        worker: { description: "Waits for the test" },
      });
    });
  });

  describe("workers, processes and the backend", () => {
    it("GET workers lists each queue's configuration", async () => {
      const body = await json<unknown[]>(await get("/api/v1/jobs/workers"));
      expect(body).toEqual(
        expect.arrayContaining([{ name: "held", description: "Waits for the test", maxRetries: 4, concurrency: 1, enabled: true }]),
      );
    });

    it("PATCH workers/{queue} changes the given fields, and the worker applies them", async () => {
      const response = await kith.request("PATCH", "/api/v1/jobs/workers/mail", {
        token: admin.token,
        json: { enabled: false, concurrency: 3 },
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ name: "mail", description: "", maxRetries: 4, concurrency: 3, enabled: false });
      await kith.start();
      const job = await kith.queue.enqueue("mail", {});
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await statusOf(job.id)).toBe("submitted");
      const form = await kith.request("PATCH", "/api/v1/jobs/workers/mail", { token: admin.token, form: { enabled: "true" } });
      expect(await form.json()).toMatchObject({ enabled: true, concurrency: 3 });
      await eventually(async () => expect(await statusOf(job.id)).toBe("finished"));
    });

    it("PATCH workers/{queue} refuses bad values, unknown fields and unknown queues", async () => {
      const patch = (path: string, body: unknown) => kith.request("PATCH", path, { token: admin.token, json: body });
      expect((await patch("/api/v1/jobs/workers/mail", { maxRetries: -1 })).status).toBe(422);
      expect((await patch("/api/v1/jobs/workers/mail", { concurrency: 0 })).status).toBe(422);
      expect((await patch("/api/v1/jobs/workers/mail", { speed: 11 })).status).toBe(400);
      const unknown = await patch("/api/v1/jobs/workers/no-such-queue", { enabled: false });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: "queue.not_found" });
      expect((await kith.queue.queues()).find((entry) => entry.name === "mail")).toMatchObject({ maxRetries: 4, concurrency: 1 });
    });

    it("GET processes lists this process while its workers run", async () => {
      expect(await json(await get("/api/v1/jobs/processes"))).toEqual([]);
      await kith.start();
      const body = await json<{ hostname: string; pid: number; lastHeartbeatAt: string }[]>(await get("/api/v1/jobs/processes"));
      expect(body).toEqual([
        {
          id: expect.any(String),
          hostname: expect.any(String),
          pid: process.pid,
          startedAt: expect.any(String),
          lastHeartbeatAt: expect.any(String),
        },
      ]);
    });

    it("GET redis-info describes the store behind the queue", async () => {
      const body = await json<Record<string, unknown>>(await get("/api/v1/jobs/redis-info"));
      expect(body).toMatchObject({
        kind: "embedded",
        engine: queueName === "memory queue" ? "memory" : engine.name,
        version: expect.stringMatching(/\d/),
      });
      expect(Object.keys(body).sort()).toEqual(["engine", "kind", "sizeBytes", "version"]);
      // Unknown for memory and for a SQLite database in memory; the size of the file otherwise.
      expect(body.sizeBytes === null || typeof body.sizeBytes === "number").toBe(true);
    });
  });

  describe("transitions", () => {
    it("POST retry moves a failed job to submitted with its tries reset to 0", async () => {
      const jobs = await seed();
      await kith.queue.configureQueue("mail", { enabled: false });
      const response = await kith.request("POST", "/api/v1/jobs/retry", { token: admin.token, json: { id: jobs.failed } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: jobs.failed, status: "submitted", tries: 0, finishedAt: null });
      expect(await kith.queue.get(jobs.failed)).toMatchObject({ status: "submitted", tries: 0 });
    });

    it("POST retry takes a dead letter back too", async () => {
      const jobs = await seed();
      const response = await kith.request("POST", "/api/v1/jobs/retry", { token: admin.token, form: { id: jobs.dead } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: jobs.dead, tries: 0 });
    });

    it("POST retry refuses a job that is not failed (409), an unknown job (404) and a missing id (400)", async () => {
      const jobs = await seed();
      const retry = (body: unknown) => kith.request("POST", "/api/v1/jobs/retry", { token: admin.token, json: body });
      for (const id of [jobs.finished, jobs.scheduled, jobs.active]) {
        const response = await retry({ id });
        expect(response.status).toBe(409);
        expect(await response.json()).toMatchObject({ code: "job.not_retryable" });
      }
      const unknown = await retry({ id: "jb_00000000000000000000000000" });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: "job.not_found" });
      expect((await retry({})).status).toBe(400);
    });

    it("POST retry-all moves every failed job of a queue back, tries reset", async () => {
      await kith.start();
      const failed = await Promise.all([1, 2, 3].map((n) => kith.queue.enqueue("mail", { n, fail: true }, { maxAttempts: 1 })));
      await eventually(async () => expect((await kith.queue.counts("mail")).failed).toBe(3));
      await kith.queue.configureQueue("mail", { enabled: false });
      const response = await kith.request("POST", "/api/v1/jobs/retry-all", { token: admin.token, json: { queue: "mail" } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ queue: "mail", retried: 3 });
      for (const job of failed) expect(await kith.queue.get(job.id)).toMatchObject({ status: "submitted", tries: 0 });
      expect(await json(await kith.request("POST", "/api/v1/jobs/retry-all", { token: admin.token, json: { queue: "mail" } }))).toEqual({
        queue: "mail",
        retried: 0,
      });
      expect((await kith.request("POST", "/api/v1/jobs/retry-all", { token: admin.token, json: {} })).status).toBe(400);
    });

    it("DELETE job deletes a job of any status but active", async () => {
      const jobs = await seed();
      for (const id of [jobs.finished, jobs.failed, jobs.scheduled, jobs.dead]) {
        const response = await kith.request("DELETE", `/api/v1/jobs/job?id=${id}`, { token: admin.token });
        expect(response.status).toBe(204);
        expect(await kith.queue.get(id)).toBeNull();
      }
      const active = await kith.request("DELETE", `/api/v1/jobs/job?id=${jobs.active}`, { token: admin.token });
      expect(active.status).toBe(409);
      expect(await active.json()).toMatchObject({ code: "job.active" });
      expect(await statusOf(jobs.active)).toBe("active");
      const gone = await kith.request("DELETE", `/api/v1/jobs/job?id=${jobs.finished}`, { token: admin.token });
      expect(gone.status).toBe(404);
      expect(await gone.json()).toMatchObject({ code: "job.not_found" });
      expect((await kith.request("DELETE", "/api/v1/jobs/job", { token: admin.token })).status).toBe(400);
    });

    it("DELETE clear removes every job of a queue in one status, and refuses active ones", async () => {
      const jobs = await seed();
      await kith.queue.enqueue("mail", { n: 2 }, { delayMs: 60_000 });
      const response = await kith.request("DELETE", "/api/v1/jobs/clear?queue=mail&status=schedule", { token: admin.token });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ queue: "mail", status: "schedule", removed: 2 });
      expect(await kith.queue.get(jobs.scheduled)).toBeNull();
      expect(await statusOf(jobs.finished)).toBe("finished");
      const active = await kith.request("DELETE", "/api/v1/jobs/clear?queue=held&status=active", { token: admin.token });
      expect(active.status).toBe(409);
      expect(await active.json()).toMatchObject({ code: "job.active" });
      expect(await statusOf(jobs.active)).toBe("active");
      expect((await kith.request("DELETE", "/api/v1/jobs/clear?queue=mail&status=everything", { token: admin.token })).status).toBe(422);
    });
  });
}

