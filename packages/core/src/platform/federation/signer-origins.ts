import type { Activity } from "@fedify/fedify/vocab";
import { type ActivityReadOptions, type ActivityReaderContext, readActivity } from "./activity-reader.js";

/**
 * The origin rule for what arrives in an inbox (FEP-fe34): an activity is
 * taken as its actor's only when the key that vouches for it is served from
 * the actor's own origin.
 *
 * Why: Fedify (2.3) takes a key's word for whose it is. A key document
 * served from any server that names an actor as its `owner` (a proof's key:
 * its `controller`) authenticates that actor's activities, by HTTP signature
 * and by Linked Data signature alike, so any server could status, follow or
 * delete as anyone's account. This rule is checked before Fedify sees the
 * request; the inbox front applies the same rule to what it verifies itself.
 */

/** What the rule says of a request. */
export type SignerVerdict =
  /** Every key named is on the actor's origin. */
  | "same-origin"
  /**
   * The HTTP signature is another origin's (a relay, a server forwarding a
   * reply), the activity's own signatures are the actor origin's: only those
   * may vouch for it, so the request goes on without its HTTP signature.
   */
  | "embedded-only"
  /** A key of another origin would be taken as the actor's, or there is no actor to vouch for. */
  | "refused";

/** The actors of an activity and the keys its own signatures (Linked Data signature, integrity proofs) name. */
export interface SignedParties {
  readonly actors: readonly URL[];
  readonly embeddedSigners: readonly URL[];
}

export function signerVerdict(parties: SignedParties, httpSigners: readonly URL[]): SignerVerdict {
  const origins = new Set(parties.actors.map((actor) => actor.origin));
  // One origin for all actors: a key can be on only one.
  if (origins.size !== 1) return "refused";
  const onActorOrigin = (signer: URL): boolean => origins.has(signer.origin);
  if (!parties.embeddedSigners.every(onActorOrigin)) return "refused";
  if (httpSigners.every(onActorOrigin)) return "same-origin";
  return parties.embeddedSigners.length > 0 ? "embedded-only" : "refused";
}

/**
 * The keys a request's HTTP signatures name (draft-cavage `keyId`, RFC 9421
 * `keyid`), each read every way a reader may take it: as an RFC 8941 string
 * (backslash escapes) and as draft-cavage text (up to the next quote). A
 * request with several signatures names each of their keys.
 */
export function httpSignerIds(headers: Headers): URL[] {
  const text = `${headers.get("signature") ?? ""} ${headers.get("signature-input") ?? ""}`;
  const readings = new Set<string>();
  for (const pattern of [/keyid="((?:[^"\\]|\\.)*)"/gi, /keyid="([^"]*)"/gi]) {
    for (const match of text.matchAll(pattern)) {
      const value = match[1] ?? "";
      readings.add(value);
      readings.add(value.replace(/\\(.)/g, "$1"));
    }
  }
  return urlsOf([...readings]);
}

/** The signatures' request headers, which `embedded-only` takes off a request. */
export const HTTP_SIGNATURE_HEADERS = ["signature", "signature-input"] as const;

/**
 * The actors of `json` as Fedify reads them (aliases, contexts and all) and
 * the keys of its own signatures: a Linked Data signature's `creator` or
 * `verificationMethod`, read by name as Fedify finds the signature, and the
 * verification methods of its integrity proofs, as Fedify parses them. Null
 * when it is no activity.
 */
export async function signedPartiesOf(
  json: unknown,
  loaders: ActivityReaderContext,
  options: Pick<ActivityReadOptions, "compact"> = {},
): Promise<SignedParties | null> {
  let activity: Activity;
  try {
    activity = await readActivity(json, loaders, options);
  } catch {
    return null;
  }
  const embeddedSigners = [...ldSignatureKeysOf(json), ...(await proofKeysOf(activity, loaders))];
  return { actors: activity.actorIds, embeddedSigners };
}

function ldSignatureKeysOf(json: unknown): URL[] {
  if (typeof json !== "object" || json === null || !("signature" in json)) return [];
  const signatures = [(json as { signature: unknown }).signature].flat();
  return urlsOf(
    signatures.flatMap((signature) =>
      typeof signature === "object" && signature !== null
        ? [referenceOf((signature as Record<string, unknown>).creator), referenceOf((signature as Record<string, unknown>).verificationMethod)]
        : [],
    ),
  );
}

/** The proofs' verification methods; a proof given by reference counts as a key of its own origin. */
async function proofKeysOf(activity: Activity, loaders: ActivityReaderContext): Promise<URL[]> {
  const keys: URL[] = [...activity.proofIds];
  // Embedded proofs only: a referenced one is not fetched here.
  const noFetch: ActivityReaderContext["documentLoader"] = async (url) => {
    throw new Error(`Not fetched: ${url}`);
  };
  for await (const proof of activity.getProofs({ ...loaders, documentLoader: noFetch, suppressError: true })) {
    if (proof.verificationMethodId) keys.push(proof.verificationMethodId);
  }
  return keys;
}

/** A reference as JSON-LD writes one: a string, or an object with `id` or `@id`. */
function referenceOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value !== "object" || value === null) return undefined;
  const { id, "@id": atId } = value as { id?: unknown; "@id"?: unknown };
  return typeof id === "string" ? id : typeof atId === "string" ? atId : undefined;
}

function urlsOf(values: readonly (string | undefined)[]): URL[] {
  return values.flatMap((value) => (value !== undefined && URL.canParse(value) ? [new URL(value)] : []));
}
