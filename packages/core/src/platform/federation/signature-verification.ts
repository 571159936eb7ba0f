import { type KeyObject, createHash, verify } from "node:crypto";

/**
 * Reads and checks the HTTP signature of a POST to an inbox, in either form
 * (draft-cavage `Signature`, RFC 9421 `Signature-Input` and `Signature`),
 * for the inbox front. Every rule Fedify's `verifyRequest` applies is
 * applied here too, and some stricter ones (the host and, for RFC 9421,
 * the method and target are covered; one signature only): a request this
 * reads as checkable is one Fedify would accept with the same key. Anything
 * else reads as null and the front hands the request to Fedify, which
 * decides (and answers the refusals), so no rule here may be looser than
 * Fedify's.
 */

/** A signature read from a request, its dates and body digest already checked; only the key is left to check it with. */
export interface ReadSignature {
  /** The key it says it was made with, as Fedify keys its cache (`new URL(keyId).href`). */
  readonly keyId: string;
  /** The bytes that were signed. */
  readonly signed: Buffer;
  readonly signature: Buffer;
  /** How it was made; `rsa-sha256` for draft-cavage; `by-key`: an RFC 9421 signature without `alg`, checked as the key's type says. */
  readonly algorithm: SignatureAlgorithm | "by-key";
}

/** The algorithms checked here (RSA PKCS#1 v1.5 with SHA-256, Ed25519). */
export type SignatureAlgorithm = "rsa-sha256" | "ed25519";

/** What of a request is signed. */
export interface SignedRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: Uint8Array;
}

export interface SignatureWindow {
  /** Now, in milliseconds since the epoch (the system clock, as Fedify's). */
  readonly now: number;
  /** How far back, and forward, a signature's date may be. */
  readonly maxAgeMs: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DRAFT_ALGORITHMS = new Set(["rsa-sha256", "hs2019"]);
/** The pseudo-headers a draft-cavage signature may cover; any other name must be a header name (an RFC 9110 token). */
const DRAFT_PSEUDO_HEADERS = new Set(["(request-target)", "(created)", "(expires)"]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/i;
/** Fedify's digest algorithms for the `Digest` header. */
const DIGEST_ALGORITHMS: Readonly<Record<string, string>> = { sha: "sha1", "sha-256": "sha256", "sha-512": "sha512" };
const CONTENT_DIGEST_ALGORITHMS: Readonly<Record<string, string>> = { "sha-256": "sha256", "sha-512": "sha512" };

/** Strict base64 (Fedify refuses what does not decode), or null. */
function decodeBase64(text: string): Buffer | null {
  if (!BASE64.test(text)) return null;
  const bytes = Buffer.from(text, "base64");
  // Padding-free input is accepted as Fedify's decoder does; anything that does not round-trip is not base64.
  return bytes.toString("base64").replace(/=+$/, "") === text.replace(/=+$/, "") ? bytes : null;
}

function keyIdOf(text: string | undefined): string | null {
  return text !== undefined && URL.canParse(text) ? new URL(text).href : null;
}

function withinWindow(at: number, window: SignatureWindow): boolean {
  return Number.isFinite(at) && at <= window.now + window.maxAgeMs && at >= window.now - window.maxAgeMs;
}

/**
 * Whether `text` is the body's `algorithm` digest in base64, as decodeBase64
 * and a comparison of bytes would find it, without decoding: only base64's
 * own spelling of the digest decodes to it, and the padding may be left out
 * (at most two `=`, as decodeBase64 allows).
 */
function isDigestOf(text: string, algorithm: string, body: Uint8Array): boolean {
  return text.replace(/={0,2}$/, "") === createHash(algorithm).update(body).digest("base64").replace(/=+$/, "");
}

/** Whether every digest of a known algorithm in `Digest` matches the body, and there is at least one (Fedify's rule). */
function digestMatches(header: string, body: Uint8Array): boolean {
  let matched = false;
  for (const pair of header.split(",")) {
    const at = pair.indexOf("=");
    const algorithm = DIGEST_ALGORITHMS[(at < 0 ? pair : pair.slice(0, at)).trim().toLowerCase()];
    if (algorithm === undefined) continue;
    if (!isDigestOf(at < 0 ? "" : pair.slice(at + 1).trim(), algorithm, body)) return false;
    matched = true;
  }
  return matched;
}

/** Whether every digest of a known algorithm in `Content-Digest` matches the body, and there is at least one. */
function contentDigestMatches(header: string, body: Uint8Array): boolean {
  let matched = false;
  for (const pair of header.split(",")) {
    const at = pair.indexOf("=");
    if (at < 0) return false;
    const algorithm = CONTENT_DIGEST_ALGORITHMS[pair.slice(0, at).trim().toLowerCase()];
    if (algorithm === undefined) continue;
    const value = /^:([^:]*):$/.exec(pair.slice(at + 1).trim())?.[1];
    if (value === undefined || !isDigestOf(value, algorithm, body)) return false;
    matched = true;
  }
  return matched;
}

/**
 * Whether `body` matches the digest the request's signature covers, as
 * Fedify requires it of a POST: `Content-Digest` for RFC 9421 (a request
 * with a `Signature-Input`), `Digest` for draft-cavage; at least one digest
 * of a known algorithm, and every one of a known algorithm matching.
 */
export function bodyMatchesDigest(headers: Headers, body: Uint8Array): boolean {
  const rfc9421 = headers.has("signature-input");
  const header = headers.get(rfc9421 ? "content-digest" : "digest");
  return header !== null && (rfc9421 ? contentDigestMatches(header, body) : digestMatches(header, body));
}

/** The fields of a draft-cavage `Signature` header, parsed as Fedify parses them. */
function draftFieldsOf(header: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const pair of header.split(",")) {
    const match = /^\s*([A-Za-z]+)=(?:"([^"]*)"|(\d+))\s*$/.exec(pair);
    if (match?.[1] !== undefined) fields[match[1]] = match[2] ?? match[3] ?? "";
  }
  return fields;
}

