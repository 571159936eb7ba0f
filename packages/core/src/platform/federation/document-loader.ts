import {
  type DocumentLoader,
  type KvStore,
  type RemoteDocument,
  getRemoteDocument,
  kvCache,
  preloadedContexts,
  signRequest,
} from "@fedify/fedify";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";
import { withoutUnusableKeys } from "./key-material.js";
import { OutgoingFetchError, type SafeFetch } from "./safe-fetch.js";

const ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

export interface DocumentLoaderOptions {
  readonly fetch: SafeFetch;
  readonly userAgent: string;
}

function preloaded(url: string): RemoteDocument | null {
  const document = preloadedContexts[url];
  return document === undefined ? null : { contextUrl: null, documentUrl: url, document };
}

/** The document as Fedify's reader can take it: key material that does not import is left out (key-material.ts). */
async function readableDocument(url: string, response: Response, load: DocumentLoader): Promise<RemoteDocument> {
  const remote = await getRemoteDocument(url, response, load);
  const document = withoutUnusableKeys(remote.document);
  return document === remote.document ? remote : { ...remote, document };
}

/** The key a signed fetch is made with, and the id servers fetch its public half by. */
export interface SigningIdentity {
  readonly keyId: URL;
  readonly privateKey: CryptoKey;
}

/**
 * The signed loader below with the identity read for each fetch (the
 * instance actor's key, kept in memory by its store after the first read),
 * behind Fedify's cache: the loader Fedify gives every context, so no fetch
 * of another server's document goes out unsigned, which servers in secure
 * mode refuse.
 */
export function cachedSignedDocumentLoader(
  identity: () => Promise<SigningIdentity>,
  options: DocumentLoaderOptions & { readonly kv: KvStore },
): DocumentLoader {
  const loader: DocumentLoader = async (url, loaderOptions) =>
    preloaded(url) ?? signedDocumentLoader(await identity(), options)(url, loaderOptions);
  return kvCache({ loader, kv: options.kv, prefix: FEDIFY_KV_PREFIXES.remoteDocument });
}

/**
 * A loader that signs every request (draft-cavage HTTP Signatures, which
 * every fediverse server verifies) with the given key: for servers that
 * require signed fetches ("authorized fetch"). Each redirect hop is signed
 * again for its own target; the safe fetch checks every hop's address.
 */
export function signedDocumentLoader(
  identity: SigningIdentity,
  options: DocumentLoaderOptions & { readonly maxRedirects?: number },
): DocumentLoader {
  const maxRedirects = options.maxRedirects ?? 5;
  const load: DocumentLoader = async (url, loaderOptions) => {
    const known = preloaded(url);
    if (known) return known;
    let target = new URL(url);
    for (let hop = 0; ; hop++) {
      const unsigned = new Request(target, { headers: { accept: ACCEPT, "user-agent": options.userAgent } });
      const signed = await signRequest(unsigned, identity.privateKey, identity.keyId);
      const response = await options.fetch(target, {
        headers: signed.headers,
        redirect: "manual",
        ...(loaderOptions?.signal && { signal: loaderOptions.signal }),
      });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location !== null) {
        if (hop >= maxRedirects) throw new OutgoingFetchError("too_many_redirects", `More than ${maxRedirects} redirects from ${url}`);
        target = new URL(location, target);
        continue;
      }
      return readableDocument(target.href, response, load);
    }
  };
  return load;
}
