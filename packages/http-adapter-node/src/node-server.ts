import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { createArrivalQueue, startsInArrivalOrder } from "./arrival-queue.js";
import type { BodyLimits } from "./body-limits.js";
import { badRequestResponse, internalErrorResponse } from "./error-responses.js";
import { createInFlightRequests } from "./in-flight-requests.js";
import { type LoadSheddingOptions, createLoadShedder } from "./load-shedding.js";
import { type NodeFetchHandler, type NodeServerErrorContext, defaultOnError, pathOnly, toNodeHandler } from "./node-handler.js";
import { type RequestFromNode, UnacceptableRequestError, requestFromNode } from "./request-from-node.js";
import { compileTrustedProxies } from "./trusted-proxies.js";
import { createWebSocketUpgrades } from "./websocket-upgrade.js";

export type { NodeFetchHandler, NodeRequestInfo, NodeServerErrorContext } from "./node-handler.js";

export interface NodeServerOptions {
  readonly handler: NodeFetchHandler;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
  /** @default { json: 1_000_000, other: 100 * 1024 * 1024 } */
  readonly bodyLimits?: BodyLimits;
  /**
   * Addresses or CIDR ranges (IPv4 and IPv6) of proxies whose X-Forwarded-For/-Proto/-Host are believed;
   * "loopback" stands for 127.0.0.0/8 and ::1. An unreadable entry makes startNodeServer reject.
   * @default []
   */
  readonly trustedProxies?: readonly string[];
  /**
   * Called for HTTP Upgrade requests. Without it, upgrades go to the handler as
   * ordinary requests and become WebSockets when it accepts them (Kith's
   * streaming API does, see websocket-upgrade.ts); otherwise they are refused
   * with the handler's error, or 400.
   */
  readonly onUpgrade?: (request: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /**
   * Milliseconds graceful shutdown waits for in-flight requests before closing their connections.
   * @default 10_000
   */
  readonly shutdownTimeoutMs?: number;
  /** Run after the server stopped accepting and in-flight requests finished (e.g. stop job workers). */
  readonly onShutdown?: () => Promise<void> | void;
  /**
   * Told about a handler that threw, a response body that failed mid-way, or an upgrade hook that threw.
   * @default one line on stderr with method, path and the error
   */
  readonly onError?: (error: unknown, context: NodeServerErrorContext) => void;
  /** Serve HTTPS with this certificate and key (PEM); plain HTTP without. @default undefined */
  readonly tls?: NodeServerTls;
  /**
   * Answer 503 with Retry-After, before any work, while the event loop runs later than a bound (load-shedding.ts).
   * @default { maxEventLoopDelayMs: 1000 }
   */
  readonly loadShedding?: LoadSheddingOptions;
  /** Compress JSON and text answers for clients that accept gzip or brotli (compress-response.ts). @default true */
  readonly compression?: boolean;
}

/** A PEM certificate (chain) and its private key. */
export interface NodeServerTls {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

export interface NodeServer {
  readonly server: Server;
  /** e.g. "http://127.0.0.1:41234" */
  readonly url: string;
  /** Graceful shutdown: stop accepting, finish in-flight requests (close idle keep-alive connections), run onShutdown, resolve. Idempotent. */
  close(): Promise<void>;
}

/** Slow clients get this long to send their headers (slowloris). */
const HEADERS_TIMEOUT_MS = 60_000;
/** The whole request, body included: uploads over slow links need minutes. Responses (event streams) are not limited. */
const REQUEST_TIMEOUT_MS = 5 * 60_000;
/** Idle keep-alive connections; above typical client reuse windows, below typical proxy idle timeouts. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
function urlOf(address: AddressInfo, secure = false): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `${secure ? "https" : "http"}://${host}:${address.port}`;
}

function refuseUpgrade(socket: Duplex, status: string): void {
  socket.on("error", () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
}

/**
 * Serves a fetch handler over node:http, with body limits, trusted proxies,
 * timeouts and graceful shutdown. Resolves once listening.
 */
export async function startNodeServer(options: NodeServerOptions): Promise<NodeServer> {
  const { handler, bodyLimits } = options;
  const trustedProxies = options.trustedProxies ?? [];
  // Fail at start, not on the first request, on an unreadable proxy entry.
  compileTrustedProxies(trustedProxies);
  const onError = options.onError ?? defaultOnError;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;

  const serverOptions = {
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  };
  // An https.Server is an http.Server with TLS underneath: the same request events and shutdown.
  const server: Server = options.tls
    ? (createHttpsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }) as unknown as Server)
    : createServer(serverOptions);
  const inFlight = createInFlightRequests();
  const upgraded = new Set<Duplex>();
  const webSockets = createWebSocketUpgrades();
  const arrivals = createArrivalQueue();
  const shedder = createLoadShedder(options.loadShedding);
  let closing: Promise<void> | null = null;