/** A draft-cavage signature, or null when Fedify is to decide. */
function readDraftSignature(request: SignedRequest, header: string, window: SignatureWindow): ReadSignature | null {
  const fields = draftFieldsOf(header);
  const keyId = keyIdOf(fields.keyId);
  const { headers: names, signature } = fields;
  if (keyId === null || names === undefined || signature === undefined) return null;
  if (fields.algorithm !== undefined && !DRAFT_ALGORITHMS.has(fields.algorithm.toLowerCase())) return null;
  const date = request.headers.get("date");
  const digest = request.headers.get("digest");
  if (date === null || digest === null || !withinWindow(Date.parse(date), window)) return null;
  if (fields.created !== undefined && !(/^\d+$/.test(fields.created) && withinWindow(Number(fields.created) * 1000, window))) return null;
  if (fields.expires !== undefined && !(/^\d+$/.test(fields.expires) && Number(fields.expires) * 1000 >= window.now)) return null;
  const covered = names.split(/\s+/g);
  // A name that is no header name (an empty one from a stray space, an unknown pseudo-header) is Fedify's to judge.
  if (!covered.every((name) => DRAFT_PSEUDO_HEADERS.has(name) || HEADER_NAME.test(name))) return null;
  if (!["(request-target)", "date", "digest", "host"].every((name) => covered.includes(name))) return null;
  if (!digestMatches(digest, request.body)) return null;
  const lines: string[] = [];
  for (const name of covered) {
    let value: string | null;
    if (name === "(request-target)") value = `${request.method.toLowerCase()} ${request.url.pathname}`;
    else if (name === "(created)") value = fields.created ?? "";
    else if (name === "(expires)") value = fields.expires ?? "";
    else if (name === "host") value = request.headers.get("host") ?? request.url.host;
    else value = request.headers.get(name);
    if (value === null) return null;
    lines.push(`${name}: ${value}`);
  }
  const bytes = decodeBase64(signature);
  if (bytes === null) return null;
  return { keyId, signed: Buffer.from(lines.join("\n")), signature: bytes, algorithm: "rsa-sha256" };
}

/** The one member of a structured-field dictionary header, as its label and the text after `label=`; null for any other shape. */
function soleMemberOf(header: string): { label: string; value: string } | null {
  const match = /^\s*([a-z*][a-z0-9_.*-]*)=(.*?)\s*$/.exec(header);
  if (match?.[1] === undefined || match[2] === undefined) return null;
  return { label: match[1], value: match[2] };
}

