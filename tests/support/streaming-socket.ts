/**
 * A WebSocket on a server's streaming API, as a client holds one: the
 * runtime's own WebSocket, every message kept as it came.
 */
import { expect } from "vitest";
import { eventually } from "@kith/core/testing";
import type { NodeServer } from "@kith/http-adapter-node";

export interface WsMessage {
  stream?: string[];
  event?: string;
  payload?: string;
  error?: string;
  status?: number;
}

export interface StreamingSocket {
  readonly ws: WebSocket;
  readonly messages: WsMessage[];
  send(message: unknown): void;
  /** Waits until every earlier message was handled: an unsubscribe of an unknown stream answers with an error, in order. */
  settle(): Promise<void>;
  closed: Promise<{ code: number }>;
}

/** The URL of the server's streaming WebSocket, with `query` (`?stream=...`). */
export function wsUrl(server: NodeServer, query = ""): string {
  return `${server.url.replace(/^http/, "ws")}/api/v1/streaming${query}`;
}

/** Opens a WebSocket at `url` (a token may go as the subprotocol) and resolves once it is open. */
export async function openSocket(url: string, protocols?: string[]): Promise<StreamingSocket> {
  const ws = new WebSocket(url, protocols);
  const messages: WsMessage[] = [];
  ws.addEventListener("message", (event) => messages.push(JSON.parse(String(event.data)) as WsMessage));
  const closed = new Promise<{ code: number }>((resolve) => ws.addEventListener("close", (event) => resolve({ code: event.code })));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => reject(new Error("WebSocket failed to open")));
  });
  let barriers = 0;
  return {
    ws,
    messages,
    closed,
    send: (message) => ws.send(JSON.stringify(message)),
    async settle() {
      barriers += 1;
      const expected = barriers;
      ws.send(JSON.stringify({ type: "unsubscribe", stream: "barrier" }));
      await eventually(() => expect(messages.filter((m) => m.error === "Unknown stream type").length).toBeGreaterThanOrEqual(expected));
    },
  };
}
