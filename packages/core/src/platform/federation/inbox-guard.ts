import { errorToResponse } from "../http/error-response.js";
import { readLimited } from "../http/body-parser.js";
import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import type { FederationTraffic, HostPolicies } from "./remote-host-gates.js";
import { boundPassed } from "./activity-bounds.js";
import type { KeyFetchBudget } from "./key-fetch-budget.js";
import { bodyMatchesDigest } from "./signature-verification.js";
import { HTTP_SIGNATURE_HEADERS, type SignedParties, httpSignerIds, signerVerdict } from "./signer-origins.js";
import type { VerifiedKeys } from "./verified-keys.js";

const logger = getLogger(["federation", "inbox"]);

/**
 * How old a signature may be (Fedify refuses both older and, by the same
 * window, later ones): Mastodon signs once and retries deliveries for hours
 * with the same Date, and accepts signatures up to twelve hours old.
 */
export const SIGNATURE_MAX_AGE = { hours: 12 } as const;

/** How far into the future a signature may be dated (clock skew), as Mastodon allows. */
export const SIGNATURE_MAX_SKEW_MS = 60 * 60 * 1000;
/** SIGNATURE_MAX_AGE in milliseconds. */
export const SIGNATURE_MAX_AGE_MS = SIGNATURE_MAX_AGE.hours * 60 * 60 * 1000;

/** The personal inboxes and the shared inbox. */
const INBOX_PATH = /^\/(?:users\/[^/]+\/)?inbox\/?$/;

export interface InboxGuardDeps {
  readonly domainPolicy: HostPolicies;
  readonly monitor: FederationTraffic;
  /** The largest activity accepted, in bytes. */
  readonly maxBodyBytes: number;
  /**
   * Answers what it verifies itself (see `inbox-front.ts`) from the body the
   * guard read and parsed; null hands the request to `next`.
   */
  readonly front?: (request: Request, body: Uint8Array, json: unknown) => Promise<Response | null>;
  /**
   * The actors of an activity and the keys of its own signatures, as Fedify
   * reads them (signer-origins.ts), for the origin rule on what goes on to
   * Fedify; null when the body is no activity. Without it, Fedify's own
   * rule stands alone.
   */
  readonly signedParties?: (json: unknown) => Promise<SignedParties | null>;
  /**
   * Takes an activity the origin rule refuses because only another origin's
   * HTTP signature vouches for it (a relay forwarding a Create it cannot
   * prove): true when it verified the forwarder and queued the activity's
   * object to be fetched from its own origin, which is then answered with
   * 202. Without it, or when it says false, the refusal stands.
   */
  readonly forwarded?: (request: Request, body: Uint8Array, json: unknown) => Promise<boolean>;
  /** What Fedify's key cache holds for a signature's key (verified-keys.ts). */
  readonly keys: Pick<VerifiedKeys, "state">;
  /** How many requests may make Fedify fetch a key (key-fetch-budget.ts). */
  readonly keyFetches: Pick<KeyFetchBudget, "take" | "vouch">;
}

/** What the HTTP host knows of the request beyond it. */
export interface InboxRequestInfo {
  /** The client's address, after trusted proxies; null when the host does not say. */
  readonly clientIp?: string | null;
}

/** The host of an activity's `actor` (a URL, or an object with an `id`), or null. */
function actorHostOf(activity: unknown): string | null {
  if (typeof activity !== "object" || activity === null) return null;
  let actor: unknown = (activity as { actor?: unknown }).actor;
  if (Array.isArray(actor)) actor = actor[0];
  if (typeof actor === "object" && actor !== null) actor = (actor as { id?: unknown }).id;
  return typeof actor === "string" && URL.canParse(actor) ? new URL(actor).host : null;
}

/**
 * The latest time a request says it was signed at: its Date header and the
 * `created` of its signatures (draft-cavage and RFC 9421), in milliseconds.
 */
