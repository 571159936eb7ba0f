import type { StatusEntity } from "../../mastodon/entities/status.js";
import { getLogger } from "../../logging.js";
import type { FilterMatcher, FilterableStatus } from "../filters/filter-matcher.js";
import { type StreamMessage, streamChannels } from "./channels.js";
import type { MessageRenders } from "./message-renders.js";
import type { StreamHub } from "./stream-hub.js";
import { type StreamName, type StreamParams, type StreamSpec, sameStream, streamSpec } from "./stream-names.js";

const logger = getLogger(["streaming"]);

/** Streams one connection may hold at once: enough for any client, too few to make one socket a burden. */
export const MAX_STREAMS_PER_CONNECTION = 100;

/** One event as Mastodon's streaming API sends it; `payload` is a JSON string (a bare id for `delete`). */
export interface StreamEvent {
  readonly stream: readonly string[];
  readonly event: string;
  readonly payload?: string;
}

/** How a connection renders what it hears, for its own viewer. */
/** A viewer's answer to "may I quote it" in a status's `quote_approval`. */
export type QuoteDecision = StatusEntity["quote_approval"]["current_user"];

export interface StreamRenderers {
  /** Statuses the viewer may see, rendered; others are absent. */
  statuses(ids: readonly string[], viewerId: string | null): Promise<Map<string, StatusEntity>>;
  notification(viewerId: string, notificationId: string): Promise<object | null>;
  conversation(viewerId: string, conversationId: string): Promise<object | null>;
  filters(viewerId: string, context: StreamSpec["filterContext"]): Promise<FilterMatcher>;
  /** For each viewer, those of these authors the viewer blocked, muted or domain-blocked, or who blocked the viewer (viewers hiding none are absent). */
  hiddenAuthors(viewerIds: readonly string[], authorIds: readonly string[]): Promise<Map<string, Set<string>>>;
  ownsList(viewerId: string, listId: string): Promise<boolean>;
  /** Whether the viewer may see the group (its stream); absent without groups, when no group stream is had. */
  seesGroup?(viewerId: string | null, groupId: string): Promise<boolean>;
  /** Whether the viewer may see the group channel (its stream); absent without groups. */
  seesChannel?(viewerId: string | null, channelId: string): Promise<boolean>;
  /** Of these viewers, those whose rendering of the status carries a mark of theirs (favourited, boosted, ...). */
  viewersWithMarks(statusId: string, viewerIds: readonly string[]): Promise<Set<string>>;
  /** What each viewer may do about quoting the status (`quote_approval.current_user`), the one part of it that is each viewer's own besides the marks. */
  quoteDecisions(statusId: string, viewerIds: readonly string[]): Promise<Map<string, QuoteDecision>>;
}

export type SubscribeOutcome = { ok: true; stream: readonly string[] } | { ok: false; status: 400 | 401 | 404; error: string };

interface ChannelListener {
  readonly stop: Promise<() => Promise<void>>;
  readonly specs: Set<StreamSpec>;
}

function isLocal(status: StatusEntity): boolean {
  return !status.account.acct.includes("@");
}

/**
 * One client's streams, multiplexed over one transport (a WebSocket, or an
 * event stream with a single subscription). Listens on the channels its
 * streams need and renders every message for its own viewer: visibility,
 * blocks, mutes and filters hold as on the REST API (the renders of a message
 * are shared with the viewer's other connections). Events leave in the order
 * their messages arrived.
 */
export class StreamConnection {
  readonly #channels = new Map<string, ChannelListener>();
  readonly #matchers = new Map<string, Promise<FilterMatcher>>();
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(
    private readonly hub: StreamHub,
    private readonly renderers: StreamRenderers,
    readonly viewerId: string | null,
    private readonly emit: (event: StreamEvent) => void,
  ) {}

  /** Closed by its holder or the server: it hears nothing more. */
  get closed(): boolean {
    return this.#closed;
  }

