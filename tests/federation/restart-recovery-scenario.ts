/**
 * The scenario of the restart-recovery suites: a server killed with jobs
 * waiting comes back and works them all, with no request sent to it. Two
 * servers as processes: B's bob follows A's alice and alice follows bob. B
 * goes down; alice posts, so A's delivery to B waits for a retry; A is killed
 * (SIGKILL). B comes back, then A, and nothing but A's own workers touch A:
 * the delivery goes on its next attempt. Then the same with a job queued,
 * while A is down, on every queue A handles, one attempt each, so that any
 * attempt lost to the restart fails its job for good: every job finishes, on
 * its first attempt, within a minute.
 */
import { rmSync } from "node:fs";
import { expect } from "vitest";
import { accountWithToken, call, eventually } from "../support/federation-api.js";
import { type InstanceRoles, type TestCa, type TestInstance, makeTestCa, startInstance } from "../support/federation-harness.js";
import type { EngineName } from "../support/engines.js";

type Json = Record<string, unknown>;
type JobSummary = { id: string; queue: string; status: string; tries: number; lastError: string | null };

/** What A's queues must all have worked by then. */
const MINUTE = 60_000;

/** Runs the probe on A's data; its answer as JSON. */
async function probe<T>(instance: TestInstance, ...args: string[]): Promise<T> {
  return JSON.parse(await instance.runScript("queue-probe.ts", args)) as T;
}

async function resolveAccount(instance: TestInstance, token: string, handle: string): Promise<string> {
  const response = await call(instance, token, "GET", `/api/v2/search?q=${encodeURIComponent(handle)}&resolve=true&type=accounts`);
  const [account] = (response.body as { accounts: Json[] }).accounts;
  if (!account) throw new Error(`${handle} not found: ${JSON.stringify(response.body)}`);
  return account.id as string;
}

async function follow(instance: TestInstance, token: string, handle: string): Promise<void> {
  const id = await resolveAccount(instance, token, handle);
  await call(instance, token, "POST", `/api/v1/accounts/${id}/follow`);
  const relationship = await eventually(
    async () => ((await call(instance, token, "GET", `/api/v1/accounts/relationships?id[]=${id}`)).body as Json[])[0],
    (rel) => rel?.following === true,
  );
  expect(relationship).toMatchObject({ following: true });
}

async function homeTexts(instance: TestInstance, token: string): Promise<string[]> {
  const response = await call(instance, token, "GET", "/api/v1/timelines/home?limit=40");
  return (response.body as Json[]).map((status) => String(status.content));
}

const instances: TestInstance[] = [];
let ca: TestCa | undefined;

/** Stops the scenario's servers and removes their data; call it after each case. */
export async function stopScenarioServers(): Promise<void> {
  await Promise.all(instances.splice(0).map((instance) => instance.stop()));
  if (ca) rmSync(ca.dir, { recursive: true, force: true });
  ca = undefined;
}

/** B goes down and alice posts: A's delivery to B fails and waits for a retry; then A is killed. Its delivery jobs, as the kill left them. */
async function deliveryWaitsWhenKilled(a: TestInstance, b: TestInstance, token: string, text: string): Promise<JobSummary[]> {
  await b.kill("SIGTERM");
  const posted = await call(a, token, "POST", "/api/v1/statuses", { status: text });
  expect(posted.status).toBe(200);
  const waiting = await eventually(
    () => probe<JobSummary[]>(a, "list", "federation", "retries"),
    (jobs) => jobs.length > 0,
  );
  expect(waiting.length).toBeGreaterThan(0);
  await a.kill("SIGKILL");
  // Their attempts so far, as the kill left them (one may have been under way).
  return probe<JobSummary[]>(a, "get", JSON.stringify(waiting.map((job) => job.id)));
}

/**
 * B and then A come back, and nothing but A's own workers touch A: every job of `ids` finishes within a minute, the
 * deliveries on one attempt more than `delivery` had, every other job on its first; none of A's jobs fails; the post
 * `text` reaches bob, once.
 */
async function allFinishAfterRestart(
  a: TestInstance,
  b: TestInstance,
  bobToken: string,
  ids: readonly string[],
  delivery: readonly JobSummary[],
  text: string,
): Promise<void> {
  await b.restart();
  await a.restart();
  const done = await eventually(
    () => probe<JobSummary[]>(a, "get", JSON.stringify(ids)),
    (records) => records.every((job) => job?.status === "finished"),
    MINUTE,
  );
  expect(done.map((job) => [job.queue, job.status])).toEqual(done.map((job) => [job.queue, "finished"]));
  for (const job of done) {
    const before = delivery.find((waited) => waited.id === job.id);
    expect(job.tries, `${job.queue} ${job.id}`).toBe(before ? before.tries + 1 : 1);
  }
  expect(await probe<JobSummary[]>(a, "failed")).toEqual([]);
  const texts = await eventually(
    () => homeTexts(b, bobToken),
    (list) => list.some((content) => content.includes(text)),
  );
  expect(texts.filter((content) => content.includes(text))).toHaveLength(1);
}

