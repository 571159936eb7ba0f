/**
 * Fedify puts the sender's private keys into every queued delivery as JWK
 * and imports them again for each one it sends (RSA and Ed25519: about a
 * millisecond of CPU a delivery, and a freshly imported RSA key signs slower
 * than one already used). Verifying an incoming activity, it imports the
 * sender's public key again from its cached PEM (SPKI) for every request
 * (about 0.1 ms, and a fresh key verifies slower than a used one too). It
 * offers no hook for its keys, so this process keeps what it imported: a
 * private JWK or a public SPKI key imported again with the same parameters
 * gets the `CryptoKey` made the first time. A `CryptoKey` cannot be changed,
 * so sharing one is safe; the most recently used of each kind are kept.
 */

import { BoundedMap } from "../../bounded-map.js";

/** Private keys kept: this server's own, one or two an account. */
const MAX_PRIVATE_KEYS = 256;
/** Public keys kept: those of the remote actors heard from lately. */
const MAX_PUBLIC_KEYS = 4_096;
const INSTALLED = Symbol.for("kith.importedKeys");

type ImportKey = SubtleCrypto["importKey"];

interface PrivateJwk extends JsonWebKey {
  readonly kty: string;
  readonly d: string;
}

function isPrivateJwk(format: string, keyData: unknown): keyData is PrivateJwk {
  if (format !== "jwk" || typeof keyData !== "object" || keyData === null) return false;
  const { kty, d } = keyData as { kty?: unknown; d?: unknown };
  return typeof kty === "string" && typeof d === "string";
}

function algorithmKey(algorithm: unknown): string | null {
  if (typeof algorithm === "string") return algorithm;
  if (typeof algorithm !== "object" || algorithm === null) return null;
  const { name, hash } = algorithm as { name?: unknown; hash?: unknown };
  if (typeof name !== "string") return null;
  if (hash === undefined) return name;
  if (typeof hash === "string") return `${name}/${hash}`;
  const hashName = typeof hash === "object" && hash !== null ? (hash as { name?: unknown }).name : undefined;
  return typeof hashName === "string" ? `${name}/${hashName}` : null;
}

/** The bytes of a public key given as SPKI, or null for any other import. */
function spkiBytesOf(format: string, keyData: unknown): Uint8Array | null {
  if (format !== "spki") return null;
  if (keyData instanceof ArrayBuffer) return new Uint8Array(keyData);
  if (ArrayBuffer.isView(keyData)) return new Uint8Array(keyData.buffer, keyData.byteOffset, keyData.byteLength);
  return null;
}

/**
 * What makes two imports the same: the key itself (a private JWK's private
 * part and curve or modulus, or all of a public key's SPKI bytes) and every
 * import parameter; null for imports that are not kept.
 */
function cacheKeyOf(format: string, keyData: unknown, algorithm: unknown, extractable: boolean, usages: readonly string[]): string | null {
  const name = algorithmKey(algorithm);
  if (name === null) return null;
  const parameters = [name, extractable, [...usages].sort()];
  if (isPrivateJwk(format, keyData)) {
    const jwk = keyData;
    return JSON.stringify(["jwk", jwk.kty, jwk.crv ?? null, jwk.n ?? jwk.x ?? null, jwk.d, jwk.alg ?? null, ...parameters]);
  }
  const spki = spkiBytesOf(format, keyData);
  return spki === null ? null : JSON.stringify(["spki", Buffer.from(spki).toString("base64"), ...parameters]);
}

/** Keeps private keys imported from JWK and public keys imported from SPKI in this process (see above); installing twice changes nothing. */
export function keepImportedKeys(subtle: SubtleCrypto = globalThis.crypto.subtle): void {
  const marked = subtle as SubtleCrypto & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  const original: ImportKey = subtle.importKey.bind(subtle);
  // By `cacheKeyOf`; the most recently used is dropped last.
  const privateKeys = new BoundedMap<string, Promise<CryptoKey>>(MAX_PRIVATE_KEYS);
  const publicKeys = new BoundedMap<string, Promise<CryptoKey>>(MAX_PUBLIC_KEYS);
  const importKey = ((format: string, keyData: unknown, algorithm: unknown, extractable: boolean, usages: readonly KeyUsage[]) => {
    const call = () => (original as (...args: unknown[]) => Promise<CryptoKey>)(format, keyData, algorithm, extractable, usages);
    const key = cacheKeyOf(format, keyData, algorithm, extractable, usages);
    if (key === null) return call();
    const kept = format === "spki" ? publicKeys : privateKeys;
    const hit = kept.use(key);
    if (hit) return hit;
    const imported = call();
    kept.set(key, imported);
    imported.catch(() => kept.delete(key));
    return imported;
  }) as ImportKey;
  Object.defineProperty(subtle, "importKey", { value: importKey, configurable: true, writable: true });
  Object.defineProperty(subtle, INSTALLED, { value: true });
}
