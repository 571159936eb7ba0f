import type { ServerResponse } from "node:http";
import { BodyBuffers, type BodyPieces, piecesLength, writePieces } from "./body-buffers.js";
import { internalErrorResponse } from "./error-responses.js";
import { leavesUnreadBody } from "./request-body.js";

// Node manages the connection and the framing itself; copying these from a Response
// (say, one proxied from fetch) would contradict what Node actually does on the wire.
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"]);

/**
 * Bytes that may wait to be sent with the headers, so a body available at once goes out in one write with a
 * Content-Length (a page of 40 statuses is about 70 KB). Only bytes already in memory are held back.
 */
const COALESCE_BYTES = 1024 * 1024;

const NOT_READY = Symbol("not ready");

/**
 * Where Kith's fetch handler puts a body it already holds in memory (a string,
 * bytes, or pieces of both; see BufferedResponse in @kith/core): written as it
 * is, without building and reading the Response's stream. `Symbol.for` so the
 * adapter and core agree without importing each other.
 */
const BUFFERED_BODY = Symbol.for("kith.response.bufferedBody");

/** Where answers made of pieces are assembled, the same memory answer after answer. */
const bodyBuffers = new BodyBuffers();

function isPieces(value: unknown): value is BodyPieces {
  return Array.isArray(value) && value.every((piece) => typeof piece === "string" || piece instanceof Uint8Array);
}

export function bufferedBodyOf(response: Response): string | Uint8Array | BodyPieces | undefined {
  const value = (response as unknown as Record<symbol, unknown>)[BUFFERED_BODY];
  return typeof value === "string" || value instanceof Uint8Array || isPieces(value) ? value : undefined;
}

/** Writes a body made of pieces in one write with the headers, assembled in a buffer used again once it has gone out. */
async function endWithPieces(res: ServerResponse, pieces: BodyPieces): Promise<void> {
  const buffer = bodyBuffers.take(piecesLength(pieces));
  res.end(writePieces(pieces, buffer));
  await untilFinished(res);
  // Only a flushed answer frees its memory: on a connection closed mid-write the socket may still hold it.
  if (res.writableFinished) bodyBuffers.give(buffer);
}

type Chunk = ReadableStreamReadResult<Uint8Array>;

/**
 * Resolves when the event loop gets to I/O again. A body built from a string
 * or buffer is readable before that; one that waits on a database or an event
 * stream is not, and its headers must not wait for it. One turn serves every
 * read of a response, so a body available at once costs a single timer.
 */
function nextTurn(): { readonly reached: Promise<typeof NOT_READY>; cancel(): void } {
  let immediate: NodeJS.Immediate | undefined;
  const reached = new Promise<typeof NOT_READY>((resolve) => {
    immediate = setImmediate(resolve, NOT_READY);
  });
  return { reached, cancel: () => clearImmediate(immediate) };
}

function untilDrainOrClose(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Resolves when the response has been handed to the OS, or the connection is gone. */
function untilFinished(res: ServerResponse): Promise<void> {
  if (res.writableFinished || res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("finish", done);
      res.off("close", done);
      resolve();
    };
    res.on("finish", done);
    res.on("close", done);
  });
}

function mayHaveBody(res: ServerResponse): boolean {
  if (res.req?.method === "HEAD") return false;
  const status = res.statusCode;
  return !(status === 204 || status === 304 || (status >= 100 && status < 200));
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function writeHead(response: Response, res: ServerResponse): void {
  res.statusCode = response.status;
  if (response.statusText) res.statusMessage = response.statusText;
  for (const [name, value] of response.headers) {
    if (name === "set-cookie" || HOP_BY_HOP.has(name)) continue;
    res.setHeader(name, value);
  }
  // Each cookie needs its own header line: joined with commas they would no longer parse (Expires contains one).
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  // Unread request bytes on a kept-alive socket would be read as the next request.
  if (res.req && leavesUnreadBody(res.req)) res.setHeader("connection", "close");
}

/**
 * Writes a web Response to a node:http ServerResponse: status, headers (each
 * Set-Cookie on its own line), then the body, streamed with backpressure (a
 * body Kith's handler holds in memory goes out in one write with them).
 * Headers go out as soon as the body is not immediately available, so
 * server-sent events start at once. The body is not read for HEAD, 204 and
 * 304, and reading stops (the stream is cancelled) when the client goes away.
 *
 * Resolves once the response is handed to the OS or the client is gone. If the
 * body stream fails, the response is destroyed (a truncated response must not
 * look complete), or answered with a 500 if nothing was sent yet; the promise
 * then rejects with the stream's error so the caller can log it.
 */
export async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  if (res.headersSent || res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  if (response.status < 100) {
    // Response.error(): a network error; the closest an HTTP server can say is a 500.
    return writeResponse(internalErrorResponse(), res);
  }
  writeHead(response, res);
  const buffered = bufferedBodyOf(response);
  if (buffered !== undefined) {
    // One write with the headers; Node sets the Content-Length of what `end` is given.
    if (!mayHaveBody(res)) res.end();
    else if (typeof buffered === "string" || buffered instanceof Uint8Array) res.end(buffered);
    else return endWithPieces(res, buffered);
    return untilFinished(res);
  }
  const body = response.body;
  if (!body || !mayHaveBody(res)) {
    await body?.cancel().catch(() => {});
    res.end();
    return untilFinished(res);
  }

  const reader = body.getReader();
  const onClose = (): void => {
    // The client left before the end: stop the producer (an event stream, a file read).
    if (!res.writableFinished) reader.cancel().catch(() => {});
  };
  res.on("close", onClose);
  const turn = nextTurn();
  try {
    let pending: Promise<Chunk> | null = null;
    const buffered: Uint8Array[] = [];
    let size = 0;
    // Collect what is ready right away; if that is the whole body, it goes out with a Content-Length.
    while (size < COALESCE_BYTES) {
      const read = reader.read();
      const result = await Promise.race([read, turn.reached]);
      if (result === NOT_READY) {
        pending = read;
        break;
      }
      if (result.done) {
        turn.cancel();
        if (!res.destroyed) res.end(concat(buffered, size));
        return await untilFinished(res);
      }
      buffered.push(result.value);
      size += result.value.byteLength;
    }
    turn.cancel();
    if (res.destroyed) {
      await reader.cancel().catch(() => {});
      return;
    }
    if (size > 0) {
      if (!res.write(concat(buffered, size))) await untilDrainOrClose(res);
    } else {
      res.flushHeaders();
    }

    for (;;) {
      const result: Chunk = await (pending ?? reader.read());
      pending = null;
      if (result.done || res.destroyed) break;
      if (!res.write(result.value)) await untilDrainOrClose(res);
    }
    if (res.destroyed) {
      await reader.cancel().catch(() => {});
      return;
    }
    res.end();
    await untilFinished(res);
  } catch (error) {
    reader.cancel(error).catch(() => {});
    if (!res.headersSent && !res.destroyed) {
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      await writeResponse(internalErrorResponse(), res);
    } else {
      res.destroy();
    }
    throw error;
  } finally {
    turn.cancel();
    res.off("close", onClose);
  }
}
