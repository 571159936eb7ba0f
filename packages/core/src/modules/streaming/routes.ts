import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import type { KithServices } from "../core-services.js";
import { isStreamName, type StreamName } from "./stream-names.js";
import type { StreamHolder } from "./streaming-service.js";
import { attachWebsocketAcceptor } from "./websocket-contract.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool } from "../../platform/http/schemas.js";

/**
 * Mastodon's streaming API, served by the main server (there is no separate
 * streaming process): a WebSocket at `/api/v1/streaming` and server-sent
 * events at `/api/v1/streaming/<stream>`.
 */

const READ = ["read:statuses"];

/** Who the stream is for, and the session it lives as long as. */
function holderOf(caller: Caller): StreamHolder {
  return {
    accountId: caller.kind === "user" ? caller.accountId : null,
    sessionId: caller.kind === "guest" ? null : caller.sessionId,
  };
}

/**
 * Clients that cannot set headers on a WebSocket send the token as the
 * subprotocol; it is honoured when nothing else carried a token.
 */
async function webSocketViewer(
  caller: Caller,
  request: Request,
  services: KithServices,
): Promise<{ holder: StreamHolder; protocol: string | null }> {
  const offered = (request.headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const protocol = offered[0] ?? null;
  if (caller.kind !== "guest" || protocol === null) return { holder: holderOf(caller), protocol };
  return { holder: holderOf(await services.sessions.authenticate(protocol)), protocol };
}

const EventStreamText = z.string().describe("text/event-stream");
const PublicQuery = z.object({ only_media: zBool.optional() });
const HashtagQuery = z.object({ tag: z.string().min(1).max(200) });
const ListQuery = z.object({ list: z.string().min(1).max(64) });

function sse(
  path: string,
  summary: string,
  stream: (query: { only_media?: boolean | undefined }) => StreamName,
  options: { signedIn: boolean; scopes?: string[] },
) {
  return route({
    method: "GET",
    path,
    summary,
    tags: ["streaming"],
    access: options.signedIn ? authenticated : publicAccess,
    scopes: options.scopes ?? READ,
    query: PublicQuery,
    produces: "text/event-stream",
    response: EventStreamText,
    handler: async ({ caller, query, services, request }) =>
      services.streaming.eventStream(holderOf(caller), stream(query), {}, request.signal),
  });
}

export const streamingRoutes = [
  route({
    method: "GET",
    path: "/api/v1/streaming/health",
    summary: "Whether the streaming API is up",
    tags: ["streaming"],
    access: publicAccess,
    produces: "text/plain",
    response: z.string(),
    handler: () => Reply.text("OK", "text/plain; charset=utf-8"),
  }),
  route({
    method: "GET",
    path: "/api/v1/streaming",
    summary: "The WebSocket endpoint: subscribe and unsubscribe to streams by message; or, with `stream`, server-sent events of one stream",
    description:
      'Messages: `{"type":"subscribe","stream":"hashtag","tag":"cats"}`; events: `{"stream":["hashtag","cats"],"event":"update","payload":"<JSON>"}`. The token may come in the Authorization header, the `access_token` query or the Sec-WebSocket-Protocol header.',
    tags: ["streaming"],
    access: publicAccess,
    scopes: READ,
    query: z.object({
      stream: z.string().max(64).optional(),
      tag: z.string().max(200).optional(),
      list: z.string().max(64).optional(),
      group: z.string().max(64).optional(),
      channel: z.string().max(64).optional(),
    }),
    produces: "text/event-stream",
    response: EventStreamText,
    handler: async ({ caller, query, request, services }) => {
      const params = { tag: query.tag, list: query.list, group: query.group, channel: query.channel };
      const upgrade = request.headers.get("upgrade")?.toLowerCase() === "websocket";
      if (!upgrade) {
        if (!query.stream || !isStreamName(query.stream)) {
          return Reply.json({ error: "Expected a WebSocket upgrade, or a known stream in `stream`" }, { status: 400 });
        }
        return services.streaming.eventStream(holderOf(caller), query.stream, params, request.signal);
      }
      const { holder, protocol } = await webSocketViewer(caller, request, services);
      attachWebsocketAcceptor(
        request,
        services.streaming.webSocketAcceptor(holder, protocol, query.stream ? { name: query.stream, params } : null),
      );
      // The host completes the handshake; this answer is only seen by a host that cannot upgrade.
      return Reply.json({ error: "This server cannot upgrade the connection here" }, { status: 426, headers: { upgrade: "websocket" } });
    },
  }),
  sse("/api/v1/streaming/user", "Server-sent events of the caller's home timeline, notifications and filter changes", () => "user", {
    signedIn: true,
    scopes: ["read:statuses", "read:notifications"],
  }),
  sse("/api/v1/streaming/user/notification", "Server-sent events of the caller's notifications", () => "user:notification", {
    signedIn: true,
    scopes: ["read:notifications"],
  }),
  sse(
    "/api/v1/streaming/public",
    "Server-sent events of public posts (only_media for those with media)",
    (q) => (q.only_media ? "public:media" : "public"),
    {
      signedIn: false,
    },
  ),
  sse(
    "/api/v1/streaming/public/local",
    "Server-sent events of this server's public posts",
    (q) => (q.only_media ? "public:local:media" : "public:local"),
    { signedIn: false },
  ),
  sse(
    "/api/v1/streaming/public/remote",
    "Server-sent events of other servers' public posts",
    (q) => (q.only_media ? "public:remote:media" : "public:remote"),
    { signedIn: false },
  ),
  sse("/api/v1/streaming/direct", "Server-sent events of the caller's direct conversations", () => "direct", { signedIn: true }),
  route({
    method: "GET",
    path: "/api/v1/streaming/hashtag",
    summary: "Server-sent events of public posts with a hashtag",
    tags: ["streaming"],
    access: publicAccess,
    scopes: READ,
    query: HashtagQuery,
    produces: "text/event-stream",
    response: EventStreamText,
    handler: ({ caller, query, services, request }) =>
      services.streaming.eventStream(holderOf(caller), "hashtag", { tag: query.tag }, request.signal),
  }),
  route({
    method: "GET",
    path: "/api/v1/streaming/hashtag/local",
    summary: "Server-sent events of this server's public posts with a hashtag",
    tags: ["streaming"],
    access: publicAccess,
    scopes: READ,
    query: HashtagQuery,
    produces: "text/event-stream",
    response: EventStreamText,
    handler: ({ caller, query, services, request }) =>
      services.streaming.eventStream(holderOf(caller), "hashtag:local", { tag: query.tag }, request.signal),
  }),
  route({
    method: "GET",
    path: "/api/v1/streaming/list",
    summary: "Server-sent events of one of the caller's lists",
    tags: ["streaming"],
    access: authenticated,
    scopes: READ,
    query: ListQuery,
    produces: "text/event-stream",
    response: EventStreamText,
    handler: ({ caller, query, services, request }) =>
      services.streaming.eventStream(holderOf(caller), "list", { list: query.list }, request.signal),
  }),
];
