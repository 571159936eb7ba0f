import type { DocumentLoader, KeyCache, KvKey, KvStore } from "@fedify/fedify";
import { CryptographicKey, Multikey } from "@fedify/fedify/vocab";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";

/**
 * The public keys Fedify fetched, as a key cache for a verification Kith
 * makes itself with Fedify's `verifyRequest` (a relay's forwarded Create):
 * a key Fedify fetched for its inbox is not fetched again, and one fetched
 * here is kept where Fedify finds it. Read and written as Fedify's own
 * cache does (`fedify-internals.canary.test.ts` watches its entries); a key
 * known to be unavailable is fetched again, not remembered as such here.
 */
export function fetchedKeyCache(kv: Pick<KvStore, "get" | "set">, loaders: { readonly contextLoader: DocumentLoader }): KeyCache {
  // Never empty: the prefix and the key id.
  const entry = (keyId: URL): KvKey => [...FEDIFY_KV_PREFIXES.publicKey, keyId.href] as [string, ...string[]];
  return {
    async get(keyId) {
      const serialized = await kv.get(entry(keyId));
      if (serialized === undefined || serialized === null) return undefined;
      let key: CryptographicKey | Multikey | undefined;
      try {
        key = await CryptographicKey.fromJsonLd(serialized, loaders);
      } catch {
        key = await Multikey.fromJsonLd(serialized, loaders).catch(() => undefined);
      }
      // Whatever else is there is fetched again.
      return key?.id?.href === keyId.href ? key : undefined;
    },
    async set(keyId, key) {
      if (key !== null) await kv.set(entry(keyId), await key.toJsonLd(loaders));
    },
  };
}
