import { createHash, createHmac } from "node:crypto";

/**
 * AWS Signature Version 4, as S3 wants it.
 *
 * Pure functions over explicit inputs (no clock, no I/O), so each step can be
 * checked against the worked examples in AWS's documentation. Reference:
 * "Authenticating Requests (AWS Signature Version 4)" in the Amazon S3 API
 * Reference. S3 differs from the generic algorithm in two ways that matter
 * here: the path is encoded once (not twice) and is not normalised, and the
 * payload hash travels in `x-amz-content-sha256` and is always signed.
 */

export const SIGV4_ALGORITHM = "AWS4-HMAC-SHA256";

/** The payload hash that tells S3 the body is not covered by the signature. */
export const UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";

/** SHA-256 of the empty string: the payload hash of a request without a body. */
export const EMPTY_PAYLOAD_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export interface SigningScope {
  readonly region: string;
  /** `s3` for S3; other values only for the generic test vectors. */
  readonly service: string;
}

export interface RequestToSign {
  readonly method: string;
  /** The path exactly as sent, already URI-encoded (see `encodeS3Path`). */
  readonly canonicalPath: string;
  /** Query parameters, unencoded; a parameter without value (`?uploads`) has "". */
  readonly query: readonly (readonly [string, string])[];
  /** Every header to sign, `host` included. Names in any case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the body, or UNSIGNED_PAYLOAD. */
  readonly payloadHash: string;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function hmac(key: string | Uint8Array, data: string): Buffer {
  return createHmac("sha256", key).update(data, "utf8").digest();
}

/** `20130524T000000Z`: the basic ISO 8601 form SigV4 uses. */
export function amzDate(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

/**
 * RFC 3986 percent-encoding: everything but the unreserved characters
 * (`A-Z a-z 0-9 - . _ ~`), so `encodeURIComponent`'s leftovers `!'()*` too.
 */
export function uriEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A path whose segments are each encoded, slashes kept: how S3 wants object keys in the URL and in the signature. */
export function encodeS3Path(path: string): string {
  return path.split("/").map(uriEncode).join("/");
}

/** Parameters sorted by encoded name, then value, each `name=value`, joined by `&`. */
export function canonicalQueryString(query: readonly (readonly [string, string])[]): string {
  return query
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
}

/** Lower-cased names, sorted, with values trimmed and inner runs of spaces collapsed. */
function canonicalHeaderEntries(headers: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value.trim().replace(/\s+/g, " ")])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function signedHeaderNames(headers: Readonly<Record<string, string>>): string {
  return canonicalHeaderEntries(headers)
    .map(([name]) => name)
    .join(";");
}

export function canonicalRequest(request: RequestToSign): string {
  const entries = canonicalHeaderEntries(request.headers);
  return [
    request.method.toUpperCase(),
    request.canonicalPath,
    canonicalQueryString(request.query),
    ...entries.map(([name, value]) => `${name}:${value}`),
    "",
    entries.map(([name]) => name).join(";"),
    request.payloadHash,
  ].join("\n");
}

/** `20130524/us-east-1/s3/aws4_request` */
export function credentialScope(at: Date, scope: SigningScope): string {
  return `${amzDate(at).slice(0, 8)}/${scope.region}/${scope.service}/aws4_request`;
}

export function stringToSign(request: RequestToSign, at: Date, scope: SigningScope): string {
  return [SIGV4_ALGORITHM, amzDate(at), credentialScope(at, scope), sha256Hex(canonicalRequest(request))].join("\n");
}

/** kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), service), "aws4_request") */
export function signingKey(secretAccessKey: string, at: Date, scope: SigningScope): Buffer {
  const dateKey = hmac(`AWS4${secretAccessKey}`, amzDate(at).slice(0, 8));
  const regionKey = hmac(dateKey, scope.region);
  const serviceKey = hmac(regionKey, scope.service);
  return hmac(serviceKey, "aws4_request");
}

export function signature(request: RequestToSign, at: Date, scope: SigningScope, secretAccessKey: string): string {
  return hmac(signingKey(secretAccessKey, at, scope), stringToSign(request, at, scope)).toString("hex");
}

/** The `Authorization` header value for `request`, whose headers must already hold `x-amz-date` (and, for S3, `x-amz-content-sha256`). */
export function authorizationHeader(request: RequestToSign, at: Date, scope: SigningScope, credentials: SigningCredentials): string {
  return (
    `${SIGV4_ALGORITHM} Credential=${credentials.accessKeyId}/${credentialScope(at, scope)},` +
    `SignedHeaders=${signedHeaderNames(request.headers)},` +
    `Signature=${signature(request, at, scope, credentials.secretAccessKey)}`
  );
}

export interface PresignInput {
  readonly method: string;
  readonly canonicalPath: string;
  /** Extra query parameters of the request itself (not the signing ones). */
  readonly query?: readonly (readonly [string, string])[];
  /** The host (with port when not the default), the only header a presigned URL signs. */
  readonly host: string;
  readonly expiresInSeconds: number;
}

/**
 * The query parameters of a presigned URL (query-string authentication): the
 * signing parameters and `X-Amz-Signature`, to append to the request's own.
 * The payload is unsigned, as S3 requires for presigned URLs.
 */
export function presignedQuery(input: PresignInput, at: Date, scope: SigningScope, credentials: SigningCredentials): [string, string][] {
  if (!Number.isInteger(input.expiresInSeconds) || input.expiresInSeconds < 1 || input.expiresInSeconds > 604_800) {
    // S3 refuses anything outside one second to seven days.
    throw new RangeError("expiresInSeconds must be a whole number from 1 to 604800");
  }
  const signing: [string, string][] = [
    ["X-Amz-Algorithm", SIGV4_ALGORITHM],
    ["X-Amz-Credential", `${credentials.accessKeyId}/${credentialScope(at, scope)}`],
    ["X-Amz-Date", amzDate(at)],
    ["X-Amz-Expires", String(input.expiresInSeconds)],
    ["X-Amz-SignedHeaders", "host"],
  ];
  const query = [...(input.query ?? []), ...signing];
  const request: RequestToSign = {
    method: input.method,
    canonicalPath: input.canonicalPath,
    query,
    headers: { host: input.host },
    payloadHash: UNSIGNED_PAYLOAD,
  };
  return [...signing, ["X-Amz-Signature", signature(request, at, scope, credentials.secretAccessKey)]];
}
