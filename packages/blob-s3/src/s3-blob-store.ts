import { Readable } from "node:stream";
import { type BlobMetadata, type BlobStore, type Clock, type StoredBlob, assertValidBlobKey, getLogger, systemClock } from "@kith/core";
import { Agent, type Dispatcher, request } from "undici";
import { PartReader } from "./part-reader.js";
import { S3Addressing } from "./s3-endpoint.js";
import { S3RequestError } from "./s3-request-error.js";
import { escapeXml, isErrorDocument, xmlElementText } from "./s3-xml.js";
import {
  EMPTY_PAYLOAD_SHA256,
  type SigningCredentials,
  type SigningScope,
  amzDate,
  authorizationHeader,
  canonicalQueryString,
  presignedQuery,
  sha256Hex,
} from "./sigv4.js";

const logger = getLogger(["blob-s3"]);

/** Answers S3 documents as worth retrying: internal errors, throttling (503 SlowDown), and gateways in between. */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** S3's largest number of parts in one multipart upload. */
const MAX_PARTS = 10_000;

/** S3's smallest part (all but the last) in a multipart upload. */
const MIN_PART_BYTES = 5 * 1024 * 1024;

export interface S3BlobStoreOptions {
  /** Base URL of the store: `https://s3.eu-west-1.amazonaws.com`, `http://127.0.0.1:9000`. */
  readonly endpoint: string;
  /** Signing region. @default "us-east-1" (what most self-hosted stores expect) */
  readonly region?: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Address the bucket in the path (`host/bucket/key`) rather than the host name (`bucket.host/key`). @default false */
  readonly forcePathStyle?: boolean;
  /**
   * Base URL a CDN or a public bucket serves the objects under; `publicUrl`
   * then returns `<publicBaseUrl>/<key>`. Takes precedence over presigned URLs.
   */
  readonly publicBaseUrl?: string;
  /**
   * When set (and `publicBaseUrl` is not), `publicUrl` returns a presigned GET
   * URL valid this many seconds (1 to 604800), so clients fetch private
   * objects from the store directly. Unset, `publicUrl` returns null and Kith
   * serves the objects itself.
   */
  readonly presignedUrlSeconds?: number;
  /**
   * Streamed bodies longer than this go up as a multipart upload in parts of
   * this size, one part in memory at a time; shorter ones as one PUT.
   * @default 8 MiB (S3's minimum is 5 MiB)
   */
  readonly partSizeBytes?: number;
  /** How long to wait for a connection. @default 10000 */
  readonly connectTimeoutMs?: number;
  /** How long to wait for a response's headers. @default 30000 */
  readonly headersTimeoutMs?: number;
  /** Longest pause between two pieces of a response body. @default 60000 */
  readonly bodyTimeoutMs?: number;
  /** How many times a request is sent before its failure is reported (network errors, 500, 502, 503, 504). @default 3 */
  readonly maxAttempts?: number;
  /** Ceiling of the first retry's random delay, doubling for each further one. @default 100 */
  readonly retryBaseMs?: number;
  /** The undici dispatcher to send requests through (a proxy, custom DNS); the store then leaves closing it to the caller. */
  readonly dispatcher?: Dispatcher;
  /** Dates signatures. @default the system clock */
  readonly clock?: Clock;
}

