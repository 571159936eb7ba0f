import type { MediaFile } from "./media-service.js";

/** Immutable: a file name holds a hash of its content, so the name never serves other bytes. */
const IMMUTABLE = "public, max-age=31536000, immutable";

type BlobFile = Extract<MediaFile, { kind: "blob" }>;

function baseHeaders(file: BlobFile, etag: string): Record<string, string> {
  return {
    "content-type": file.contentType,
    "cache-control": IMMUTABLE,
    etag,
    "accept-ranges": "bytes",
    "x-content-type-options": "nosniff",
    // Served files are data, never a page that runs: no scripts, even for a file a browser would render.
    "content-security-policy": "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
    "content-disposition": file.download ? "attachment" : "inline",
    "cross-origin-resource-policy": "cross-origin",
  };
}

/** One `bytes=` range of a file of `size` bytes, or null when the header asks for something else (then the whole file is sent). */
export function parseByteRange(header: string | null, size: number): { start: number; end: number } | "unsatisfiable" | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, from = "", to = ""] = match;
  if (from === "" && to === "") return null;
  if (from === "") {
    const suffix = Number(to);
    if (suffix === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return "unsatisfiable";
  return { start, end };
}

/**
 * The response for a stored media file: long immutable caching, an ETag from
 * the content-addressed name, 304 for a matching If-None-Match, and single
 * byte ranges (video players seek with them).
 */
export async function mediaFileResponse(request: Request, file: BlobFile, fileName: string): Promise<Response> {
  const etag = `"${fileName}"`;
  const headers = baseHeaders(file, etag);
  if (request.headers.get("if-none-match") === etag) {
    await file.body.cancel();
    return new Response(null, { status: 304, headers });
  }
  const range = parseByteRange(request.headers.get("range"), file.size);
  if (range === "unsatisfiable") {
    await file.body.cancel();
    return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${file.size}` } });
  }
  if (range) {
    // The blob port streams whole objects: the range is cut from the bytes read.
    const bytes = new Uint8Array(await new Response(file.body).arrayBuffer());
    const part = bytes.subarray(range.start, range.end + 1);
    return new Response(part, {
      status: 206,
      headers: { ...headers, "content-length": String(part.byteLength), "content-range": `bytes ${range.start}-${range.end}/${file.size}` },
    });
  }
  return new Response(file.body, { status: 200, headers: { ...headers, "content-length": String(file.size) } });
}
