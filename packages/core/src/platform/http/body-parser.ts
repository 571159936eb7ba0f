import { KithError, isKithError } from "../../domain/errors.js";
import { assertNestingWithinBound } from "./nesting-depth.js";
import { expandRailsParams } from "./rails-params.js";

/**
 * The one body parser of every route. Real clients send JSON, form encoding,
 * multipart, or no Content-Type at all; all become a plain object for zod.
 */

/** Reads at most `maxBytes` of a body; refuses more with 413 without reading it all. */
export async function readLimited(request: Request, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) throw new KithError("request.body_too_large");
  if (!request.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new KithError("request.body_too_large");
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof KithError) throw error;
    // A transport error that carries a code of ours (the Node adapter's own size cap) keeps its meaning.
    if (isKithError(error)) throw new KithError(error.code, { cause: error });
    throw new KithError("request.malformed_body", { cause: error });
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function mediaTypeOf(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new KithError("request.malformed_json", { cause: error });
  }
  assertNestingWithinBound(value);
  return value;
}

function parseForm(text: string): Record<string, unknown> {
  return expandRailsParams(new URLSearchParams(text).entries());
}

/** Parses a request body into a value for validation; an absent body becomes `{}`. */
export async function parseBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = mediaTypeOf(request);
  if (type === "multipart/form-data") {
    // formData() buffers; the size check comes first from Content-Length, then from the bytes read.
    const bytes = await readLimited(request, maxBytes);
    let form: FormData;
    try {
      form = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
    } catch (error) {
      throw new KithError("request.malformed_body", { cause: error });
    }
    return expandRailsParams(form.entries());
  }
  const bytes = await readLimited(request, maxBytes);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (error) {
    throw new KithError("request.malformed_body", { message: "The request body is not valid UTF-8", cause: error });
  }
  if (type === "application/json" || type.endsWith("+json")) return text.trim() === "" ? {} : parseJson(text);
  if (type === "application/x-www-form-urlencoded") return parseForm(text);
  if (type === "") {
    const trimmed = text.trim();
    if (trimmed === "") return {};
    if (trimmed.startsWith("{") || trimmed.startsWith("[")) return parseJson(trimmed);
    return parseForm(trimmed);
  }
  if (bytes.byteLength === 0) return {};
  throw new KithError("request.unsupported_media_type", { message: `Content type ${type} is not accepted here` });
}

/** Query string parameters, Rails-style keys expanded. */
export function parseQuery(url: URL): Record<string, unknown> {
  return expandRailsParams(url.searchParams.entries());
}