/** The scenario, with A on `engine` and `env` (its queue) as `roles`. */
export async function killedWithJobsWaiting(engine: EngineName, env: Record<string, string>, roles: InstanceRoles): Promise<void> {
  ca = makeTestCa();
  // A retries a failed delivery after a second or two, so the one waiting for B comes due soon after A is back.
  const [a, b] = await Promise.all([
    startInstance("a", ca, { ...env, KITH_DELIVERY_RETRY_BASE_SECONDS: "2" }, roles, engine),
    startInstance("b", ca, {}),
  ]);
  instances.push(a, b);
  const [alice, bob] = await Promise.all([accountWithToken(a, "alice"), accountWithToken(b, "bob")]);
  await follow(b, bob.token, `@alice@${a.host}`);
  await follow(a, alice.token, `@bob@${b.host}`);

  // What A's jobs will work on: bob's post as A has it, alice's poll, bob's account on A.
  await call(b, bob.token, "POST", "/api/v1/statuses", { status: "bob was here" });
  const bobsPost = await eventually(
    async () => ((await call(a, alice.token, "GET", "/api/v1/timelines/home")).body as Json[]).find((s) => String(s.content).includes("bob was here")),
    (status) => status !== undefined,
  );
  if (!bobsPost) throw new Error("bob's post did not reach A");
  const poll = (await call(a, alice.token, "POST", "/api/v1/statuses", { status: "Tea or coffee?", poll: { options: ["tea", "coffee"], expires_in: 300 } }))
    .body as { id: string; poll: { id: string } };
  const bobOnA = (bobsPost.account as Json).id as string;

  // First, as after a quiet night: only the delivery waits when A restarts (any other federation job would load
  // the federation, which the delivery needs, before it).
  const first = await deliveryWaitsWhenKilled(a, b, alice.token, "posted while B was down");
  await allFinishAfterRestart(a, b, bob.token, first.map((job) => job.id), first, "posted while B was down");

  // Then a delivery and a job on every queue A handles.
  const delivery = await deliveryWaitsWhenKilled(a, b, alice.token, "posted while B was down again");
  const payloads: Record<string, unknown> = {
    federation: null,
    "remote-replies": { statusId: bobsPost.id, depth: 0 },
    "federation.poll-results": { statusId: poll.id },
    "federation-kv-prune": {},
    "polls.close": { pollId: poll.poll.id },
    "remote-account-refresh": { accountId: bobOnA },
    "timelines.fan_out": { statusId: poll.id },
    "statuses.unfinished_reactions": {},
    "groups.prune-join-tokens": {},
    // A scheduled status since cancelled: the job finds nothing to post.
    "scheduled_statuses.publish": { id: "sd_cancelled", scheduledAt: "2000-01-01T00:00:00.000Z" },
    // bob is not A's own: the job finishes with nothing to write.
    "annual-reports.generate": { accountId: bobOnA, year: 2026 },
    // As if a relay had forwarded bob's Create: A fetches it again from B, by its id.
    "federation.forwarded-creates": { objectId: String(bobsPost.uri), actorId: String(bobsPost.uri).replace(/\/statuses\/[^/]+$/, "") },
    media: null,
    // A notification no longer there: the job finds nothing to push, and finishes.
    "push.deliver": { subscriptionId: "ps_none", notificationId: "no_none", recipientId: "us_none" },
    // A status no longer there, linking a page no one serves: no card is read, none attached, and the job finishes.
    "preview_cards.fetch": { statusId: "st_none", link: "http://127.0.0.1:9/none" },
    // An import no longer there: the job finds no rows to work, and finishes.
    "imports.process": { jobId: "im_none" },
  };
  const queues = await probe<string[]>(a, "queues");
  expect(queues.filter((queue) => !(queue in payloads)), "a queue this test does not fill").toEqual([]);
  await probe<string>(a, "media", "alice");
  const jobs = queues.filter((queue) => payloads[queue] !== null).map((queue) => ({ queue, payload: payloads[queue] }));
  const ids = [...(await probe<string[]>(a, "enqueue", JSON.stringify(jobs))), ...delivery.map((job) => job.id)];
  const mediaJobs = await probe<JobSummary[]>(a, "list", "media", "submitted");
  expect(mediaJobs).toHaveLength(1);
  ids.push(...mediaJobs.map((job) => job.id));
  expect(new Set((await probe<JobSummary[]>(a, "get", JSON.stringify(ids))).map((job) => job?.queue))).toEqual(new Set(queues));
  await allFinishAfterRestart(a, b, bob.token, ids, delivery, "posted while B was down again");
}