  const listener = toNodeHandler(handler, {
    trustedProxies,
    ...(bodyLimits && { bodyLimits }),
    onError,
    ...(options.compression !== undefined && { compression: options.compression }),
    isClosing: () => closing !== null,
  });

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (shedder.shed(pathOnly(req.url), res)) return;
    // Reads first come, first served, one per turn of the event loop; writes at once (arrival-queue.ts).
    const task = startsInArrivalOrder(req.method) ? arrivals.admit().then(() => listener(req, res)) : listener(req, res);
    inFlight.begin();
    void task.finally(() => inFlight.end());
  });

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (closing) return refuseUpgrade(socket, "503 Service Unavailable");
    // Tracked because an upgraded socket is no longer an HTTP connection: nothing else would close it at shutdown.
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    if (!options.onUpgrade) {
      webSockets
        .handle(req, socket, head, () => respondToUpgrade(req, socket))
        .catch((error: unknown) => {
          onError(error, { method: req.method ?? "GET", path: pathOnly(req.url) });
          socket.destroy();
        });
      return;
    }
    try {
      options.onUpgrade(req, socket, head);
    } catch (error) {
      onError(error, { method: req.method ?? "GET", path: pathOnly(req.url) });
      socket.destroy();
    }
  });

  /** The handler's answer to an upgrade request, with the Request it saw (an acceptor may hang on it). */
  async function respondToUpgrade(req: IncomingMessage, socket: Duplex): Promise<{ request: Request | null; response: Response }> {
    const context: NodeServerErrorContext = { method: req.method ?? "GET", path: pathOnly(req.url) };
    const controller = new AbortController();
    socket.once("close", () => controller.abort());
    let converted: RequestFromNode;
    try {
      converted = requestFromNode(req, { trustedProxies, bodyLimits, signal: controller.signal });
    } catch (error) {
      if (!(error instanceof UnacceptableRequestError)) onError(error, context);
      return { request: null, response: badRequestResponse("Bad upgrade request") };
    }
    try {
      return { request: converted.request, response: await handler(converted.request, { clientIp: converted.clientIp }) };
    } catch (error) {
      onError(error, context);
      return { request: null, response: internalErrorResponse() };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const url = urlOf(server.address() as AddressInfo, options.tls !== undefined);

  async function shutdown(): Promise<void> {
    shedder.stop();
    const stopped = new Promise<void>((resolve) => {
      // Stops accepting at once; the callback waits for every connection to end.
      server.close(() => resolve());
    });
    // Connections waiting for their next request would otherwise hold the shutdown open until they time out.
    server.closeIdleConnections();
    // Streaming clients are told the server is going away (1001) and reconnect elsewhere.
    webSockets.closeAll();

    let timer: NodeJS.Timeout | undefined;
    let late = false;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        late = true;
        resolve();
      }, shutdownTimeoutMs);
    });
    // A kept-alive connection may still bring a request while others finish: wait for those too.
    while (inFlight.size > 0 && !late) await Promise.race([inFlight.drained(), deadline]);
    clearTimeout(timer);
    // Past the deadline this cuts the stragglers (their signals abort); before it, only idle connections are left.
    server.closeAllConnections();

    try {
      await options.onShutdown?.();
    } finally {
      // Whoever took an upgraded socket had onShutdown to close it properly; what is left goes now.
      for (const socket of upgraded) socket.destroy();
      await stopped;
    }
  }

  return {
    server,
    url,
    close() {
      closing ??= shutdown();
      return closing;
    },
  };
}
