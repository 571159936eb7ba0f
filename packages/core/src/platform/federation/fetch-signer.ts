import type { RequestContext } from "@fedify/fedify";
import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import { SIGNATURE_MAX_AGE_MS, SIGNATURE_MAX_SKEW_MS, signedAtOf } from "./inbox-guard.js";
import type { HostPolicies } from "./remote-host-gates.js";
import { httpSignerIds } from "./signer-origins.js";

const logger = getLogger(["federation", "fetch"]);

/**
 * Who signed a GET of one of our documents: no one (`unsigned`), an actor
 * whose key verified the signature (`signed`), or a signature refused for
 * the reason `error` gives (undated, too old or new, not verifying with the
 * key it names, or made by a key of a domain that may not federate).
 */
export type FetchSigner =
  | { readonly kind: "unsigned" }
  | { readonly kind: "refused"; readonly error: KithError }
  | { readonly kind: "signed"; readonly actor: URL };

export interface FetchSignerDeps {
  readonly domainPolicy: HostPolicies;
}

function hasSignature(headers: Headers): boolean {
  return headers.has("signature") || headers.has("signature-input");
}

/** Why a signature's dates are refused from the headers alone (the window of inbox-guard.ts), or null. */
function dateRefusal(headers: Headers): KithError | null {
  const signedAt = signedAtOf(headers);
  // The system clock, not the clock port: Fedify checks the signature's dates against it.
  const now = Date.now();
  if (signedAt !== null && signedAt > now + SIGNATURE_MAX_SKEW_MS) return new KithError("federation.signature_in_future");
  if (signedAt === null || signedAt < now - SIGNATURE_MAX_AGE_MS) return new KithError("federation.signature_expired");
  return null;
}

/**
 * Reads and verifies the HTTP signature of the request `ctx` answers, in
 * either form Fedify verifies (draft-cavage, RFC 9421): the cheap refusals
 * first (dates, a key of a blocked domain, which is then never fetched),
 * then the signer's key and its owner, fetched (signed, by the context's
 * loader) unless Fedify has them. Never throws for what a request carries.
 */
export async function fetchSignerOf(ctx: RequestContext<unknown>, deps: FetchSignerDeps): Promise<FetchSigner> {
  const headers = ctx.request.headers;
  if (!hasSignature(headers)) return { kind: "unsigned" };
  const dated = dateRefusal(headers);
  if (dated) return { kind: "refused", error: dated };
  const keyIds = httpSignerIds(headers);
  if (keyIds.length === 0) return { kind: "refused", error: new KithError("federation.signature_invalid") };
  for (const host of new Set(keyIds.map((keyId) => keyId.host))) {
    const policy = await deps.domainPolicy.policyFor(host);
    if (policy.blocked) {
      logger.info("Refused a fetch signed by a key of {host}: {reason}", { host, reason: policy.reason });
      return { kind: "refused", error: new KithError("federation.domain_refused") };
    }
  }
  try {
    const owner = await ctx.getSignedKeyOwner();
    if (owner?.id) return { kind: "signed", actor: owner.id };
  } catch (error) {
    logger.debug("The signature of a fetch of {url} could not be checked: {error}", { url: ctx.url.href, error });
  }
  return { kind: "refused", error: new KithError("federation.signature_invalid") };
}

/** The signer of one request, verified on the first call only; `asked` tells whether the answer came to depend on it. */
export interface LazyFetchSigner {
  readonly signer: () => Promise<FetchSigner>;
  asked(): boolean;
}

export function lazyFetchSigner(read: () => Promise<FetchSigner>): LazyFetchSigner {
  let reading: Promise<FetchSigner> | undefined;
  return {
    signer: () => {
      reading ??= read();
      return reading;
    },
    asked: () => reading !== undefined,
  };
}
