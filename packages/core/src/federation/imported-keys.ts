/**
 * Fedify puts the sender's private keys into every queued delivery as JWK
 * and imports them again for each one it sends (RSA and Ed25519: about a
 * millisecond of CPU a delivery, and a freshly imported RSA key signs slower
 * than one already used). It offers no hook for its keys, so this process
 * keeps what it imported: a private JWK imported again with the same
 * parameters gets the `CryptoKey` made the first time. A `CryptoKey` cannot
 * be changed, so sharing one is safe; only private keys are kept (public
 * ones are cached by Fedify's key cache), at most `MAX_KEYS` of them.
 */

const MAX_KEYS = 256;
const INSTALLED = Symbol.for("kith.importedPrivateKeys");

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

/** What makes two imports the same: the key itself (its private part and curve or modulus) and every import parameter. */
function cacheKeyOf(jwk: PrivateJwk, algorithm: unknown, extractable: boolean, usages: readonly string[]): string | null {
  const name = algorithmKey(algorithm);
  if (name === null) return null;
  return JSON.stringify([jwk.kty, jwk.crv ?? null, jwk.n ?? jwk.x ?? null, jwk.d, jwk.alg ?? null, name, extractable, [...usages].sort()]);
}

/** Keeps private keys imported from JWK in this process (see above); installing twice changes nothing. */
export function keepImportedPrivateKeys(subtle: SubtleCrypto = globalThis.crypto.subtle): void {
  const marked = subtle as SubtleCrypto & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  const original: ImportKey = subtle.importKey.bind(subtle);
  const kept = new Map<string, Promise<CryptoKey>>();
  const importKey = ((format: string, keyData: unknown, algorithm: unknown, extractable: boolean, usages: readonly KeyUsage[]) => {
    const call = () => (original as (...args: unknown[]) => Promise<CryptoKey>)(format, keyData, algorithm, extractable, usages);
    if (!isPrivateJwk(format, keyData)) return call();
    const key = cacheKeyOf(keyData, algorithm, extractable, usages);
    if (key === null) return call();
    const hit = kept.get(key);
    if (hit) {
      // Most recently used last, so the oldest unused goes first.
      kept.delete(key);
      kept.set(key, hit);
      return hit;
    }
    const imported = call();
    kept.set(key, imported);
    imported.catch(() => kept.delete(key));
    if (kept.size > MAX_KEYS) {
      const oldest = kept.keys().next().value;
      if (oldest !== undefined) kept.delete(oldest);
    }
    return imported;
  }) as ImportKey;
  Object.defineProperty(subtle, "importKey", { value: importKey, configurable: true, writable: true });
  Object.defineProperty(subtle, INSTALLED, { value: true });
}
