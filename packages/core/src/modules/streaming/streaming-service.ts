import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import { SESSION_CACHE_TTL_MS } from "../auth/session-service.js";
import type { ServiceDeps } from "../service-deps.js";
import { eventStreamResponse } from "./event-stream.js";
import { StreamConnection, type StreamEvent, type StreamRenderers, type SubscribeOutcome } from "./stream-connection.js";
import { StreamHub } from "./stream-hub.js";
import { isStreamName, type StreamName, type StreamParams } from "./stream-names.js";
import type { WebSocketAcceptor, WebSocketPeer, WebSocketSession } from "./websocket-contract.js";

export type { StreamEvent, StreamRenderers } from "./stream-connection.js";

/** The WebSocket close code for a server going away (shutdown). */
const GOING_AWAY = 1001;
/** The WebSocket close code for a session that may no longer stream (revoked, its account suspended or disabled). */
const POLICY_VIOLATION = 1008;

const logger = getLogger(["streaming"]);

/** Who holds a stream: the signed-in account (null for a guest) and the session of the token it came with (null without one). */
export interface StreamHolder {
  readonly accountId: string | null;
  readonly sessionId: string | null;
}

/** What streaming asks of sessions: which still authenticate, and word of every change to that. */
export interface SessionLiveness {
  liveSessionIds(ids: readonly string[]): Promise<Set<string>>;
  onSignInChanged(listener: () => void): Promise<() => Promise<void>>;
}

function refusal(outcome: Extract<SubscribeOutcome, { ok: false }>): KithError {
  if (outcome.status === 401) return new KithError("auth.unauthenticated");
  if (outcome.status === 404) return new KithError("request.not_found");
  return new KithError("request.invalid_parameters", { message: outcome.error });
}

/**
 * Mastodon's streaming API over the pubsub port: server-sent events (one
 * stream per request) and WebSocket sessions (any number of streams,
 * subscribed and unsubscribed by message). Every process serves the
 * connections it holds; pubsub carries the messages between processes.
 */
export class StreamingService {
  readonly #sessions = new Set<{ peer: WebSocketPeer; connection: StreamConnection }>();
  readonly #hub: StreamHub;
  /** Open streams that came with a token, each with what ends it, by the token's session. */
  readonly #held = new Map<StreamConnection, { readonly sessionId: string; readonly end: () => void }>();
  #listening: Promise<void> | null = null;
  #sweeping: ReturnType<typeof setInterval> | null = null;
  #checking: Promise<void> | null = null;
  #checkAgain = false;

  constructor(
    deps: Pick<ServiceDeps, "pubsub">,
    private readonly renderers: StreamRenderers,
    private readonly liveness: SessionLiveness | null = null,
  ) {
    this.#hub = new StreamHub(deps.pubsub, renderers);
  }

  #seesGroup: StreamRenderers["seesGroup"];

  /** Lets `group` streams be had: the groups module tells who may see a group. */
  allowGroupStreams(seesGroup: (viewerId: string | null, groupId: string) => Promise<boolean>): void {
    this.#seesGroup = seesGroup;
  }

  #seesChannel: StreamRenderers["seesChannel"];

  /** Lets `channel` streams be had: the groups module tells who may see a group's channel. */
  allowChannelStreams(seesChannel: (viewerId: string | null, channelId: string) => Promise<boolean>): void {
    this.#seesChannel = seesChannel;
  }

