import type { IncomingMessage } from "node:http";
import { BodyTooLargeError } from "./body-limits.js";

/** How far a request body got; writeResponse reads it to decide whether the connection can be reused. */
interface BodyProgress {
  /** Nobody has asked for a single byte yet. */
  untouched: boolean;
  /** Every byte was handed on. */
  ended: boolean;
  /** The cap was hit: the rest is still on the wire. */
  tooLarge: boolean;
  /** Content-Length within the cap: at most that many bytes are left to discard. */
  smallDeclared: boolean;
}

const progressByRequest = new WeakMap<IncomingMessage, BodyProgress>();

/**
 * Whether the connection must close after the response to this request: part of
 * its body is still unread on the socket, and the next request on a keep-alive
 * connection would start in the middle of it (or wait behind it forever, once
 * the socket stopped reading).
 *
 * A body nobody touched is fine if it has arrived or is declared within the
 * cap: Node reads and discards it after the response. (`req.complete` alone
 * would not do: a quick handler answers before Node has even parsed a body
 * that arrived in the same packet as the headers.) A body nobody touched of
 * unknown or excessive length is not worth reading just to throw away.
 */
export function leavesUnreadBody(req: IncomingMessage): boolean {
  const progress = progressByRequest.get(req);
  if (!progress || progress.ended) return false;
  if (progress.tooLarge) return true;
  return !(progress.untouched && (req.complete || progress.smallDeclared));
}

/** Whether the request declares a body at all (a POST without one is common: favourite, follow). */
export function hasBody(req: IncomingMessage): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = req.headers["content-length"];
  return length !== undefined && Number(length) > 0;
}

/**
 * The request body as a web ReadableStream, capped at `limit` bytes.
 *
 * Pull-driven (high-water mark 0): the socket is read only while the consumer
 * waits for bytes, so a slow consumer slows the client down instead of filling
 * memory, and a handler that never reads leaves the body to Node.
 * Over the cap (declared by Content-Length or counted), the stream errors with a
 * BodyTooLargeError and the socket is no longer read.
 */
export function requestBodyStream(req: IncomingMessage, limit: number): ReadableStream<Uint8Array> {
  const declared = Number(req.headers["content-length"]);
  const progress: BodyProgress = {
    untouched: true,
    ended: false,
    tooLarge: false,
    smallDeclared: Number.isFinite(declared) && declared <= limit,
  };
  progressByRequest.set(req, progress);
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let settled = false;
  let listening = false;
  let received = 0;

  const onData = (chunk: Buffer): void => {
    if (settled || !controller) return;
    received += chunk.byteLength;
    if (received > limit) {
      tooLarge();
      return;
    }
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  const onEnd = (): void => {
    if (settled) return;
    settled = true;
    progress.ended = true;
    detach();
    controller?.close();
  };
  const onClose = (): void => {
    if (!req.readableEnded)
      fail(Object.assign(new Error("The client closed the connection before sending the whole body"), { code: "ECONNRESET" }));
  };
  const onError = (error: Error): void => fail(error);
  const ignoreError = (): void => {};

  function detach(): void {
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("close", onClose);
    req.off("error", onError);
  }
  function fail(error: Error): void {
    if (settled) return;
    settled = true;
    detach();
    controller?.error(error);
  }
  function tooLarge(): void {
    progress.tooLarge = true;
    // Stop reading: whatever else the client sends stays in the kernel until the connection closes.
    req.pause();
    fail(new BodyTooLargeError(limit));
  }

  // A late socket error must never become an unhandled 'error' event.
  req.on("error", ignoreError);

  return new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
      },
      pull() {
        if (settled) return;
        progress.untouched = false;
        if (!listening) {
          // Checked on the first read, not earlier: a handler that never reads the body
          // never meets the cap, one that does fails before a byte is read.
          if (Number.isFinite(declared) && declared > limit) {
            tooLarge();
            return;
          }
          listening = true;
          req.on("data", onData);
          req.on("end", onEnd);
          req.on("close", onClose);
          req.on("error", onError);
        }
        req.resume();
      },
      cancel() {
        if (settled) return;
        settled = true;
        detach();
        req.pause();
      },
    },
    { highWaterMark: 0 },
  );
}