  get subscriptions(): number {
    return new Set([...this.#channels.values()].flatMap((listener) => [...listener.specs])).size;
  }

  async subscribe(name: StreamName, params: StreamParams): Promise<SubscribeOutcome> {
    const result = streamSpec(name, params, this.viewerId);
    if (!result.ok) {
      return result.reason === "unauthenticated"
        ? { ok: false, status: 401, error: "Missing access token" }
        : { ok: false, status: 400, error: "Missing parameter: tag, list, group or channel" };
    }
    const spec = result.spec;
    if (spec.listId !== undefined && (this.viewerId === null || !(await this.renderers.ownsList(this.viewerId, spec.listId)))) {
      return { ok: false, status: 404, error: "Not found" };
    }
    if (spec.groupId !== undefined && !(await this.renderers.seesGroup?.(this.viewerId, spec.groupId))) {
      return { ok: false, status: 404, error: "Not found" };
    }
    if (spec.channelId !== undefined && !(await this.renderers.seesChannel?.(this.viewerId, spec.channelId))) {
      return { ok: false, status: 404, error: "Not found" };
    }
    if (this.#closed || this.#find(spec.label)) return { ok: true, stream: spec.label };
    if (this.subscriptions >= MAX_STREAMS_PER_CONNECTION) return { ok: false, status: 400, error: "Too many streams on one connection" };
    // Filter changes reach a signed-in viewer's user channel whatever it subscribed to, so cached matchers stay right.
    const channels = this.viewerId ? [...spec.channels, streamChannels.user(this.viewerId)] : spec.channels;
    for (const channel of new Set(channels)) {
      let listener = this.#channels.get(channel);
      if (!listener) {
        const stop = this.hub.listen(channel, (message, renders) => this.#enqueue(channel, message, renders));
        listener = { stop, specs: new Set() };
        this.#channels.set(channel, listener);
        await stop;
      }
      if (spec.channels.includes(channel)) listener.specs.add(spec);
    }
    return { ok: true, stream: spec.label };
  }

  async unsubscribe(name: StreamName, params: StreamParams): Promise<void> {
    const result = streamSpec(name, params, this.viewerId);
    if (!result.ok) return;
    const spec = this.#find(result.spec.label);
    if (!spec) return;
    for (const listener of this.#channels.values()) listener.specs.delete(spec);
    if (this.subscriptions === 0) await this.#stopAll();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#stopAll();
  }

  #find(label: readonly string[]): StreamSpec | undefined {
    for (const listener of this.#channels.values()) {
      for (const spec of listener.specs) if (sameStream(spec.label, label)) return spec;
    }
    return undefined;
  }

  async #stopAll(): Promise<void> {
    const listeners = [...this.#channels.values()];
    this.#channels.clear();
    await Promise.all(listeners.map(async (listener) => (await listener.stop)()));
  }

  #enqueue(channel: string, message: StreamMessage, renders: MessageRenders): void {
    this.#queue = this.#queue
      .then(() => this.#handle(channel, message, renders))
      .catch((error: unknown) => logger.error("A stream event could not be rendered: {error}", { error }));
  }

  async #handle(channel: string, message: StreamMessage, renders: MessageRenders): Promise<void> {
    if (this.#closed) return;
    if (message.event === "filters_changed") this.#matchers.clear();
    const specs = [...(this.#channels.get(channel)?.specs ?? [])].filter((spec) => spec.events.has(message.event));
    if (specs.length === 0) return;
    switch (message.event) {
      case "delete":
        for (const spec of specs) this.emit({ stream: spec.label, event: "delete", payload: message.statusId });
        return;
      case "filters_changed":
        for (const spec of specs) this.emit({ stream: spec.label, event: "filters_changed" });
        return;
      case "notification": {
        if (!this.viewerId) return;
        const entity = await renders.notification(this.viewerId, message.notificationId);
        if (entity) for (const spec of specs) this.emit({ stream: spec.label, event: "notification", payload: renders.json(entity) });
        return;
      }
      case "conversation": {
        if (!this.viewerId) return;
        const entity = await renders.conversation(this.viewerId, message.conversationId);
        if (entity) for (const spec of specs) this.emit({ stream: spec.label, event: "conversation", payload: renders.json(entity) });
        return;
      }
      case "update":
      case "status.update":
        await this.#post(message.event, message.statusId, specs, renders);
        return;
    }
  }

  async #post(event: "update" | "status.update", statusId: string, specs: readonly StreamSpec[], renders: MessageRenders): Promise<void> {
    const status = await renders.status(statusId, this.viewerId);
    if (!status) return;
    if (this.viewerId) {
      const authors = [status.account.id, ...(status.reblog ? [status.reblog.account.id] : [])];
      if ((await renders.hiddenAuthors(this.viewerId, authors)).size > 0) return;
    }
    for (const spec of specs) {
      if (spec.locality === "local" && !isLocal(status)) continue;
      if (spec.locality === "remote" && isLocal(status)) continue;
      if (spec.mediaOnly && (status.reblog ?? status).media_attachments.length === 0) continue;
      const shown = await this.#filtered(status, spec, renders);
      if (shown) this.emit({ stream: spec.label, event, payload: renders.json(shown) });
    }
  }

  /** The post with the viewer's filter results set, or null when a `hide` filter drops it. */
  async #filtered(status: StatusEntity, spec: StreamSpec, renders: MessageRenders): Promise<StatusEntity | null> {
    if (!this.viewerId) return status;
    let matcher = this.#matchers.get(spec.filterContext);
    if (!matcher) {
      matcher = renders.filters(this.viewerId, spec.filterContext);
      this.#matchers.set(spec.filterContext, matcher);
    }
    const [kept] = (await matcher).apply([status as unknown as FilterableStatus]);
    return (kept as unknown as StatusEntity | undefined) ?? null;
  }
}