  /** A connection for a viewer (null for a guest), its events told to `emit`. */
  connect(viewerId: string | null, emit: (event: StreamEvent) => void): StreamConnection {
    const renderers = {
      ...this.renderers,
      ...(this.#seesGroup && { seesGroup: this.#seesGroup }),
      ...(this.#seesChannel && { seesChannel: this.#seesChannel }),
    };
    return new StreamConnection(this.#hub, renderers, viewerId, emit);
  }

  /** An event stream of one stream; refused (401, 404, 400) before any byte is sent. */
  async eventStream(holder: StreamHolder, name: StreamName, params: StreamParams, signal: AbortSignal | null): Promise<Response> {
    let sink: ((event: StreamEvent) => void) | null = null;
    const early: StreamEvent[] = [];
    const connection = this.connect(holder.accountId, (event) => (sink ? sink(event) : early.push(event)));
    const outcome = await connection.subscribe(name, params);
    if (!outcome.ok) {
      await connection.close();
      throw refusal(outcome);
    }
    // Ended by the client going away, or by the holder's session ending.
    const revoked = new AbortController();
    const ended = signal ? AbortSignal.any([signal, revoked.signal]) : revoked.signal;
    ended.addEventListener("abort", () => this.#held.delete(connection));
    this.#hold(connection, holder.sessionId, () => revoked.abort());
    return eventStreamResponse(
      connection,
      (emit) => {
        sink = emit;
        for (const event of early.splice(0)) emit(event);
      },
      ended,
    );
  }

  /** What accepts a WebSocket for a viewer; `initial` is the stream named in the URL (`?stream=`), if any. */
  webSocketAcceptor(holder: StreamHolder, protocol: string | null, initial: { name: string; params: StreamParams } | null): WebSocketAcceptor {
    return { protocol, open: (peer) => this.#open(holder, peer, initial) };
  }

  /** Open streams that came with a token (for tests and operators). */
  get heldStreams(): number {
    return this.#held.size;
  }

  /** Streams subscribed over this process's open WebSocket sessions (for operators, and tests that wait for a subscription). */
  get webSocketSubscriptions(): number {
    return [...this.#sessions].reduce((sum, session) => sum + session.connection.subscriptions, 0);
  }

  /** Closes every WebSocket session of this process (server shutdown). */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions];
    this.#sessions.clear();
    this.#held.clear();
    if (this.#sweeping !== null) clearInterval(this.#sweeping);
    this.#sweeping = null;
    await Promise.all(
      sessions.map(async ({ peer, connection }) => {
        await connection.close();
        peer.close(GOING_AWAY, "Server shutting down");
      }),
    );
  }

  #open(holder: StreamHolder, peer: WebSocketPeer, initial: { name: string; params: StreamParams } | null): WebSocketSession {
    const connection = this.connect(holder.accountId, (event) =>
      peer.send(
        JSON.stringify({ stream: event.stream, event: event.event, ...(event.payload !== undefined && { payload: event.payload }) }),
      ),
    );
    const entry = { peer, connection };
    this.#sessions.add(entry);
    this.#hold(connection, holder.sessionId, () => {
      this.#sessions.delete(entry);
      this.#held.delete(connection);
      void connection.close();
      peer.close(POLICY_VIOLATION, "Access revoked");
    });
    const error = (status: number, message: string) => peer.send(JSON.stringify({ error: message, status }));
    // Subscriptions are handled one after another, so an unsubscribe cannot overtake its subscribe.
    let work: Promise<void> = Promise.resolve();
    const run = (task: () => Promise<void>) => {
      work = work.then(task).catch(() => error(500, "Something went wrong on our side"));
    };
    const subscribe = async (name: string, params: StreamParams) => {
      if (!isStreamName(name)) return error(400, "Unknown stream type");
      const outcome = await connection.subscribe(name, params);
      if (!outcome.ok) error(outcome.status, outcome.error);
    };
    if (initial) run(() => subscribe(initial.name, initial.params));
    return {
      message: (text) => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return error(400, "Could not parse the message as JSON");
        }
        const message = (parsed ?? {}) as {
          type?: unknown;
          stream?: unknown;
          tag?: unknown;
          list?: unknown;
          group?: unknown;
          channel?: unknown;
        };
        const name = typeof message.stream === "string" ? message.stream : "";
        const params: StreamParams = {
          tag: typeof message.tag === "string" ? message.tag : undefined,
          list: typeof message.list === "string" ? message.list : undefined,
          group: typeof message.group === "string" ? message.group : undefined,
          channel: typeof message.channel === "string" ? message.channel : undefined,
        };
        if (message.type === "subscribe") run(() => subscribe(name, params));
        else if (message.type === "unsubscribe") {
          run(async () => {
            if (isStreamName(name)) await connection.unsubscribe(name, params);
            else error(400, "Unknown stream type");
          });
        } else error(400, "Unknown message type");
      },
      closed: () => {
        this.#sessions.delete(entry);
        this.#held.delete(connection);
        void connection.close();
      },
    };
  }

  /**
   * Keeps a stream that came with a token until its session ends. Checked
   * once now (the session may have ended since the request was
   * authenticated) and again on every announced sign-in change: a
   * revocation, a password change, a suspension or disabling of the account,
   * announced by whichever process made it, ends the stream at once.
   */
  #hold(connection: StreamConnection, sessionId: string | null, end: () => void): void {
    if (sessionId === null || this.liveness === null) return;
    this.#held.set(connection, { sessionId, end });
    this.#listening ??= this.liveness
      .onSignInChanged(() => void this.#endRevokedStreams())
      .then(
        () => undefined,
        (error: unknown) => logger.error("Streams cannot hear of sign-in changes: {error}", { error }),
      );
    void this.#listening.then(() => this.#endRevokedStreams());
    // What no announcement reaches (a change made by the CLI beside a server on the in-memory pubsub) is
    // caught as late as a kept session would answer for it.
    if (this.#sweeping === null) {
      this.#sweeping = setInterval(() => void this.#endRevokedStreams(), SESSION_CACHE_TTL_MS);
      this.#sweeping.unref?.();
    }
  }

  /** Ends the held streams whose sessions no longer authenticate; checks run one at a time, a change heard meanwhile checks again. */
  async #endRevokedStreams(): Promise<void> {
    if (this.#checking) {
      this.#checkAgain = true;
      return this.#checking;
    }
    this.#checking = (async () => {
      do {
        this.#checkAgain = false;
        const held = [...this.#held];
        if (held.length === 0 || this.liveness === null) break;
        try {
          const live = await this.liveness.liveSessionIds([...new Set(held.map(([, entry]) => entry.sessionId))]);
          for (const [connection, entry] of held) {
            // A stream its client left without the host saying so is only forgotten.
            if (connection.closed) this.#held.delete(connection);
            if (live.has(entry.sessionId) || this.#held.get(connection) !== entry) continue;
            this.#held.delete(connection);
            entry.end();
          }
        } catch (error) {
          logger.error("Open streams could not be checked against their sessions: {error}", { error });
        }
      } while (this.#checkAgain);
    })();
    try {
      await this.#checking;
    } finally {
      this.#checking = null;
    }
  }
}
