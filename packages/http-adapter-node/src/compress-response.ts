import type { IncomingMessage } from "node:http";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import { piecesLength } from "./body-buffers.js";
import { bufferedBodyOf } from "./write-response.js";

/**
 * Compression of answers for clients that accept it: JSON (the API, ActivityPub documents, the OpenAPI document)
 * and text (the HTML API reference) above a small size, in brotli or gzip. Event streams, media and answers
 * already encoded pass untouched. The work runs on libuv's thread pool, not the event loop.
 */

/** Below this, compression saves less than a packet and costs a copy. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Brotli's quality 4: about gzip's speed with a smaller result; the highest qualities take seconds on megabytes. */
const BROTLI_QUALITY = 4;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export type ContentCoding = "br" | "gzip";

const COMPRESSIBLE =
  /^(?:application\/(?:json|[\w.+-]*\+json|javascript|xml|[\w.+-]*\+xml)|text\/(?!event-stream)[\w.+-]+|image\/svg\+xml)\s*(?:;|$)/i;

/** The coding to answer in from an Accept-Encoding header: brotli before gzip, neither when refused (q=0). */
export function chooseCoding(acceptEncoding: string | undefined): ContentCoding | null {
  if (!acceptEncoding) return null;
  const accepted = new Map<string, number>();
  for (const entry of acceptEncoding.split(",")) {
    const [name = "", ...parameters] = entry.trim().toLowerCase().split(";");
    const q = parameters.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((value) => value !== undefined);
    accepted.set(name.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = (coding: ContentCoding): number => accepted.get(coding) ?? accepted.get("*") ?? 0;
  if (weight("br") > 0 && weight("br") >= weight("gzip")) return "br";
  if (weight("gzip") > 0) return "gzip";
  return null;
}

function worthCompressing(response: Response, req: IncomingMessage): boolean {
  if (req.method === "HEAD" || !response.body) return false;
  if (response.status < 200 || response.status === 204 || response.status === 206 || response.status === 304) return false;
  if (response.headers.has("content-encoding") || response.headers.has("content-range")) return false;
  if (/\bno-transform\b/i.test(response.headers.get("cache-control") ?? "")) return false;
  if (!COMPRESSIBLE.test(response.headers.get("content-type") ?? "")) return false;
  const declared = response.headers.get("content-length");
  return declared === null || Number(declared) >= MIN_COMPRESSED_BYTES;
}

function bufferedLength(response: Response): number | null {
  const buffered = bufferedBodyOf(response);
  if (buffered === undefined) return null;
  if (typeof buffered === "string") return Buffer.byteLength(buffered, "utf8");
  return buffered instanceof Uint8Array ? buffered.byteLength : piecesLength(buffered);
}

function compress(bytes: Uint8Array, coding: ContentCoding): Promise<Buffer> {
  if (coding === "gzip") return gzipAsync(bytes);
  return brotli(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    },
  });
}

/** The response compressed for this request when the client accepts it and it is worth it; else the response itself. */
export async function compressResponse(response: Response, req: IncomingMessage): Promise<Response> {
  const coding = chooseCoding(req.headers["accept-encoding"]);
  if (!coding || !worthCompressing(response, req)) return response;
  // An answer held in memory and small stays on the adapter's fast path, unread.
  const known = bufferedLength(response);
  if (known !== null && known < MIN_COMPRESSED_BYTES) return response;
  const headers = new Headers(response.headers);
  const vary = headers.get("vary");
  if (!vary?.toLowerCase().includes("accept-encoding")) headers.set("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
  const bytes = new Uint8Array(await response.arrayBuffer());
  const init = { status: response.status, statusText: response.statusText, headers };
  if (bytes.byteLength < MIN_COMPRESSED_BYTES) return new Response(bytes, init);
  const compressed = await compress(bytes, coding);
  headers.set("content-encoding", coding);
  headers.set("content-length", String(compressed.byteLength));
  // Another representation: a strong validator of the identity bytes would claim these are the same bytes.
  const etag = headers.get("etag");
  if (etag && !etag.startsWith("W/")) headers.set("etag", `W/${etag}`);
  return new Response(new Uint8Array(compressed.buffer as ArrayBuffer, compressed.byteOffset, compressed.byteLength), init);
}