export function signedAtOf(headers: Headers): number | null {
  const times: number[] = [];
  const date = headers.get("date");
  const dated = date === null ? Number.NaN : Date.parse(date);
  if (!Number.isNaN(dated)) times.push(dated);
  const text = `${headers.get("signature") ?? ""} ${headers.get("signature-input") ?? ""}`;
  for (const match of text.matchAll(/created="?(\d{1,12})"?/gi)) times.push(Number(match[1]) * 1000);
  return times.length === 0 ? null : Math.max(...times);
}

/** One decoder for every body: decoding a whole body at once keeps no state between calls. */
const UTF8 = new TextDecoder();

/** The names under which an activity carries a signature of its own (Linked Data signature, integrity proof). */
const EMBEDDED_SIGNATURE_NAMES = ['"proof"', '"signature"'].map((name) => Buffer.from(name));

/** Whether an unsigned body may carry a signature of its own: it names one, as bytes, before anything parses it. */
function mayCarryItsOwnSignature(body: Uint8Array): boolean {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return EMBEDDED_SIGNATURE_NAMES.some((name) => bytes.includes(name));
}

function carriesItsOwnSignature(json: unknown): boolean {
  return typeof json === "object" && json !== null && ("proof" in json || "signature" in json);
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(UTF8.decode(bytes));
  } catch {
    return null;
  }
}

/**
 * What every POST to an inbox passes before Fedify verifies it, cheapest
 * first, so that what is refused costs little and nothing is read as an
 * activity before the request has passed every check its headers and bytes
 * allow:
 *
 * - its HTTP signature, from the headers alone: one signed more than an
 *   hour in the future, or undated or older than the window, is refused
 *   with 401 (Fedify's window is the same both ways; Mastodon's is twelve
 *   hours back, one ahead); one whose key Fedify could not fetch lately is
 *   refused with 401;
 * - its body, read up to the limit (413 past it, whatever its Content-Type
 *   says): a signed one must match the digest it was signed with (401), an
 *   unsigned one must carry a signature of its own (an integrity proof, a
 *   Linked Data signature), or it is refused with 401 unparsed;
 * - its shape (activity-bounds.ts): 422 past the bounds;
 * - an activity whose actor or signing key belongs to a domain that may not
 *   federate is refused with 403 before any key is fetched;
 * - one that would make Fedify fetch a key it has not fetched yet (of its
 *   HTTP signature, or of its own signature when it has no other) is
 *   counted, once it passed all the above (key-fetch-budget.ts: 429 past
 *   the limits);
 * - what the inbox front does not answer must pass the origin rule
 *   (signer-origins.ts: 401 for a key of another origin than the actor's,
 *   400 for a body that is no activity).
 *
 * Accepted activities are counted per domain for the inbox metrics.
 */
export async function guardInbox(
  request: Request,
  deps: InboxGuardDeps,
  next: (request: Request) => Promise<Response | null>,
  info: InboxRequestInfo = {},
): Promise<Response | null> {
  if (request.method !== "POST" || !INBOX_PATH.test(new URL(request.url).pathname)) return next(request);
  const signed = request.headers.has("signature");
  const httpSigners = httpSignerIds(request.headers);
  let keyKnown = false;
  if (signed) {
    const verdict = await signatureVerdict(request.headers, httpSigners, deps);
    if (verdict instanceof KithError) return errorToResponse(verdict, request);
    keyKnown = verdict === "key-known";
  }
  let body: Uint8Array<ArrayBuffer>;
  try {
    body = await readLimited(request, deps.maxBodyBytes);
  } catch (error) {
    return errorToResponse(error, request);
  }
  if (signed && !bodyMatchesDigest(request.headers, body)) {
    logger.info("Refused an activity that does not match its digest");
    return errorToResponse(new KithError("federation.digest_mismatch"), request);
  }
  if (!signed && !mayCarryItsOwnSignature(body)) return errorToResponse(new KithError("federation.signature_missing"), request);
  const json = parseJson(body);
  if (!signed && !carriesItsOwnSignature(json)) return errorToResponse(new KithError("federation.signature_missing"), request);
  const passed = boundPassed(json);
  if (passed !== null) {
    logger.info("Refused an activity past the bounds read: {passed}", { passed });
    return errorToResponse(new KithError("federation.activity_too_complex", { details: [{ message: `The activity has ${passed}` }] }), request);
  }
  const actorHost = actorHostOf(json);
  const hosts = new Set([actorHost, ...httpSigners.map((signer) => signer.host)].filter((host): host is string => host !== null));
  for (const host of hosts) {
    const policy = await deps.domainPolicy.policyFor(host);
    if (policy.blocked) {
      logger.info("Refused an activity from {host}: {reason}", { host, reason: policy.reason });
      return errorToResponse(new KithError("federation.domain_refused"), request);
    }
  }
  if (!keyKnown) {
    // Without an HTTP signature, the key of the activity's own signature is fetched: counted by the actor's host.
    const keyHost = signed ? (httpSigners[0]?.host ?? "") : (actorHost ?? "");
    const retryAfterSeconds = deps.keyFetches.take(keyHost, info.clientIp ?? null);
    if (retryAfterSeconds !== null) {
      logger.info("Refused an activity signed with a key of {host} not fetched yet: too many of them lately", { host: keyHost });
      return errorToResponse(new KithError("federation.key_fetches_limited", { retryAfterSeconds }), request);
    }
  }
  const response = (await deps.front?.(request, body, json)) ?? (await toFedify(request, body, json, httpSigners, deps, next));
  if (response?.ok) {
    if (actorHost) await deps.monitor.recordInbox(actorHost);
    // A key of these hosts verified (or the activity's own signature did, and the HTTP one is on the same host).
    for (const signer of httpSigners) deps.keyFetches.vouch(signer.host);
  }
  return response;
}

