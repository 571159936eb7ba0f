import { z } from "zod";
import { all, any } from "../../domain/permissions.js";
import { JOB_STATUSES, type JobCounts, type JobRecord, type QueueConfigChanges } from "../../ports/queue.js";
import { MAX_STATS_DAYS, WORKER_LIMITS } from "./jobs-service.js";
import { permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, clampLimit, idPageLinks } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool, zInt } from "../../platform/http/schemas.js";

/**
 * The jobs administration API (spec: "Background jobs (admin)"). Field names
 * are camelCase as in the spec's own areas; lists are paginated the Mastodon
 * way (`limit`, `max_id`, the next page in the `Link` header).
 */

/** ANY of Jobs.Read, Jobs.Manage. */
const read = permission(any("Jobs.Read", "Jobs.Manage"));
/** ALL of Jobs.Manage together with ANY of Jobs.Read, Jobs.Manage, as the spec writes it. */
const manage = permission(all("Jobs.Manage", any("Jobs.Read", "Jobs.Manage")));
const TAGS = ["jobs"];
const READ_SCOPES = ["admin:read"];
const WRITE_SCOPES = ["admin:write"];

const QueueName = z.string().min(1).max(200).describe("A queue's name");
const JobId = z.string().min(1).max(64).describe("A job's id");
const Status = z.enum(JOB_STATUSES).describe(`One of ${JOB_STATUSES.join(", ")}`);
const page = {
  limit: zInt.optional().describe(`Jobs per page: ${DEFAULT_PAGE.defaultLimit} by default, at most ${DEFAULT_PAGE.maxLimit}`),
  max_id: z.string().max(64).optional().describe("Only jobs older than this id (the next page)"),
};

const JobJson = z.object({
  id: z.string(),
  queue: z.string(),
  status: z.enum(JOB_STATUSES),
  payload: z.unknown().describe("The job's JSON payload; null when it cannot be read"),
  rawPayload: z.string().nullable().describe("The stored payload as text, for dead letters; null otherwise"),
  tries: z.number().int().describe("Attempts made so far"),
  maxAttempts: z.number().int(),
  runAt: z.string().describe("When the job is (or was) due, ISO 8601"),
  createdAt: z.string(),
  startedAt: z.string().nullable().describe("When its last attempt began"),
  finishedAt: z.string().nullable(),
  lastError: z.string().nullable(),
  deduplicationKey: z.string().nullable(),
  orderingKey: z.string().nullable(),
});

const CountsJson = z.object({
  submitted: z.number().int(),
  schedule: z.number().int(),
  retries: z.number().int(),
  active: z.number().int(),
  finished: z.number().int(),
  failed: z.number().int(),
  dlq: z.number().int(),
});

const WorkerJson = z.object({
  name: z.string().describe("The queue's name"),
  description: z.string(),
  maxRetries: z.number().int().describe("Retries after the first attempt for jobs that name none"),
  concurrency: z.number().int().describe("Jobs of this queue worked at once in each worker process"),
  enabled: z.boolean().describe("A disabled queue keeps its jobs and takes none"),
});

const BackendJson = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("redis"),
    version: z.string(),
    usedMemoryBytes: z.number(),
    connectedClients: z.number().int(),
  }),
  z.object({
    kind: z.literal("embedded"),
    engine: z.string().describe("sqlite, postgres or memory"),
    version: z.string(),
    sizeBytes: z.number().nullable(),
  }),
]);

function jobJson(job: JobRecord): z.infer<typeof JobJson> {
  return {
    id: job.id,
    queue: job.queue,
    status: job.status,
    payload: job.payload,
    rawPayload: job.status === "dlq" ? job.rawPayload : null,
    tries: job.tries,
    maxAttempts: job.maxAttempts,
    runAt: job.runAt,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    lastError: job.lastError,
    deduplicationKey: job.deduplicationKey,
    orderingKey: job.orderingKey,
  };
}

function countsJson(counts: JobCounts): z.infer<typeof CountsJson> {
  const { submitted, schedule, retries, active, finished, failed, dlq } = counts;
  return { submitted, schedule, retries, active, finished, failed, dlq };
}

