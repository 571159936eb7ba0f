import type { DocumentLoader, Federation, InboxContext, RequestContext } from "@fedify/fedify";
import type { Activity } from "@fedify/fedify/vocab";
import { bufferedResponse } from "../http/buffered-response.js";
import { getLogger } from "../../logging.js";
import { type ActivityReaderContext, readActivity } from "./activity-reader.js";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";
import { inboxIdempotenceKey } from "./inbox-idempotence.js";
import type { FederationContextData } from "./federation-context-data.js";
import type { InboxDispatcher } from "./shared-inbox-listeners.js";
import { readSignature, verifySignature } from "./signature-verification.js";
import { signerVerdict } from "./signer-origins.js";
import type { VerifiedKeys } from "./verified-keys.js";

const logger = getLogger(["federation", "inbox"]);

/** Where Fedify remembers handled activities. */
const IDEMPOTENCE_PREFIX = FEDIFY_KV_PREFIXES.activityIdempotence;
/** How long Fedify remembers a handled activity. */
const IDEMPOTENCE_TTL_MS = 24 * 60 * 60 * 1000;
// As Fedify routes them (no trailing slash); an identifier with escapes is left to its router.
const PERSONAL_INBOX = /^\/users\/([^/%]+)\/inbox$/;
const SHARED_INBOX = /^\/inbox$/;
/** The Accept types for which Fedify answers with `Vary: Accept` (its `acceptsJsonLd`). */
const JSON_TYPES = new Set(["application/activity+json", "application/ld+json", "application/json"]);
/** The headers of the front's answers, as Fedify's: plain text, and `Vary: Accept` when Fedify would say it. */
const PLAIN_HEADERS: Readonly<Record<string, string>> = { "content-type": "text/plain; charset=utf-8" };
const VARY_ACCEPT_HEADERS: Readonly<Record<string, string>> = { ...PLAIN_HEADERS, vary: "Accept" };

export interface InboxFrontDeps {
  readonly federation: Federation<FederationContextData>;
  /** Fedify's key-value store: its cached keys and remembered activities. */
  readonly kv: {
    get(key: readonly string[]): Promise<unknown>;
    setFor(key: readonly string[], value: unknown, ttlMs: number): Promise<void>;
  };
  readonly keys: VerifiedKeys;
  readonly dispatcher: InboxDispatcher;
  /** Whether a personal inbox's owner exists (Fedify answers 404 otherwise). */
  recipientExists(identifier: string): Promise<boolean>;
  /** The actor whose key signs the fetches made for the shared inbox (Kith's shared key dispatcher). */
  readonly sharedInboxSigner: string;
  /** How far back, and forward, a signature's date may be (Fedify's `signatureTimeWindow`). */
  readonly signatureMaxAgeMs: number;
  /** Read common activities from their compact JSON (config `optimisations.compactActivities`). @default true */
  readonly compactActivities?: boolean;
}

/** How many POSTs the front answered and how many it handed to Fedify. */
export interface InboxFrontCounts {
  accepted: number;
  passed: number;
}

/**
 * Answers the POSTs to the inboxes that it verifies itself: the common case of
 * an activity signed by a key Fedify fetched before, which Fedify's handler
 * would verify and hand to the listeners with spans, logs, a second JSON-LD
 * parse and a signed document loader made for every request. Whatever the
 * front cannot fully verify (no signature or another kind, a key not yet
 * fetched, a signature that does not verify with the kept key, a body with
 * a Linked Data signature or an integrity proof, an owner that is not the
 * actor) is left to Fedify unchanged, which verifies, fetches and refuses as
 * it always did.
 */
export interface InboxFront {
  /** The answer to a POST to an inbox whose body (`bytes`, parsed as `json`) the guard read, or null: Fedify is to answer it. */
  answer(request: Request, bytes: Uint8Array, json: unknown): Promise<Response | null>;
  readonly counts: Readonly<InboxFrontCounts>;
}

/** What Fedify's contexts offer beyond their declared type: the inbox context its own handler makes. */
interface InboxContextSource {
  toInboxContext(
    recipient: string | null,
    activity: unknown,
    activityId: string | undefined,
    activityType: string,
  ): InboxContext<FederationContextData>;
}

function hasInboxContexts(ctx: object): ctx is InboxContextSource {
  return typeof (ctx as Partial<InboxContextSource>).toInboxContext === "function";
}

/** The recipient of a POST to `pathname` (null: the shared inbox), or undefined when it is no inbox the front answers for. */
function recipientOf(pathname: string): string | null | undefined {
  if (SHARED_INBOX.test(pathname)) return null;
  return PERSONAL_INBOX.exec(pathname)?.[1];
}

/** Whether Fedify's answer would say `Vary: Accept`, or null when the Accept header is one the front does not read. */
function variesOnAccept(request: Request): boolean | null {
  const accept = request.headers.get("accept");
  if (accept === null) return false;
  const types = accept.split(",").map((part) => part.trim().toLowerCase());
  return types.every((type) => JSON_TYPES.has(type)) ? true : null;
}