/**
 * Why the HTTP signature of a request is refused from its headers alone
 * (see guardInbox), or whether Fedify has fetched its key before
 * (`key-known`) or would fetch it (`key-unknown`).
 */
async function signatureVerdict(
  headers: Headers,
  httpSigners: readonly URL[],
  deps: InboxGuardDeps,
): Promise<KithError | "key-known" | "key-unknown"> {
  const signedAt = signedAtOf(headers);
  // The system clock, not the clock port: Fedify checks the signature's dates against it.
  const now = Date.now();
  if (signedAt !== null && signedAt > now + SIGNATURE_MAX_SKEW_MS) {
    logger.info("Refused an activity signed in the future ({date})", { date: new Date(signedAt).toISOString() });
    return new KithError("federation.signature_in_future");
  }
  if (signedAt === null || signedAt < now - SIGNATURE_MAX_AGE_MS) return new KithError("federation.signature_expired");
  if (httpSigners.length === 0) return new KithError("federation.signature_missing");
  const states = await Promise.all(httpSigners.map((signer) => deps.keys.state(signer.href)));
  if (states.every((state) => state === "unavailable")) return new KithError("federation.key_unavailable");
  return states.some((state) => state === "usable" || state === "cached") ? "key-known" : "key-unknown";
}

/** What the front did not answer goes on to Fedify, once the origin rule allows it (signer-origins.ts). */
async function toFedify(
  request: Request,
  body: Uint8Array<ArrayBuffer>,
  json: unknown,
  httpSigners: readonly URL[],
  deps: InboxGuardDeps,
  next: (request: Request) => Promise<Response | null>,
): Promise<Response | null> {
  let headers = request.headers;
  if (deps.signedParties) {
    const parties = await deps.signedParties(json);
    if (parties === null) return errorToResponse(new KithError("federation.invalid_activity"), request);
    const verdict = signerVerdict(parties, httpSigners);
    if (verdict === "refused" && parties.embeddedSigners.length === 0 && (await deps.forwarded?.(request, body, json))) {
      return new Response(null, { status: 202 });
    }
    if (verdict === "refused") {
      logger.info("Refused an activity of {actors} signed with {signers}", {
        actors: parties.actors.map((actor) => actor.href),
        signers: [...httpSigners, ...parties.embeddedSigners].map((signer) => signer.href),
      });
      return errorToResponse(new KithError("federation.signer_not_actor"), request);
    }
    if (verdict === "embedded-only") {
      headers = new Headers(headers);
      for (const name of HTTP_SIGNATURE_HEADERS) headers.delete(name);
    }
  }
  return next(new Request(request.url, { method: "POST", headers, body }));
}