const STRING = /^"((?:[^"\\]|\\["\\])*)"/;
const INTEGER = /^(-?\d{1,15})(?![.\d])/;

type ParameterValue = string | number;

/** The parameters of an RFC 9421 signature (`;name=value...`), strings and integers only; null for anything else. */
function parametersOf(text: string): Map<string, ParameterValue> | null {
  const parameters = new Map<string, ParameterValue>();
  let rest = text;
  while (rest.length > 0) {
    const name = /^;\s*([a-z*][a-z0-9_.*-]*)=/.exec(rest);
    if (name?.[1] === undefined || parameters.has(name[1])) return null;
    rest = rest.slice(name[0].length);
    const string = STRING.exec(rest);
    const integer = string ? null : INTEGER.exec(rest);
    if (string?.[1] !== undefined) parameters.set(name[1], string[1].replace(/\\(["\\])/g, "$1"));
    else if (integer?.[1] !== undefined) parameters.set(name[1], Number(integer[1]));
    else return null;
    rest = rest.slice((string ?? integer)?.[0].length ?? 0);
  }
  return parameters;
}

/** The parameters as RFC 8941 serialises them (what the signer signed as `@signature-params`). */
function serialisedParameters(parameters: ReadonlyMap<string, ParameterValue>): string {
  return [...parameters]
    .map(([name, value]) => `;${name}=${typeof value === "number" ? String(value) : `"${value.replace(/["\\]/g, "\\$&")}"`}`)
    .join("");
}

/** The value of a covered component of the request, as Fedify derives it; null when it cannot be. */
function componentOf(request: SignedRequest, name: string): string | null {
  switch (name) {
    case "@method":
      return request.method.toUpperCase();
    case "@target-uri":
      return request.url.href;
    case "@authority":
      return request.url.host;
    case "@scheme":
      return request.url.protocol.slice(0, -1);
    case "@request-target":
      return `${request.method.toLowerCase()} ${request.url.pathname}${request.url.search}`;
    case "@path":
      return request.url.pathname;
    case "@query":
      return request.url.search.startsWith("?") ? request.url.search.slice(1) : request.url.search;
    default:
      return name.startsWith("@") ? null : request.headers.get(name);
  }
}

const RFC9421_ALGORITHMS: Readonly<Record<string, SignatureAlgorithm>> = { "rsa-v1_5-sha256": "rsa-sha256", ed25519: "ed25519" };
const RFC9421_PARAMETERS = new Set(["keyid", "created", "alg", "expires"]);

/** An RFC 9421 signature (exactly one), or null when Fedify is to decide. */
function readRfc9421Signature(request: SignedRequest, input: string, header: string, window: SignatureWindow): ReadSignature | null {
  const member = soleMemberOf(input);
  const signatureMember = soleMemberOf(header);
  if (member === null || signatureMember === null || signatureMember.label !== member.label) return null;
  const list = /^\(([^()]*)\)(.*)$/.exec(member.value);
  if (list?.[1] === undefined || list[2] === undefined) return null;
  const components = list[1].split(" ").filter((item) => item !== "");
  if (!components.every((item) => /^"[a-z0-9@_.-]+"$/.test(item))) return null;
  const names = components.map((item) => item.slice(1, -1));
  const parameters = parametersOf(list[2]);
  if (parameters === null || ![...parameters.keys()].every((name) => RFC9421_PARAMETERS.has(name))) return null;
  const keyid = parameters.get("keyid");
  const created = parameters.get("created");
  const alg = parameters.get("alg");
  const expires = parameters.get("expires");
  const keyId = typeof keyid === "string" ? keyIdOf(keyid) : null;
  if (keyId === null || typeof created !== "number" || !withinWindow(created * 1000, window)) return null;
  if (expires !== undefined && !(typeof expires === "number" && expires * 1000 >= window.now)) return null;
  if (alg !== undefined && (typeof alg !== "string" || RFC9421_ALGORITHMS[alg] === undefined)) return null;
  const required = ["@method", "@target-uri", "content-digest"];
  if (!required.every((name) => names.includes(name)) || !(names.includes("@authority") || names.includes("host"))) return null;
  const digest = request.headers.get("content-digest");
  if (digest === null || !contentDigestMatches(digest, request.body)) return null;
  const lines: string[] = [];
  for (const name of names) {
    const value = componentOf(request, name);
    if (value === null) return null;
    lines.push(`"${name}": ${value}`);
  }
  lines.push(`"@signature-params": (${components.join(" ")})${serialisedParameters(parameters)}`);
  const value = /^:([A-Za-z0-9+/=]*):$/.exec(signatureMember.value)?.[1];
  const bytes = value === undefined ? null : decodeBase64(value);
  if (bytes === null) return null;
  // Without `alg`, the key's type decides, as in Fedify.
  const algorithm = typeof alg === "string" ? (RFC9421_ALGORITHMS[alg] ?? null) : "by-key";
  if (algorithm === null) return null;
  return { keyId, signed: Buffer.from(lines.join("\n")), signature: bytes, algorithm };
}

/**
 * The signature of a POST whose body is `request.body`, its dates within
 * the window and its digest matching, or null when it is not one the front
 * checks (no signature, another form or algorithm, a rule not met).
 */
export function readSignature(request: SignedRequest, window: SignatureWindow): ReadSignature | null {
  const signature = request.headers.get("signature");
  if (signature === null) return null;
  const input = request.headers.get("signature-input");
  // Fedify reads RFC 9421 whenever there is a Signature-Input.
  return input === null ? readDraftSignature(request, signature, window) : readRfc9421Signature(request, input, signature, window);
}

/** Whether `signature` verifies with `key` (an RSA key for `rsa-sha256`, an Ed25519 key for `ed25519`). */
export function verifySignature(signature: ReadSignature, key: KeyObject): boolean {
  const type = key.asymmetricKeyType;
  const algorithm = signature.algorithm === "by-key" ? (type === "ed25519" ? "ed25519" : "rsa-sha256") : signature.algorithm;
  try {
    if (algorithm === "rsa-sha256" && type === "rsa") return verify("sha256", signature.signed, key, signature.signature);
    if (algorithm === "ed25519" && type === "ed25519") return verify(null, signature.signed, key, signature.signature);
  } catch {
    return false;
  }
  return false;
}