interface S3Call {
  readonly method: "GET" | "PUT" | "POST" | "DELETE" | "HEAD";
  /** The object key, or null for the bucket. */
  readonly key: string | null;
  readonly query?: readonly (readonly [string, string])[];
  readonly body?: Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Short description of a call, for errors and logs; never holds credentials. */
function describeCall(call: S3Call): string {
  return `${call.method} ${call.key ?? "(bucket)"}${call.query?.length ? `?${call.query.map(([name]) => name).join("&")}` : ""}`;
}

function headerValue(headers: Dispatcher.ResponseData["headers"], name: string): string | null {
  const value = headers[name];
  if (Array.isArray(value)) return value[0] ?? null;
  return value ?? null;
}

/**
 * Kith's blob port on an S3-compatible object store (AWS S3, MinIO, Garage,
 * Ceph, R2, ...), with requests signed by Signature Version 4 and sent over
 * undici.
 *
 * Bodies stream both ways. A streamed put of unknown length is read one part
 * at a time: if it ends within the first part it goes up as one PUT, otherwise
 * as a multipart upload, completed only once every part is stored, so the key
 * shows the old object or the new one, never a partial one. A failed multipart
 * upload is aborted; stores that keep orphaned parts anyway should have a
 * lifecycle rule for incomplete multipart uploads.
 */
export class S3BlobStore implements BlobStore {
  readonly #addressing: S3Addressing;
  readonly #scope: SigningScope;
  readonly #credentials: SigningCredentials;
  readonly #publicBaseUrl: string | null;
  readonly #presignedUrlSeconds: number | null;
  readonly #partSize: number;
  readonly #headersTimeout: number;
  readonly #bodyTimeout: number;
  readonly #maxAttempts: number;
  readonly #retryBaseMs: number;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #clock: Clock;

