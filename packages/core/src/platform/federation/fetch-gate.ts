import { KithError } from "../../domain/errors.js";
import { acceptedTypes } from "../http/accepted-types.js";
import { errorToResponse } from "../http/error-response.js";
import type { FetchSigner } from "./fetch-signer.js";

/** The media types Fedify answers a document in; a request preferring none of them gets the HTML page instead. */
const DOCUMENT_TYPES = new Set(["application/activity+json", "application/ld+json", "application/json"]);
const PAGE_TYPES = new Set(["text/html", "application/xhtml+xml"]);

/** Whether Fedify would answer the request with a document rather than leave it to the HTML page (its `acceptsJsonLd`). */
export function wantsDocument(request: Request): boolean {
  const types = acceptedTypes(request.headers.get("accept") ?? "*/*");
  if (types[0] !== undefined && PAGE_TYPES.has(types[0])) return false;
  return types.some((type) => DOCUMENT_TYPES.has(type));
}

function isDocument(response: Response): boolean {
  const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/activity+json" || type === "application/ld+json";
}

/** Why secure mode refuses a request of this signer, or null when it lets it through. */
function refusalOf(signer: FetchSigner): KithError | null {
  if (signer.kind === "unsigned") return new KithError("federation.fetch_not_signed");
  return signer.kind === "refused" ? signer.error : null;
}

export interface FetchGateOptions {
  /** Secure mode: documents are served only to signed requests. */
  readonly authorizedFetch: boolean;
  /**
   * Whether a path is served to anyone even in secure mode: the instance
   * actor (which other servers fetch to verify its signatures, so it can sign
   * nothing first) and the actor documents, whose unsigned form holds little
   * more than their keys.
   */
  readonly open: (path: string) => boolean;
}

/**
 * Secure ("authorized fetch") mode, as Mastodon has it: a GET of any other
 * ActivityPub document must be signed by an actor whose key verifies and
 * whose domain may federate, or it is refused (401 unsigned or not
 * verifying, 403 for a blocked domain) before anything is read for it. A
 * request the checks here take for one wanting the HTML page goes on, and is
 * checked after all should Fedify answer it with a document.
 */
export async function gateFetch(
  request: Request,
  signer: () => Promise<FetchSigner>,
  options: FetchGateOptions,
  next: () => Promise<Response | null>,
): Promise<Response | null> {
  if (!options.authorizedFetch || (request.method !== "GET" && request.method !== "HEAD")) return next();
  if (options.open(new URL(request.url).pathname)) return next();
  const checkedFirst = wantsDocument(request);
  if (checkedFirst) {
    const refusal = refusalOf(await signer());
    if (refusal) return errorToResponse(refusal, request);
  }
  const response = await next();
  if (checkedFirst || response === null || !isDocument(response)) return response;
  const refusal = refusalOf(await signer());
  return refusal ? errorToResponse(refusal, request) : response;
}
