import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { DEFAULT_LIMITS } from "../../domain/limits.js";
import { KithError } from "../../domain/errors.js";
import type { MediaService } from "./media-service.js";
import { largestFileBytes } from "./media-types.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { MediaAttachmentJson } from "../../mastodon/entities/media.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { mediaFileResponse } from "./media-file-response.js";

/**
 * Mastodon's media API on the upload pipeline: `POST /api/v2/media` queues
 * processing (202 until done), `POST /api/v1/media` processes at once, and
 * clients poll `GET /api/v1/media/:id` (206 while processing) until `url`
 * is set. `GET /media/...` serves the processed files.
 */
const SCOPES = ["write", "write:media"];

/** A multipart body carries a file and a custom preview besides the form fields. */
const MULTIPART_BYTES = largestFileBytes(DEFAULT_LIMITS) + DEFAULT_LIMITS.mediaAttachments.imageSizeLimit + 1_000_000;

const FileField = z.instanceof(File).meta({ type: "string", format: "binary" });

const UploadBody = z.object({
  file: FileField,
  thumbnail: FileField.optional(),
  description: z.string().optional(),
  focus: z.string().optional(),
});

const UpdateBody = z.object({
  description: z.string().optional(),
  focus: z.string().optional(),
  thumbnail: FileField.optional(),
});

const MediaParams = z.object({ id: z.string().min(1).max(64) });

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

/** 200 when processed, 206 while processing (as Mastodon answers), an error when processing failed. */
async function replyWithState(result: Awaited<ReturnType<MediaService["getOwn"]>>): Promise<Reply> {
  if (result.state === "completed") return Reply.json(result.media);
  if (result.state === "failed" || result.state === "unsupported") {
    throw new KithError("media.processing_failed", { message: result.error ?? "The file could not be processed" });
  }
  return Reply.json(result.media, { status: 206 });
}

export const mediaRoutes = [
  route({
    method: "POST",
    path: "/api/v2/media",
    summary: "Uploads a file; answers 202 while it is processed (poll GET /api/v1/media/{id}) and 200 when it is done",
    tags: ["media"],
    access: authenticated,
    scopes: SCOPES,
    body: UploadBody,
    maxBodyBytes: MULTIPART_BYTES,
    response: MediaAttachmentJson,
    handler: async ({ caller, services, body }) => {
      const user = userOf(caller);
      const { media, processed } = await services.media.submitFile({
        accountId: user.accountId,
        file: body.file,
        tags: ["Post"],
        ...(body.thumbnail && { thumbnail: body.thumbnail }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.focus !== undefined && { focus: body.focus }),
      });
      return Reply.json(media, { status: processed ? 200 : 202 });
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/media",
    summary: "Uploads a file and processes it before answering (the older, synchronous form)",
    tags: ["media"],
    access: authenticated,
    scopes: SCOPES,
    body: UploadBody,
    maxBodyBytes: MULTIPART_BYTES,
    response: MediaAttachmentJson,
    handler: async ({ caller, services, body }) => {
      const user = userOf(caller);
      return services.media.ingestFile({
        accountId: user.accountId,
        file: body.file,
        tags: ["Post"],
        ...(body.thumbnail && { thumbnail: body.thumbnail }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.focus !== undefined && { focus: body.focus }),
      });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/media/{id}",
    summary: "One of the caller's media attachments: 206 while it is processed, 200 when done",
    tags: ["media"],
    access: authenticated,
    scopes: SCOPES,
    params: MediaParams,
    response: MediaAttachmentJson,
    handler: async ({ caller, services, params }) => replyWithState(await services.media.getOwn(userOf(caller).accountId, params.id)),
  }),
  route({
    method: "PUT",
    path: "/api/v1/media/{id}",
    summary: "Changes the description, focal point or preview of one of the caller's media attachments",
    tags: ["media"],
    access: authenticated,
    scopes: SCOPES,
    params: MediaParams,
    body: UpdateBody,
    maxBodyBytes: DEFAULT_LIMITS.mediaAttachments.imageSizeLimit + 1_000_000,
    response: MediaAttachmentJson,
    handler: async ({ caller, services, params, body }) => {
      const user = userOf(caller);
      const updated = await services.media.updateOwn(user.accountId, params.id, {
        ...(body.description !== undefined && { description: body.description }),
        ...(body.focus !== undefined && { focus: body.focus }),
        ...(body.thumbnail && { thumbnail: body.thumbnail }),
      });
      return replyWithState({ ...updated, error: null });
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/media/{id}",
    summary: "Deletes one of the caller's media attachments that no post uses",
    tags: ["media"],
    access: authenticated,
    scopes: SCOPES,
    params: MediaParams,
    response: MediaAttachmentJson,
    handler: async ({ caller, services, params }) => services.media.deleteOwn(userOf(caller).accountId, params.id),
  }),
  route({
    method: "GET",
    path: "/media/{mediaId}/{fileName}",
    summary: "A processed media file; `original` and `small` redirect to the current file (fetching remote media first)",
    tags: ["media"],
    access: publicAccess,
    params: z.object({ mediaId: z.string().min(1).max(64), fileName: z.string().min(1).max(128) }),
    produces: "application/octet-stream",
    response: z.string().meta({ format: "binary" }),
    handler: async ({ services, params, request }) => {
      const file = await services.media.openFile(params.mediaId, params.fileName);
      if (!file) throw new KithError("media.missing");
      if (file.kind === "redirect") {
        return new Response(null, { status: 302, headers: { location: file.location, "cache-control": "public, max-age=300" } });
      }
      return mediaFileResponse(request, file, params.fileName);
    },
  }),
];
