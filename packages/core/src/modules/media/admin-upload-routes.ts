import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { UPLOAD_QUEUES } from "./upload-admin.js";
import { permission } from "../../platform/http/access.js";
import { UPLOAD_TYPES, UploadJson, UploadLogEntryJson, UserStorageJson } from "../../mastodon/entities/media.js";
import { DEFAULT_PAGE, clampLimit, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zInt, zList } from "../../platform/http/schemas.js";

/**
 * The spec's five admin upload endpoints, all under Uploads.Read. Parameter
 * names and shapes are Kith's (the spec shows none), camelCase as the spec's
 * other resources.
 */
const ACCESS = permission(any("Uploads.Read"));
const SCOPES = ["admin:read"];

const UploadType = z.enum(UPLOAD_TYPES);

/** Per queue, how many jobs; the same per upload type. */
const QueueCountsJson = z.object({ submitted: z.number(), in_progress: z.number(), completed: z.number() });

const UploadJobJson = z.object({
  /** The upload's id: an upload has one processing job. */
  id: z.string(),
  queue: z.enum(UPLOAD_QUEUES),
  state: z.string(),
  type: UploadType,
  userId: z.string(),
  submittedAt: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  processingMs: z.number().nullable(),
  error: z.string().nullable(),
  upload: UploadJson,
});

/** `sort` takes the field names of the job, and snake_case spellings clients may use. */
const SORTS = {
  submittedAt: "submitted_at",
  submitted_at: "submitted_at",
  submissionTime: "submitted_at",
  processingMs: "processing_ms",
  processing_ms: "processing_ms",
  processingDuration: "processing_ms",
  processing_duration: "processing_ms",
  duration: "processing_ms",
} as const;

const tagList = z.preprocess(
  (value) =>
    typeof value === "string"
      ? value
          .split(",")
          .map((tag) => tag.trim())
          .filter(Boolean)
      : value,
  zList(z.string().max(64)),
);

export const adminUploadRoutes = [
  route({
    method: "GET",
    path: "/api/v1/admin/uploads/jobs/queue/{queueName}",
    summary:
      "Upload processing jobs in one queue (submitted, in_progress or completed), filtered by upload type, sorted by submission time or processing duration",
    description:
      "`sort`: submittedAt (default; oldest first) or processingDuration (default longest first); `order`: asc or desc; `type`: IMAGE, VIDEO, AUDIO or DOCUMENT; `offset` and `limit` (default 20, at most 80). The completed queue holds finished jobs, failed and unsupported ones included.",
    tags: ["admin-uploads"],
    access: ACCESS,
    scopes: SCOPES,
    params: z.object({ queueName: z.enum(UPLOAD_QUEUES) }),
    query: z.object({
      type: UploadType.optional(),
      sort: z.enum(Object.keys(SORTS) as [keyof typeof SORTS, ...(keyof typeof SORTS)[]]).default("submittedAt"),
      order: z.enum(["asc", "desc"]).optional(),
      limit: zInt.optional(),
      offset: zInt.pipe(z.number().int().min(0)).default(0),
    }),
    response: z.array(UploadJobJson),
    handler: async ({ services, params, query }) => {
      const sort = SORTS[query.sort];
      const jobs = await services.media.admin.queue(params.queueName, {
        ...(query.type && { uploadType: query.type }),
        sort,
        order: query.order ?? (sort === "submitted_at" ? "asc" : "desc"),
        limit: clampLimit(query.limit, DEFAULT_PAGE),
        offset: query.offset,
      });
      return jobs.map(({ queue, upload }) => ({
        id: upload.id,
        queue,
        state: upload.state,
        type: upload.type,
        userId: upload.accountId,
        submittedAt: upload.submittedAt,
        startedAt: upload.startedAt,
        finishedAt: upload.processedAt,
        processingMs: upload.processingMs,
        error: upload.error,
        upload,
      }));
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/uploads/jobs/summary",
    summary: "How many upload processing jobs are submitted, in progress and completed, in total and per upload type",
    tags: ["admin-uploads"],
    access: ACCESS,
    scopes: SCOPES,
    response: z.object({
      queues: QueueCountsJson,
      byType: z.object({ IMAGE: QueueCountsJson, VIDEO: QueueCountsJson, AUDIO: QueueCountsJson, DOCUMENT: QueueCountsJson }),
      byState: z.record(z.string(), z.number()),
    }),
    handler: ({ services }) => services.media.admin.summary(),
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/uploads/search",
    summary: "A user's uploads, newest first, optionally of one type and carrying all the given tags",
    description:
      "`userId` (required); `type`; `tags` (repeated `tags[]` or comma-separated); pagination by `limit`, `max_id`, `since_id`, `min_id` with a Link header.",
    tags: ["admin-uploads"],
    access: ACCESS,
    scopes: SCOPES,
    query: idPageQuery.extend({
      userId: z.string().min(1).max(64),
      type: UploadType.optional(),
      tags: tagList.optional(),
    }),
    response: z.array(UploadJson),
    handler: async ({ services, query, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const uploads = await services.media.admin.search(
        query.userId,
        { ...(query.type && { uploadType: query.type }), tags: query.tags ?? [] },
        page,
      );
      return pagedReply(url, uploads, page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/uploads/storage/{userId}",
    summary: "A user's storage: bytes used, files per type, and the limits that hold for them",
    tags: ["admin-uploads"],
    access: ACCESS,
    scopes: SCOPES,
    params: z.object({ userId: z.string().min(1).max(64) }),
    response: UserStorageJson,
    handler: ({ services, params }) => services.media.admin.storage(params.userId),
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/uploads/{uploadId}/logs",
    summary: "An upload's processing log: each workflow step with its time, outcome and error",
    tags: ["admin-uploads"],
    access: ACCESS,
    scopes: SCOPES,
    params: z.object({ uploadId: z.string().min(1).max(64) }),
    response: z.object({ upload: UploadJson, entries: z.array(UploadLogEntryJson) }),
    handler: ({ services, params }) => services.media.admin.logs(params.uploadId),
  }),
];
