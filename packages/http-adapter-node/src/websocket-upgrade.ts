import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";

/**
 * WebSockets for a fetch handler. The upgrade request goes to the handler as
 * an ordinary Request; an endpoint that accepts it attaches an acceptor to
 * that Request under `Symbol.for("kith.websocket.accept")` (Kith's streaming
 * API does). This completes the handshake and wires the socket to it; when
 * nothing accepted, the handler's error answer (or 400) is written instead.
 */
const ACCEPT = Symbol.for("kith.websocket.accept");

interface Peer {
  send(text: string): void;
  close(code: number, reason: string): void;
}

interface Session {
  message(text: string): void;
  closed(): void;
}

interface Acceptor {
  readonly protocol: string | null;
  open(peer: Peer): Session;
}

/** Pings find dead peers (and keep proxies from timing out idle sockets); one unanswered ping closes the socket. */
const PING_INTERVAL_MS = 30_000;
/** Clients send small subscribe messages; nothing bigger is read. */
const MAX_MESSAGE_BYTES = 64 * 1024;
const GOING_AWAY = 1001;

function acceptorOf(request: Request): Acceptor | undefined {
  const value = (request as unknown as Record<symbol, unknown>)[ACCEPT];
  return value && typeof value === "object" && "open" in value ? (value as Acceptor) : undefined;
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  429: "Too Many Requests",
};

async function writeRefusal(socket: Duplex, response: Response): Promise<void> {
  // A success without an acceptor means nothing took the upgrade: that is the client's mistake (400).
  const failed = response.status >= 400;
  const status = Math.max(response.status, 400);
  const body = failed ? Buffer.from(await response.arrayBuffer()) : Buffer.alloc(0);
  const type = failed ? (response.headers.get("content-type") ?? "text/plain") : "text/plain";
  socket.on("error", () => {});
  if (!socket.writable) return void socket.destroy();
  const headers = `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\nConnection: close\r\nContent-Type: ${type}\r\nContent-Length: ${body.byteLength}\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(headers), body]), () => socket.destroy());
}

export interface WebSocketUpgrades {
  /** Answers one upgrade request; `respond` runs the fetch handler on it. */
  handle(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    respond: () => Promise<{ request: Request | null; response: Response }>,
  ): Promise<void>;
  /** Closes every open WebSocket with 1001 (going away). */
  closeAll(): void;
}

export function createWebSocketUpgrades(): WebSocketUpgrades {
  const acceptors = new WeakMap<IncomingMessage, Acceptor>();
  // The ws library (about 13 MB and a tenth of a second to load) is loaded with the first WebSocket, not at start.
  let server: Promise<WebSocketServer> | undefined;
  const serverOf = (): Promise<WebSocketServer> => {
    server ??= import("ws").then(
      ({ WebSocketServer }) =>
        new WebSocketServer({
          noServer: true,
          maxPayload: MAX_MESSAGE_BYTES,
          // Mastodon clients may send their token as the subprotocol; the handshake must name one of those offered.
          handleProtocols: (protocols, req) => {
            const wanted = acceptors.get(req)?.protocol;
            return wanted && protocols.has(wanted) ? wanted : false;
          },
        }),
    );
    return server;
  };
  const open = new Set<WebSocket>();

  function wire(ws: WebSocket, acceptor: Acceptor): void {
    open.add(ws);
    let alive = true;
    const session = acceptor.open({
      send: (text) => {
        if (ws.readyState === ws.OPEN) ws.send(text);
      },
      close: (code, reason) => ws.close(code, reason),
    });
    const ping = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
    }, PING_INTERVAL_MS);
    ping.unref();
    ws.on("pong", () => {
      alive = true;
    });
    ws.on("message", (data, isBinary) => {
      if (!isBinary) session.message(data.toString());
    });
    ws.on("error", () => ws.terminate());
    ws.on("close", () => {
      clearInterval(ping);
      open.delete(ws);
      session.closed();
    });
  }

  return {
    async handle(req, socket, head, respond) {
      const { request, response } = await respond();
      const acceptor = request ? acceptorOf(request) : undefined;
      if (!acceptor) return writeRefusal(socket, response);
      acceptors.set(req, acceptor);
      (await serverOf()).handleUpgrade(req, socket, head, (ws) => wire(ws, acceptor));
    },
    closeAll() {
      for (const ws of open) ws.close(GOING_AWAY, "Server shutting down");
    },
  };
}
