/**
 * How Kith accepts a WebSocket through any HTTP host. The fetch handler sees
 * the upgrade request as an ordinary GET; when the streaming endpoint agrees
 * to it (the token is good), it attaches an acceptor to the Request under
 * this symbol. The host (packages/http-adapter-node for node:http) completes
 * the handshake and wires the socket to the acceptor; if no acceptor is
 * attached it answers the upgrade with the handler's (error) response.
 * `Symbol.for` so host and core agree even when loaded as separate copies.
 */
export const WEBSOCKET_ACCEPT: unique symbol = Symbol.for("kith.websocket.accept") as never;

/** What a session can do to its socket. */
export interface WebSocketPeer {
  send(text: string): void;
  close(code: number, reason: string): void;
}

/** A session's reactions to its socket. */
export interface WebSocketSession {
  /** A text message from the client. */
  message(text: string): void;
  /** The socket closed, for whatever reason; release everything. */
  closed(): void;
}

export interface WebSocketAcceptor {
  /** The subprotocol to answer with, when the client offered some (Mastodon clients send the token there). */
  readonly protocol: string | null;
  open(peer: WebSocketPeer): WebSocketSession;
}

/** The acceptor the endpoint attached to this upgrade request, if any. */
export function websocketAcceptorOf(request: Request): WebSocketAcceptor | undefined {
  return (request as unknown as Record<symbol, WebSocketAcceptor | undefined>)[WEBSOCKET_ACCEPT];
}

export function attachWebsocketAcceptor(request: Request, acceptor: WebSocketAcceptor): void {
  (request as unknown as Record<symbol, WebSocketAcceptor>)[WEBSOCKET_ACCEPT] = acceptor;
}
