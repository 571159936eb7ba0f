import { exportJwk, generateCryptoKeyPair, importJwk } from "@fedify/fedify";
import { BoundedMap } from "../../bounded-map.js";
import type { Clock } from "../../ports/clock.js";
import type { Storage } from "../../ports/storage.js";
import { findActorKeyPairs, insertActorKeyPair } from "./actor-key-pairs-store.js";

/** RSA for draft-cavage and RFC 9421 signatures (Mastodon), Ed25519 for FEP-8b32 integrity proofs. */
export const KEY_ALGORITHMS = ["RSASSA-PKCS1-v1_5", "Ed25519"] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/**
 * Bits of a new RSA key. Mastodon, GoToSocial and Pleroma make 2048-bit keys,
 * and every delivery is signed with one: a 4096-bit key (Fedify's default)
 * costs about five times the CPU a signature (node:crypto, 3.2 against 0.7 ms
 * measured on one busy core), for a strength no peer asks for. Keys made before keep their size.
 */
export const RSA_MODULUS_BITS = 2048;

/** A new key pair of `algorithm`, exportable (it is stored as JWK). */
export function generateKeyPair(algorithm: KeyAlgorithm): Promise<CryptoKeyPair> {
  if (algorithm === "Ed25519") return generateCryptoKeyPair(algorithm);
  return crypto.subtle.generateKey(
    { name: algorithm, modulusLength: RSA_MODULUS_BITS, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
}

/** The owner id of the instance actor's keys. */
export const INSTANCE_KEY_OWNER = "instance";

/** Actors whose imported keys are kept in memory, the most recently used. */
const KEPT_ACTORS = 1_000;

export interface ActorKeys {
  readonly algorithm: KeyAlgorithm;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
}

/**
 * The key pairs of local actors: made on first need, stored in the database
 * (so they survive restarts and every process of a server signs with the
 * same keys), and kept imported in memory after the first read.
 */
export class KeyPairStore {
  readonly #storage: Storage;
  readonly #clock: Clock;
  /** The actors who signed lately: every actor that ever signed was kept before, a server's worth of keys. */
  readonly #cache: BoundedMap<string, Promise<readonly ActorKeys[]>>;

  constructor(storage: Storage, clock: Clock, capacity = KEPT_ACTORS) {
    this.#storage = storage;
    this.#clock = clock;
    this.#cache = new BoundedMap(capacity);
  }

  /** The actor's key pairs, RSA first, generating and storing any that are missing. */
  keysOf(ownerId: string): Promise<readonly ActorKeys[]> {
    let keys = this.#cache.use(ownerId);
    if (!keys) {
      keys = this.#load(ownerId);
      this.#cache.set(ownerId, keys);
      keys.catch(() => this.#cache.delete(ownerId));
    }
    return keys;
  }

  async #load(ownerId: string): Promise<readonly ActorKeys[]> {
    let stored = await findActorKeyPairs(this.#storage.db, ownerId);
    const missing = KEY_ALGORITHMS.filter((algorithm) => !stored.some((pair) => pair.algorithm === algorithm));
    if (missing.length > 0) {
      const now = this.#clock.now().toISOString();
      for (const algorithm of missing) {
        const pair = await generateKeyPair(algorithm);
        await insertActorKeyPair(
          this.#storage.db,
          ownerId,
          {
            algorithm,
            publicJwk: JSON.stringify(await exportJwk(pair.publicKey)),
            privateJwk: JSON.stringify(await exportJwk(pair.privateKey)),
          },
          now,
        );
      }
      // Read back: another process may have stored its pair first, and that one wins.
      stored = await findActorKeyPairs(this.#storage.db, ownerId);
    }
    const keys: ActorKeys[] = [];
    for (const algorithm of KEY_ALGORITHMS) {
      const pair = stored.find((candidate) => candidate.algorithm === algorithm);
      if (!pair) continue;
      keys.push({
        algorithm,
        privateKey: await importJwk(JSON.parse(pair.privateJwk) as JsonWebKey, "private"),
        publicKey: await importJwk(JSON.parse(pair.publicJwk) as JsonWebKey, "public"),
      });
    }
    return keys;
  }
}