/** A document loader that makes the signed loader Fedify's handler makes for every request only when something fetches. */
function signedLoaderOnUse(ctx: RequestContext<FederationContextData>, identifier: string): DocumentLoader {
  let signed: Promise<DocumentLoader> | undefined;
  return async (url, options) => {
    signed ??= ctx.getDocumentLoader({ identifier });
    return (await signed)(url, options);
  };
}

function typeIdOf(activity: Activity): string {
  return (activity.constructor as { typeId?: URL }).typeId?.href ?? "https://www.w3.org/ns/activitystreams#Activity";
}

/** Whether the body carries a signature of its own (Linked Data signature, integrity proof): Fedify checks those. */
function isPlainActivity(json: unknown): json is Record<string, unknown> {
  return typeof json === "object" && json !== null && !Array.isArray(json) && !("signature" in json) && !("proof" in json);
}

export function createInboxFront(deps: InboxFrontDeps): InboxFront {
  const counts: InboxFrontCounts = { accepted: 0, passed: 0 };

  /** The verified, parsed activity and its context, or null when Fedify is to answer. */
  async function verified(
    request: Request,
    bytes: Uint8Array,
    json: unknown,
  ): Promise<{ activity: Activity; ctx: InboxContext<FederationContextData> } | null> {
    if (request.method !== "POST" || !isPlainActivity(json)) return null;
    const url = new URL(request.url);
    const recipient = recipientOf(url.pathname);
    if (recipient === undefined) return null;
    const signature = readSignature(
      { method: request.method, url, headers: request.headers, body: bytes },
      { now: Date.now(), maxAgeMs: deps.signatureMaxAgeMs },
    );
    if (signature === null) return null;
    const key = await deps.keys.get(signature.keyId);
    if (key === null) return null;
    if (!verifySignature(signature, key.key)) {
      // Perhaps replaced: Fedify fetches it again, and the next request reads what it wrote.
      deps.keys.forget(signature.keyId);
      return null;
    }
    if (recipient !== null && !(await deps.recipientExists(recipient))) return null;
    const requestCtx = deps.federation.createContext(request, { serving: true });
    if (!hasInboxContexts(requestCtx)) return null;
    const documentLoader = signedLoaderOnUse(requestCtx, recipient ?? deps.sharedInboxSigner);
    const loaders: ActivityReaderContext = {
      documentLoader,
      contextLoader: requestCtx.contextLoader,
      tracerProvider: requestCtx.tracerProvider,
    };
    let activity: Activity;
    try {
      // The guard parsed `json` from the body for this request, and nothing changes it afterwards.
      activity = await readActivity(json, loaders, { owned: true, compact: deps.compactActivities ?? true });
    } catch {
      return null;
    }
    if (activity.actorId?.href !== key.owner) return null;
    // A key's word for whose it is counts only on that actor's origin (signer-origins.ts); Fedify's path refuses the rest.
    if (signerVerdict({ actors: activity.actorIds, embeddedSigners: [] }, [new URL(signature.keyId)]) !== "same-origin") return null;
    const ctx = requestCtx.toInboxContext(recipient, json, activity.id?.href, typeIdOf(activity));
    // Every fetch a listener makes goes through the context's loader: the signed one, made on first use.
    Object.defineProperty(ctx, "documentLoader", { value: documentLoader, enumerable: true });
    return { activity, ctx };
  }

  async function answer(request: Request, bytes: Uint8Array, json: unknown): Promise<Response | null> {
    const vary = variesOnAccept(request);
    const found = vary === null ? null : await verified(request, bytes, json);
    const listeners = found && deps.dispatcher.listenersFor(found.activity);
    if (found === null || !listeners) {
      counts.passed++;
      return null;
    }
    counts.accepted++;
    const { activity, ctx } = found;
    const respond = (status: number, text: string): Response =>
      bufferedResponse(text, { status, headers: vary ? VARY_ACCEPT_HEADERS : PLAIN_HEADERS });
    const keyString = inboxIdempotenceKey(ctx, activity);
    const remembered = keyString === null ? null : [...IDEMPOTENCE_PREFIX, keyString];
    if (remembered !== null && (await deps.kv.get(remembered)) === true)
      return respond(202, `Activity <${activity.id?.href}> has already been processed.`);
    try {
      await deps.dispatcher.dispatch(listeners, ctx, activity);
    } catch (error) {
      logger.error("Failed to process the incoming activity {activityId}: {error}", { activityId: activity.id?.href, error });
      return respond(500, "Internal server error.");
    }
    if (remembered !== null) await deps.kv.setFor(remembered, true, IDEMPOTENCE_TTL_MS);
    return respond(202, "");
  }

  return { answer, counts };
}
