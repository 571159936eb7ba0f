import { streamChannels } from "./channels.js";

/** Mastodon's stream names, as WebSocket `subscribe` messages and SSE paths give them. */
export const STREAM_NAMES = [
  "user",
  "user:notification",
  "public",
  "public:media",
  "public:local",
  "public:local:media",
  "public:remote",
  "public:remote:media",
  "hashtag",
  "hashtag:local",
  "list",
  "direct",
  "group",
  "channel",
] as const;

export type StreamName = (typeof STREAM_NAMES)[number];

export function isStreamName(value: string): value is StreamName {
  return (STREAM_NAMES as readonly string[]).includes(value);
}

/** Which filter context a stream's statuses are judged in. */
export type StreamFilterContext = "home" | "public" | "notifications";

/** One subscription: the stream, its parameter, the pubsub channels that feed it and what it lets through. */
export interface StreamSpec {
  readonly name: StreamName;
  /** What the `stream` array of each event says: `["hashtag", "cats"]`, `["list", "li_..."]`, `["public"]`. */
  readonly label: readonly string[];
  readonly channels: readonly string[];
  readonly needsUser: boolean;
  readonly locality: "any" | "local" | "remote";
  readonly mediaOnly: boolean;
  /** Events of the channel this stream passes on. */
  readonly events: ReadonlySet<string>;
  readonly filterContext: StreamFilterContext;
  /** The list id, whose ownership must be checked before subscribing. */
  readonly listId?: string;
  /** The group id, which the viewer must be allowed to see before subscribing. */
  readonly groupId?: string;
  /** The group channel's id, whose group the viewer must be allowed to see before subscribing. */
  readonly channelId?: string;
}

export interface StreamParams {
  readonly tag?: string | undefined;
  readonly list?: string | undefined;
  readonly group?: string | undefined;
  readonly channel?: string | undefined;
}

const POST_EVENTS = new Set(["update", "status.update", "delete"]);

/**
 * The spec of a stream for a viewer, or a reason it cannot be had: a
 * missing parameter, or a stream that needs a signed-in user.
 */
export function streamSpec(
  name: StreamName,
  params: StreamParams,
  viewerId: string | null,
): { ok: true; spec: StreamSpec } | { ok: false; reason: "unauthenticated" | "missing_parameter" } {
  const base = { name, locality: "any" as const, mediaOnly: false, needsUser: false };
  const userOnly = (spec: Omit<StreamSpec, "needsUser">) =>
    viewerId === null ? ({ ok: false, reason: "unauthenticated" } as const) : ({ ok: true, spec: { ...spec, needsUser: true } } as const);
  switch (name) {
    case "user":
      if (viewerId === null) return { ok: false, reason: "unauthenticated" };
      return userOnly({
        ...base,
        label: ["user"],
        channels: [streamChannels.user(viewerId), streamChannels.deletes()],
        events: new Set(["update", "status.update", "delete", "notification", "filters_changed", "announcement"]),
        filterContext: "home",
      });
    case "user:notification":
      if (viewerId === null) return { ok: false, reason: "unauthenticated" };
      return userOnly({
        ...base,
        label: ["user:notification"],
        channels: [streamChannels.user(viewerId)],
        events: new Set(["notification"]),
        filterContext: "notifications",
      });
    case "direct":
      if (viewerId === null) return { ok: false, reason: "unauthenticated" };
      return userOnly({
        ...base,
        label: ["direct"],
        channels: [streamChannels.direct(viewerId), streamChannels.deletes()],
        events: new Set(["conversation", "delete"]),
        filterContext: "home",
      });
    case "list": {
      if (!params.list) return { ok: false, reason: "missing_parameter" };
      return userOnly({
        ...base,
        label: ["list", params.list],
        channels: [streamChannels.list(params.list), streamChannels.deletes()],
        events: POST_EVENTS,
        filterContext: "home",
        listId: params.list,
      });
    }
    case "group": {
      if (!params.group) return { ok: false, reason: "missing_parameter" };
      return {
        ok: true,
        spec: {
          ...base,
          label: ["group", params.group],
          channels: [streamChannels.group(params.group), streamChannels.deletes()],
          events: POST_EVENTS,
          filterContext: "public",
          groupId: params.group,
        },
      };
    }
    case "channel": {
      if (!params.channel) return { ok: false, reason: "missing_parameter" };
      return {
        ok: true,
        spec: {
          ...base,
          label: ["channel", params.channel],
          channels: [streamChannels.channel(params.channel), streamChannels.deletes()],
          events: POST_EVENTS,
          filterContext: "public",
          channelId: params.channel,
        },
      };
    }
    case "hashtag":
    case "hashtag:local": {
      const tag = params.tag?.trim().replace(/^#/, "");
      if (!tag) return { ok: false, reason: "missing_parameter" };
      return {
        ok: true,
        spec: {
          ...base,
          label: [name, tag],
          channels: [streamChannels.hashtag(tag), streamChannels.deletes()],
          locality: name === "hashtag:local" ? "local" : "any",
          events: POST_EVENTS,
          filterContext: "public",
        },
      };
    }
    default: {
      const parts = name.split(":");
      return {
        ok: true,
        spec: {
          ...base,
          label: [name],
          channels: [streamChannels.public(), streamChannels.deletes()],
          locality: parts.includes("local") ? "local" : parts.includes("remote") ? "remote" : "any",
          mediaOnly: parts.includes("media"),
          events: POST_EVENTS,
          filterContext: "public",
        },
      };
    }
  }
}

/** Whether two subscriptions are the same (unsubscribe names them the same way). */
export function sameStream(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((part, i) => part.toLowerCase() === b[i]?.toLowerCase());
}
