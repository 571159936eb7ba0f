import type { StreamConnection, StreamEvent } from "./stream-connection.js";

/** Comments keep proxies from closing an idle event stream; Mastodon sends one every 15 seconds. */
export const HEARTBEAT_MS = 15_000;

function frame(event: StreamEvent): string {
  return `event: ${event.event}\ndata: ${event.payload ?? ""}\n\n`;
}

/**
 * A server-sent event stream over one connection: `:)` at once, an event per
 * message, a `:thump` comment as keep-alive; the connection closes when the
 * client goes away (the body is cancelled or the request aborted).
 */
export function eventStreamResponse(
  connection: StreamConnection,
  attach: (emit: (event: StreamEvent) => void) => void,
  signal: AbortSignal | null,
): Response {
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(heartbeat);
    void connection.close();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (stopped) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      write(":)\n\n");
      attach((event) => write(frame(event)));
      heartbeat = setInterval(() => write(":thump\n\n"), HEARTBEAT_MS);
      heartbeat.unref?.();
      signal?.addEventListener("abort", () => {
        stop();
        try {
          controller.close();
        } catch {
          // Already closed by the reader.
        }
      });
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}