  constructor(options: S3BlobStoreOptions) {
    this.#addressing = new S3Addressing({ url: options.endpoint, bucket: options.bucket, forcePathStyle: options.forcePathStyle ?? false });
    this.#scope = { region: options.region ?? "us-east-1", service: "s3" };
    if (!options.accessKeyId || !options.secretAccessKey) throw new TypeError("S3 access key id and secret access key are required");
    this.#credentials = { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey };
    this.#publicBaseUrl = options.publicBaseUrl ? options.publicBaseUrl.replace(/\/+$/, "") : null;
    this.#presignedUrlSeconds = options.presignedUrlSeconds ?? null;
    this.#partSize = options.partSizeBytes ?? 8 * 1024 * 1024;
    if (!Number.isInteger(this.#partSize) || this.#partSize < MIN_PART_BYTES) {
      throw new RangeError(`partSizeBytes must be a whole number of at least ${MIN_PART_BYTES} (S3's smallest part)`);
    }
    this.#headersTimeout = options.headersTimeoutMs ?? 30_000;
    this.#bodyTimeout = options.bodyTimeoutMs ?? 60_000;
    this.#maxAttempts = options.maxAttempts ?? 3;
    if (!Number.isInteger(this.#maxAttempts) || this.#maxAttempts < 1) {
      throw new RangeError("maxAttempts must be a whole number of at least 1");
    }
    this.#retryBaseMs = options.retryBaseMs ?? 100;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher =
      options.dispatcher ??
      new Agent({
        connectTimeout: options.connectTimeoutMs ?? 10_000,
        headersTimeout: this.#headersTimeout,
        bodyTimeout: this.#bodyTimeout,
      });
    this.#clock = options.clock ?? systemClock;
  }

  async put(key: string, body: Uint8Array | ReadableStream<Uint8Array>, options: { contentType: string }): Promise<BlobMetadata> {
    assertValidBlobKey(key);
    if (body instanceof Uint8Array) {
      await this.#putObject(key, body, options.contentType);
      return { contentType: options.contentType, size: body.byteLength };
    }
    const parts = new PartReader(body);
    let first: Uint8Array;
    try {
      first = await parts.read(this.#partSize);
    } catch (error) {
      await parts.cancel(error);
      throw error;
    }
    if (parts.ended) {
      await this.#putObject(key, first, options.contentType);
      return { contentType: options.contentType, size: first.byteLength };
    }
    const size = await this.#putMultipart(key, first, parts, options.contentType);
    return { contentType: options.contentType, size };
  }

  async get(key: string): Promise<StoredBlob | null> {
    assertValidBlobKey(key);
    const call: S3Call = { method: "GET", key };
    const response = await this.#send(call);
    if (response.statusCode === 404) {
      const error = await this.#failure(call, response);
      // A missing key is an answer; a missing bucket is a misconfiguration.
      if (error.code === null || error.code === "NoSuchKey") return null;
      throw error;
    }
    if (response.statusCode !== 200) throw await this.#failure(call, response);
    const length = headerValue(response.headers, "content-length");
    const size = length === null ? Number.NaN : Number(length);
    if (!Number.isSafeInteger(size) || size < 0) {
      response.body.destroy();
      throw new S3RequestError(describeCall(call), response.statusCode, null, "the response has no Content-Length");
    }
    return {
      contentType: headerValue(response.headers, "content-type") ?? "application/octet-stream",
      size,
      body: Readable.toWeb(response.body) as unknown as ReadableStream<Uint8Array>,
    };
  }

  async delete(key: string): Promise<void> {
    assertValidBlobKey(key);
    const call: S3Call = { method: "DELETE", key };
    const response = await this.#send(call);
    if (response.statusCode === 204 || response.statusCode === 200) {
      await response.body.dump();
      return;
    }
    const error = await this.#failure(call, response);
    // S3 answers 204 for a missing key; some compatible stores answer 404.
    if (response.statusCode === 404 && (error.code === null || error.code === "NoSuchKey")) return;
    throw error;
  }

  publicUrl(key: string): string | null {
    assertValidBlobKey(key);
    if (this.#publicBaseUrl !== null) return `${this.#publicBaseUrl}/${key}`;
    if (this.#presignedUrlSeconds === null) return null;
    return this.presignedGetUrl(key, this.#presignedUrlSeconds);
  }

  /** A URL anyone holding it can GET the object from for `expiresInSeconds` (1 to 604800), without credentials. */
  presignedGetUrl(key: string, expiresInSeconds: number): string {
    assertValidBlobKey(key);
    const location = this.#addressing.locate(key);
    const query = presignedQuery(
      { method: "GET", canonicalPath: location.path, host: location.host, expiresInSeconds },
      this.#clock.now(),
      this.#scope,
      this.#credentials,
    );
    return `${location.origin}${location.path}?${canonicalQueryString(query)}`;
  }

  /** Closes the connections of the store's own dispatcher (not one passed in options). */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  async #putObject(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const call: S3Call = { method: "PUT", key, body: bytes, headers: { "content-type": contentType } };
    const response = await this.#send(call);
    if (response.statusCode !== 200) throw await this.#failure(call, response);
    await response.body.dump();
  }

  /** Uploads `first` and the rest of `parts` as one multipart upload; returns the object's size. */
  async #putMultipart(key: string, first: Uint8Array, parts: PartReader, contentType: string): Promise<number> {
    const uploadId = await this.#initiateMultipart(key, contentType);
    try {
      const etags: string[] = [];
      let size = 0;
      let part = first;
      for (;;) {
        if (etags.length === MAX_PARTS)
          throw new RangeError(`a streamed body may have at most ${MAX_PARTS} parts of ${this.#partSize} bytes`);
        etags.push(await this.#uploadPart(key, uploadId, etags.length + 1, part));
        size += part.byteLength;
        if (parts.ended) break;
        part = await parts.read(this.#partSize);
        // The body ended exactly at a part boundary.
        if (part.byteLength === 0) break;
      }
      await this.#completeMultipart(key, uploadId, etags);
      return size;
    } catch (error) {
      await parts.cancel(error);
      await this.#abortMultipart(key, uploadId);
      throw error;
    }
  }

  async #initiateMultipart(key: string, contentType: string): Promise<string> {
    const call: S3Call = { method: "POST", key, query: [["uploads", ""]], headers: { "content-type": contentType } };
    const response = await this.#send(call);
    if (response.statusCode !== 200) throw await this.#failure(call, response);
    const uploadId = xmlElementText(await response.body.text(), "UploadId");
    if (!uploadId) throw new S3RequestError(describeCall(call), response.statusCode, null, "the response has no UploadId");
    return uploadId;
  }

  async #uploadPart(key: string, uploadId: string, partNumber: number, bytes: Uint8Array): Promise<string> {
    const call: S3Call = {
      method: "PUT",
      key,
      query: [
        ["partNumber", String(partNumber)],
        ["uploadId", uploadId],
      ],
      body: bytes,
    };
    const response = await this.#send(call);
    if (response.statusCode !== 200) throw await this.#failure(call, response);
    await response.body.dump();
    const etag = headerValue(response.headers, "etag");
    if (!etag) throw new S3RequestError(describeCall(call), response.statusCode, null, "the response has no ETag");
    return etag;
  }

  async #completeMultipart(key: string, uploadId: string, etags: readonly string[]): Promise<void> {
    const parts = etags.map((etag, index) => `<Part><PartNumber>${index + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`);
    const xml = `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts.join("")}</CompleteMultipartUpload>`;
    const call: S3Call = {
      method: "POST",
      key,
      query: [["uploadId", uploadId]],
      body: new TextEncoder().encode(xml),
      headers: { "content-type": "application/xml" },
    };
    const response = await this.#send(call);
    if (response.statusCode !== 200) throw await this.#failure(call, response);
    // S3 may report a failed completion inside a 200 response.
    const text = await response.body.text();
    if (isErrorDocument(text))
      throw S3RequestError.fromResponse(describeCall(call), 200, text, headerValue(response.headers, "x-amz-request-id"));
  }

  /** Best effort: the upload has already failed, and its error is the one the caller should see. */
  async #abortMultipart(key: string, uploadId: string): Promise<void> {
    const call: S3Call = { method: "DELETE", key, query: [["uploadId", uploadId]] };
    try {
      const response = await this.#send(call);
      if (response.statusCode === 204 || response.statusCode === 200) await response.body.dump();
      else throw await this.#failure(call, response);
    } catch (error) {
      logger.warn("Could not abort the multipart upload of {key}; its parts stay until the bucket's lifecycle removes them: {error}", {
        key,
        error,
      });
    }
  }

  /**
   * Signs and sends a request, again (re-signed) after a network failure or a
   * 500, 502, 503 or 504, as S3 asks clients to: every call's body is in
   * memory, so it can be sent again. Network failures and timeouts that
   * persist come back as S3RequestError with status 0.
   */
  async #send(call: S3Call): Promise<Dispatcher.ResponseData> {
    const payloadHash = call.body === undefined ? EMPTY_PAYLOAD_SHA256 : sha256Hex(call.body);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.#maxAttempts;
      let response: Dispatcher.ResponseData;
      try {
        response = await this.#sendOnce(call, payloadHash);
      } catch (error) {
        if (last) throw error;
        logger.debug("S3 {operation} failed, trying again: {error}", { operation: describeCall(call), error });
        await this.#backoff(attempt);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.statusCode)) return response;
      await response.body.dump();
      logger.debug("S3 {operation} answered {status}, trying again", { operation: describeCall(call), status: response.statusCode });
      await this.#backoff(attempt);
    }
  }

  /** Full jitter over an exponential ceiling, so processes retrying together spread out. */
  async #backoff(attempt: number): Promise<void> {
    const ceiling = Math.min(this.#retryBaseMs * 2 ** (attempt - 1), 5_000);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
  }

  async #sendOnce(call: S3Call, payloadHash: string): Promise<Dispatcher.ResponseData> {
    const location = this.#addressing.locate(call.key);
    const query = call.query ?? [];
    const at = this.#clock.now();
    const headers: Record<string, string> = {
      host: location.host,
      "x-amz-content-sha256": payloadHash,
      "x-amz-date": amzDate(at),
      ...(call.body === undefined ? {} : { "content-length": String(call.body.byteLength) }),
      ...call.headers,
    };
    headers.authorization = authorizationHeader(
      { method: call.method, canonicalPath: location.path, query, headers, payloadHash },
      at,
      this.#scope,
      this.#credentials,
    );
    const search = canonicalQueryString(query);
    try {
      return await request(`${location.origin}${location.path}${search ? `?${search}` : ""}`, {
        method: call.method,
        headers,
        body: call.body,
        dispatcher: this.#dispatcher,
        headersTimeout: this.#headersTimeout,
        bodyTimeout: this.#bodyTimeout,
      });
    } catch (error) {
      throw new S3RequestError(describeCall(call), 0, null, error instanceof Error ? error.message : String(error), null, { cause: error });
    }
  }

  async #failure(call: S3Call, response: Dispatcher.ResponseData): Promise<S3RequestError> {
    // A HEAD answer, or a store that sends no XML, leaves only the status to go on.
    const text = await response.body.text().catch(() => "");
    return S3RequestError.fromResponse(describeCall(call), response.statusCode, text, headerValue(response.headers, "x-amz-request-id"));
  }
}
