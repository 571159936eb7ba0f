import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

/**
 * Checks the SigV4 signature of a request as a server receives it.
 *
 * s3rver accepts any version 4 signature, so the tests put this in front of
 * it. It rebuilds the canonical request from the raw request line and
 * headers, not from anything the client computed, so a client that signs
 * one thing and sends another (a path or query encoded differently, a header
 * changed on the way) is caught. Returns null when the signature holds, else
 * the reason.
 */
export function sigv4Problem(request: IncomingMessage, secrets: ReadonlyMap<string, string>, region: string, now: Date): string | null {
  const [rawPath = "", rawQuery = ""] = (request.url ?? "").split("?", 2);
  const query = parseQuery(rawQuery);
  const authorization = request.headers.authorization;
  if (authorization !== undefined) return headerProblem(request, authorization, rawPath, query, secrets, region, now);
  if (query.some(([name]) => name === "X-Amz-Signature")) return presignedProblem(request, rawPath, query, secrets, region, now);
  return "the request is not signed";
}

function encode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function parseQuery(raw: string): [string, string][] {
  if (raw === "") return [];
  return raw.split("&").map((pair) => {
    const at = pair.indexOf("=");
    const name = at < 0 ? pair : pair.slice(0, at);
    const value = at < 0 ? "" : pair.slice(at + 1);
    return [decodeURIComponent(name), decodeURIComponent(value)];
  });
}

function canonicalQuery(query: readonly [string, string][]): string {
  return query
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .sort()
    .join("&");
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

function expectedSignature(secret: string, scope: string, amzDate: string, canonical: string): string {
  const [date = "", scopeRegion = "", service = ""] = scope.split("/");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), scopeRegion), service), "aws4_request");
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, createHash("sha256").update(canonical).digest("hex")].join("\n");
  return hmac(key, toSign).toString("hex");
}

function same(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

function parseAmzDate(value: string): Date | null {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s] = match;
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
}

function scopeProblem(scope: string, amzDate: string, region: string): string | null {
  const [date, scopeRegion, service, terminator] = scope.split("/");
  if (date !== amzDate.slice(0, 8)) return "the scope's date is not the request's";
  if (scopeRegion !== region) return `the scope's region is ${scopeRegion}, not ${region}`;
  if (service !== "s3" || terminator !== "aws4_request") return "the scope is not s3/aws4_request";
  return null;
}

function canonicalHeaders(request: IncomingMessage, names: readonly string[]): string | null {
  const lines: string[] = [];
  for (const name of names) {
    const value = request.headers[name];
    if (value === undefined) return null;
    lines.push(`${name}:${String(value).trim().replace(/\s+/g, " ")}`);
  }
  return `${lines.join("\n")}\n`;
}

function headerProblem(
  request: IncomingMessage,
  authorization: string,
  rawPath: string,
  query: readonly [string, string][],
  secrets: ReadonlyMap<string, string>,
  region: string,
  now: Date,
): string | null {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/,]+)\/([^,]+),\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return "malformed Authorization header";
  const [, accessKeyId = "", scope = "", signedHeaders = "", provided = ""] = match;
  const secret = secrets.get(accessKeyId);
  if (secret === undefined) return "unknown access key";
  const amzDate = String(request.headers["x-amz-date"] ?? "");
  const at = parseAmzDate(amzDate);
  if (at === null) return "no x-amz-date";
  if (Math.abs(now.getTime() - at.getTime()) > 15 * 60_000) return "the request time is too skewed";
  const names = signedHeaders.split(";");
  for (const required of ["host", "x-amz-content-sha256", "x-amz-date"]) {
    if (!names.includes(required)) return `${required} is not signed`;
  }
  if ([...names].sort().join(";") !== signedHeaders) return "SignedHeaders are not sorted";
  const headers = canonicalHeaders(request, names);
  if (headers === null) return "a signed header is missing";
  const payloadHash = String(request.headers["x-amz-content-sha256"]);
  const canonical = [request.method ?? "", rawPath, canonicalQuery(query), headers, signedHeaders, payloadHash].join("\n");
  return (
    scopeProblem(scope, amzDate, region) ??
    (same(provided, expectedSignature(secret, scope, amzDate, canonical)) ? null : "signature mismatch")
  );
}

function presignedProblem(
  request: IncomingMessage,
  rawPath: string,
  query: readonly [string, string][],
  secrets: ReadonlyMap<string, string>,
  region: string,
  now: Date,
): string | null {
  const get = (name: string): string => query.find(([key]) => key === name)?.[1] ?? "";
  if (get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") return "unknown X-Amz-Algorithm";
  const [accessKeyId = "", ...scopeParts] = get("X-Amz-Credential").split("/");
  const scope = scopeParts.join("/");
  const secret = secrets.get(accessKeyId);
  if (secret === undefined) return "unknown access key";
  const amzDate = get("X-Amz-Date");
  const at = parseAmzDate(amzDate);
  if (at === null) return "no X-Amz-Date";
  if (now.getTime() > at.getTime() + Number(get("X-Amz-Expires")) * 1000) return "the URL has expired";
  const signedHeaders = get("X-Amz-SignedHeaders");
  const headers = canonicalHeaders(request, signedHeaders.split(";"));
  if (headers === null) return "a signed header is missing";
  const unsigned = query.filter(([name]) => name !== "X-Amz-Signature");
  const canonical = [request.method ?? "", rawPath, canonicalQuery(unsigned), headers, signedHeaders, "UNSIGNED-PAYLOAD"].join("\n");
  return (
    scopeProblem(scope, amzDate, region) ??
    (same(get("X-Amz-Signature"), expectedSignature(secret, scope, amzDate, canonical)) ? null : "signature mismatch")
  );
}
