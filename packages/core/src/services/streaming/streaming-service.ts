import { KithError } from "../../domain/errors.js";
import type { ServiceDeps } from "../deps.js";
import { eventStreamResponse } from "./event-stream.js";
import { StreamConnection, type StreamEvent, type StreamRenderers, type SubscribeOutcome } from "./stream-connection.js";
import { StreamHub } from "./stream-hub.js";
import { isStreamName, type StreamName, type StreamParams } from "./stream-names.js";
import type { WebSocketAcceptor, WebSocketPeer, WebSocketSession } from "./websocket-contract.js";

export type { StreamEvent, StreamRenderers } from "./stream-connection.js";

/** The WebSocket close code for a server going away (shutdown). */
const GOING_AWAY = 1001;

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

  constructor(
    deps: Pick<ServiceDeps, "pubsub">,
    private readonly renderers: StreamRenderers,
  ) {
    this.#hub = new StreamHub(deps.pubsub, renderers);
  }

  /** A connection for a viewer (null for a guest), its events told to `emit`. */
  connect(viewerId: string | null, emit: (event: StreamEvent) => void): StreamConnection {
    return new StreamConnection(this.#hub, this.renderers, viewerId, emit);
  }

  /** An event stream of one stream; refused (401, 404, 400) before any byte is sent. */
  async eventStream(viewerId: string | null, name: StreamName, params: StreamParams, signal: AbortSignal | null): Promise<Response> {
    let sink: ((event: StreamEvent) => void) | null = null;
    const early: StreamEvent[] = [];
    const connection = this.connect(viewerId, (event) => (sink ? sink(event) : early.push(event)));
    const outcome = await connection.subscribe(name, params);
    if (!outcome.ok) {
      await connection.close();
      throw refusal(outcome);
    }
    return eventStreamResponse(
      connection,
      (emit) => {
        sink = emit;
        for (const event of early.splice(0)) emit(event);
      },
      signal,
    );
  }

  /** What accepts a WebSocket for a viewer; `initial` is the stream named in the URL (`?stream=`), if any. */
  webSocketAcceptor(
    viewerId: string | null,
    protocol: string | null,
    initial: { name: string; params: StreamParams } | null,
  ): WebSocketAcceptor {
    return { protocol, open: (peer) => this.#open(viewerId, peer, initial) };
  }

  /** Streams subscribed over this process's open WebSocket sessions (for operators, and tests that wait for a subscription). */
  get webSocketSubscriptions(): number {
    return [...this.#sessions].reduce((sum, session) => sum + session.connection.subscriptions, 0);
  }

  /** Closes every WebSocket session of this process (server shutdown). */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions];
    this.#sessions.clear();
    await Promise.all(
      sessions.map(async ({ peer, connection }) => {
        await connection.close();
        peer.close(GOING_AWAY, "Server shutting down");
      }),
    );
  }

  #open(viewerId: string | null, peer: WebSocketPeer, initial: { name: string; params: StreamParams } | null): WebSocketSession {
    const connection = this.connect(viewerId, (event) =>
      peer.send(
        JSON.stringify({ stream: event.stream, event: event.event, ...(event.payload !== undefined && { payload: event.payload }) }),
      ),
    );
    const entry = { peer, connection };
    this.#sessions.add(entry);
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
        const message = (parsed ?? {}) as { type?: unknown; stream?: unknown; tag?: unknown; list?: unknown };
        const name = typeof message.stream === "string" ? message.stream : "";
        const params: StreamParams = {
          tag: typeof message.tag === "string" ? message.tag : undefined,
          list: typeof message.list === "string" ? message.list : undefined,
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
        void connection.close();
      },
    };
  }
}
