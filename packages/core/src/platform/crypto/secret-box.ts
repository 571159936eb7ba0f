import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/** What a sealed value starts with: the format's version, so a later format can be told apart. */
const PREFIX = "sb1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A sealed value no key of the server opens: sealed under a key since
 * removed, altered, or not sealed for this purpose. The server's fault, not
 * the client's: whoever reads the secret decides what is lost without it.
 */
export class UnreadableSecretError extends Error {
  constructor() {
    super("A sealed secret could not be opened with the server's secret keys");
    this.name = "UnreadableSecretError";
  }
}

interface BoxKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * Secrets Kith must read back (tokens a push carries, providers' API keys),
 * encrypted at rest with AES-256-GCM under the server's secret keys. The
 * first key seals; every key opens, so a key is rotated by putting a new one
 * first and keeping the old ones until everything is sealed again
 * (`needsResealing`). Each value is bound to what it is (`purpose`, the
 * additional data), so a value copied into another column does not open.
 *
 * A sealed value reads `sb1.<key id>.<iv>.<ciphertext>.<tag>`, base64url;
 * the key id is derived from the key, never the key itself.
 */
export class SecretBox {
  readonly #keys: readonly BoxKey[];

  /** `secrets`: the server's secret keys, strings of at least 32 characters, the one to seal with first. */
  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error("A secret box needs at least one key");
    this.#keys = secrets.map((secret) => {
      if (secret.length < 32) throw new Error("A secret key has at least 32 characters");
      const derive = (info: string, length: number) => Buffer.from(hkdfSync("sha256", secret, "kith-secret-box", info, length));
      return { id: derive("key-id", 6).toString("base64url"), key: derive("aes-256-gcm", 32) };
    });
  }

  /** A new random secret key, for a server that has none yet. */
  static newKey(): string {
    return randomBytes(32).toString("base64url");
  }

  seal(plaintext: string, purpose: string): string {
    const key = this.#keys[0] as BoxKey;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(purpose));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [PREFIX, key.id, iv.toString("base64url"), ciphertext.toString("base64url"), cipher.getAuthTag().toString("base64url")].join(
      ".",
    );
  }

  /** The plaintext of a sealed value; an `UnreadableSecretError` when no key opens it or it was altered. */
  open(sealed: string, purpose: string): string {
    const [prefix, keyId, iv, ciphertext, tag, ...rest] = sealed.split(".");
    const key = this.#keys.find((candidate) => candidate.id === keyId);
    if (prefix !== PREFIX || rest.length > 0 || !key || iv === undefined || ciphertext === undefined || tag === undefined) {
      throw new UnreadableSecretError();
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.key, Buffer.from(iv, "base64url"), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
    } catch {
      throw new UnreadableSecretError();
    }
  }

  /** Whether a value is sealed at all (stored before sealing existed, it is not). */
  static isSealed(value: string): boolean {
    return value.startsWith(`${PREFIX}.`);
  }

  /** Whether a sealed value is under another key than the current one, and should be sealed again. */
  needsResealing(sealed: string): boolean {
    return sealed.split(".")[1] !== (this.#keys[0] as BoxKey).id;
  }
}