/**
 * A page of jobs with the next page in the `Link` header. Only `rel="next"`:
 * the queue lists from newest to oldest and has no `min_id`.
 */
function jobPage(url: URL, jobs: readonly JobRecord[], limit: number): Reply {
  const link = idPageLinks(
    url,
    jobs.map((job) => job.id),
    limit,
  )
    ?.split(", ")
    .filter((part) => part.endsWith('rel="next"'))
    .join(", ");
  return Reply.json(jobs.map(jobJson), link ? { headers: { link } } : {});
}

const PAGE_DESCRIPTION = 'Newest first. When the page is full, the `Link` header holds the next page (`rel="next"`, with `max_id`).';

export const jobRoutes = [
  route({
    method: "GET",
    path: "/api/v1/jobs/lists",
    summary: "Jobs of one queue in one status, paginated",
    description: PAGE_DESCRIPTION,
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: z.object({ queue: QueueName, status: Status, ...page }),
    response: z.array(JobJson),
    handler: async ({ services, query, url }) => {
      const limit = clampLimit(query.limit, DEFAULT_PAGE);
      const jobs = await services.jobs.list({
        queue: query.queue,
        status: query.status,
        limit,
        ...(query.max_id && { maxId: query.max_id }),
      });
      return jobPage(url, jobs, limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/dlq",
    summary: "The dead-letter list: jobs whose payload could not be read, paginated",
    description: `Of every queue, or of one. Dead letters are never retried by themselves. ${PAGE_DESCRIPTION}`,
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: z.object({ queue: QueueName.optional(), ...page }),
    response: z.array(JobJson),
    handler: async ({ services, query, url }) => {
      const limit = clampLimit(query.limit, DEFAULT_PAGE);
      const jobs = await services.jobs.deadLetters({
        limit,
        ...(query.queue && { queue: query.queue }),
        ...(query.max_id && { maxId: query.max_id }),
      });
      return jobPage(url, jobs, limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/list-jobs",
    summary: "Jobs of every queue and status, paginated",
    description: PAGE_DESCRIPTION,
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: z.object(page),
    response: z.array(JobJson),
    handler: async ({ services, query, url }) => {
      const limit = clampLimit(query.limit, DEFAULT_PAGE);
      const jobs = await services.jobs.list({ limit, ...(query.max_id && { maxId: query.max_id }) });
      return jobPage(url, jobs, limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/list-stats",
    summary: "How many jobs of one queue are in each status",
    description: "A queue that holds no jobs counts zero everywhere.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: z.object({ queue: QueueName }),
    response: CountsJson.extend({ queue: z.string() }),
    handler: async ({ services, query }) => ({ queue: query.queue, ...countsJson(await services.jobs.counts(query.queue)) }),
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/list-stats-all",
    summary: "How many jobs of all queues together are in each status",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: CountsJson,
    handler: async ({ services }) => countsJson(await services.jobs.counts()),
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/stats",
    summary: "Finished and failed jobs held, across queues and per queue",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: z.object({
      finished: z.number().int(),
      failed: z.number().int(),
      queues: z.array(z.object({ queue: z.string(), finished: z.number().int(), failed: z.number().int() })),
    }),
    handler: ({ services }) => services.jobs.totals(),
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/stats-per-day",
    summary: "Jobs finished and failed per day, for the last days",
    description:
      "One entry per UTC day (`YYYY-MM-DD`), oldest first, today included. Dead letters count as failed. " +
      "Counts are kept as jobs end, so they outlive deleted jobs.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: z.object({
      days: zInt.pipe(z.number().min(1).max(MAX_STATS_DAYS)).optional().describe(`Days to report, 1 to ${MAX_STATS_DAYS}; 7 by default`),
      queue: QueueName.optional().describe("Only this queue; all queues when absent"),
    }),
    response: z.array(z.object({ day: z.string(), finished: z.number().int(), failed: z.number().int() })),
    handler: ({ services, query }) => services.jobs.statsPerDay(query.days ?? 7, query.queue),
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/summary",
    summary: "Every queue: job counts, latency and worker configuration",
    description:
      "`latencyMs` is how long the oldest job ready to run has been waiting for a worker; null when none waits. `lastFailure` is the newest job waiting to be retried and the first line of its last error: a queue whose jobs keep failing the same way shows it here (and in one warning of the log, repeated with a count every five minutes); null when none waits for a retry.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: z.array(
      z.object({
        queue: z.string(),
        counts: CountsJson,
        latencyMs: z.number().nullable(),
        lastFailure: z.object({ jobId: z.string(), tries: z.number().int(), error: z.string() }).nullable(),
        worker: WorkerJson,
      }),
    ),
    handler: async ({ services }) =>
      (await services.jobs.summary()).map((entry) => ({ ...entry, counts: countsJson(entry.counts), worker: { ...entry.worker } })),
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/workers",
    summary: "The worker configuration of every queue",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: z.array(WorkerJson),
    handler: ({ services }) => services.jobs.workers(),
  }),
  route({
    method: "PATCH",
    path: "/api/v1/jobs/workers/{queue}",
    summary: "Changes a queue's worker configuration",
    description:
      "Only the fields given change. Running workers apply the change without a restart; the configuration is kept by the queue's store.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: z.object({ queue: QueueName }),
    body: z
      .object({
        description: z.string().max(WORKER_LIMITS.description).optional(),
        maxRetries: zInt.pipe(z.number().min(0).max(WORKER_LIMITS.maxRetries)).optional(),
        concurrency: zInt.pipe(z.number().min(1).max(WORKER_LIMITS.concurrency)).optional(),
        enabled: zBool.optional(),
      })
      .strict(),
    response: WorkerJson,
    handler: ({ services, params, body }) => {
      const changes: QueueConfigChanges = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
      return services.jobs.configureWorker(params.queue, changes);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/processes",
    summary: "Worker processes alive now: hostname, PID and last heartbeat",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: z.array(
      z.object({ id: z.string(), hostname: z.string(), pid: z.number().int(), startedAt: z.string(), lastHeartbeatAt: z.string() }),
    ),
    handler: ({ services }) => services.jobs.processes(),
  }),
  route({
    method: "GET",
    path: "/api/v1/jobs/redis-info",
    summary: "The store behind the queue: Redis version, memory and clients, or the embedded database",
    description:
      "`kind` is `redis` with Redis's version, used memory and connected clients, or `embedded` with the database engine " +
      "that keeps the jobs (`sqlite`, `postgres`, or `memory`), its version and size when known.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: BackendJson,
    handler: ({ services }) => services.jobs.backend(),
  }),
  route({
    method: "POST",
    path: "/api/v1/jobs/retry",
    summary: "Moves one failed (or dead-letter) job back to submitted, its tries reset to 0",
    description: "409 `job.not_retryable` for a job in another status.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    body: z.object({ id: JobId }),
    response: JobJson,
    handler: async ({ services, body }) => jobJson(await services.jobs.retry(body.id)),
  }),
  route({
    method: "POST",
    path: "/api/v1/jobs/retry-all",
    summary: "Moves every failed job of a queue back to submitted, tries reset",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    body: z.object({ queue: QueueName }),
    response: z.object({ queue: z.string(), retried: z.number().int().describe("How many jobs moved") }),
    handler: async ({ services, body }) => ({ queue: body.queue, retried: await services.jobs.retryAll(body.queue) }),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/jobs/job",
    summary: "Deletes one job",
    description: "Of any status but active: 409 `job.active` for a job a worker holds.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    query: z.object({ id: JobId }),
    status: 204,
    handler: async ({ services, query }) => {
      await services.jobs.remove(query.id);
      return Reply.empty(204);
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/jobs/clear",
    summary: "Deletes every job of a queue in one status",
    description: "Active jobs cannot be cleared: 409 `job.active` for `status=active`.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    query: z.object({ queue: QueueName, status: Status }),
    response: z.object({
      queue: z.string(),
      status: z.enum(JOB_STATUSES),
      removed: z.number().int().describe("How many jobs were deleted"),
    }),
    handler: async ({ services, query }) => ({
      queue: query.queue,
      status: query.status,
      removed: await services.jobs.clear(query.queue, query.status),
    }),
  }),
];
