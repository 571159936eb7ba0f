import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { DEFAULT_LIMITS } from "../../domain/limits.js";
import { largestFileBytes } from "./media-types.js";
import { authenticated } from "../../platform/http/access.js";
import { readLimited } from "../../platform/http/body-parser.js";
import { CreatedUploadJson, UPLOAD_TYPES, UploadJson, UserStorageJson } from "../../mastodon/entities/media.js";
import { route } from "../core-route.js";
import { zInt, zList } from "../../platform/http/schemas.js";

/**
 * The spec's two-step upload: `POST /api/v1/uploads` creates an upload and
 * answers its upload URL; the client PUTs the raw content to that URL
 * (short-lived, bound to the upload and its owner), and processing runs as
 * jobs. Paths are Kith's own (the spec shows none); fields are camelCase like
 * the spec's other resources.
 */
const WRITE_SCOPES = ["write", "write:media"];
const READ_SCOPES = ["read", "write", "write:media"];

const UploadParams = z.object({ uploadId: z.string().min(1).max(64) });

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

export const uploadRoutes = [
  route({
    method: "POST",
    path: "/api/v1/uploads",
    summary:
      "Creates an upload (IMAGE, VIDEO, AUDIO or DOCUMENT, with tags such as Avatar, Header, Post) and answers the URL to PUT its content to",
    tags: ["uploads"],
    access: authenticated,
    scopes: WRITE_SCOPES,
    body: z.object({
      type: z.enum(UPLOAD_TYPES),
      tags: zList(z.string().max(64)).default([]),
      fileName: z.string().max(1_000).optional(),
      contentType: z.string().max(255).optional(),
      /** Bytes the content will have; checked against the limits and the quota now when given. */
      size: zInt.pipe(z.number().int().min(0)).optional(),
      description: z.string().optional(),
      focus: z.string().optional(),
    }),
    status: 201,
    response: CreatedUploadJson,
    handler: async ({ caller, services, body }) => {
      const user = userOf(caller);
      return services.media.createUpload({
        accountId: user.accountId,
        type: body.type,
        tags: body.tags,
        ...(body.fileName !== undefined && { fileName: body.fileName }),
        ...(body.contentType !== undefined && { contentType: body.contentType }),
        ...(body.size !== undefined && { sizeBytes: body.size }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.focus !== undefined && { focus: body.focus }),
      });
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/uploads/{uploadId}/content",
    summary: "Sends an upload's content (the raw bytes) to its upload URL; processing is then queued",
    description:
      "The URL comes from creating the upload and holds a token; it expires after 15 minutes, serves one upload of the user who created it, and takes one content. The content's type is detected from its bytes.",
    tags: ["uploads"],
    access: authenticated,
    scopes: WRITE_SCOPES,
    params: UploadParams,
    query: z.object({ token: z.string().max(256).default("") }),
    rawBody: true,
    maxBodyBytes: largestFileBytes(DEFAULT_LIMITS),
    status: 202,
    response: UploadJson,
    handler: async ({ caller, services, params, query, request }) => {
      const user = userOf(caller);
      return services.media.putContent({
        accountId: user.accountId,
        uploadId: params.uploadId,
        token: query.token,
        read: (maxBytes) => readLimited(request, maxBytes),
      });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/uploads/storage",
    summary: "The caller's storage: bytes used, files by type, and the limits",
    tags: ["uploads"],
    access: authenticated,
    scopes: READ_SCOPES,
    response: UserStorageJson,
    handler: async ({ caller, services }) => services.media.admin.storage(userOf(caller).accountId),
  }),
  route({
    method: "GET",
    path: "/api/v1/uploads/{uploadId}",
    summary: "One of the caller's uploads: file information, processing state and tags",
    tags: ["uploads"],
    access: authenticated,
    scopes: READ_SCOPES,
    params: UploadParams,
    response: UploadJson,
    handler: async ({ caller, services, params }) => services.media.getUpload(userOf(caller).accountId, params.uploadId),
  }),
];
