import { type DocumentLoader, MemoryKvStore, generateCryptoKeyPair, preloadedContexts } from "@fedify/fedify";
import { CryptographicKey } from "@fedify/fedify/vocab";
import { describe, expect, it } from "vitest";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";
import { fetchedKeyCache } from "./fetched-key-cache.js";

const KEY_ID = new URL("https://relay.example/actor#main-key");

/** Serves the contexts Fedify ships, and nothing else. */
const contextLoader: DocumentLoader = async (url) => {
  const document = preloadedContexts[url];
  if (document === undefined) throw new Error(`${url} is not preloaded`);
  return { contextUrl: null, documentUrl: url, document };
};

describe("fetchedKeyCache", () => {
  it("keeps a key where Fedify's own cache keeps it, and reads back the same key", async () => {
    const kv = new MemoryKvStore();
    const { publicKey } = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
    const key = new CryptographicKey({ id: KEY_ID, owner: new URL("https://relay.example/actor"), publicKey });
    const cache = fetchedKeyCache(kv, { contextLoader });
    expect(await cache.get(KEY_ID)).toBeUndefined();
    await cache.set(KEY_ID, key);
    expect(await kv.get([...FEDIFY_KV_PREFIXES.publicKey, KEY_ID.href])).toBeDefined();
    const read = await cache.get(KEY_ID);
    expect(read).toBeInstanceOf(CryptographicKey);
    expect(read?.id?.href).toBe(KEY_ID.href);
    expect((read as CryptographicKey).ownerId?.href).toBe("https://relay.example/actor");
  });

  it("reads an entry that is no key, or a key remembered as unavailable, as not cached", async () => {
    const kv = new MemoryKvStore();
    const cache = fetchedKeyCache(kv, { contextLoader });
    await kv.set([...FEDIFY_KV_PREFIXES.publicKey, KEY_ID.href], { not: "a key" });
    expect(await cache.get(KEY_ID)).toBeUndefined();
    await kv.set([...FEDIFY_KV_PREFIXES.publicKey, KEY_ID.href], null);
    expect(await cache.get(KEY_ID)).toBeUndefined();
    await cache.set(KEY_ID, null);
    expect(await kv.get([...FEDIFY_KV_PREFIXES.publicKey, KEY_ID.href])).toBeNull();
  });
});
