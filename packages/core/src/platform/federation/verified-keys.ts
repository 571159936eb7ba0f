import { type KeyObject, createPublicKey } from "node:crypto";
import type { KvKey } from "@fedify/fedify";
import { BoundedMap } from "../../bounded-map.js";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";

/** A remote public key as the inbox front checks signatures with it. */
export interface VerifiedKey {
  readonly key: KeyObject;
  /** The actor the key says it belongs to (its `owner`), as a URL's `href`. */
  readonly owner: string;
}

/**
 * What Fedify's key cache holds for a key id: a key the front checks with
 * (`usable`), another kind of entry Fedify reads itself (`cached`: a
 * Multikey, a key document of another shape), the mark of a key it could
 * not fetch lately (`unavailable`), or nothing (`unknown`: Fedify fetches it).
 */
export type KeyState = "usable" | "cached" | "unavailable" | "unknown";

/** What the keys are read from: Fedify's key-value store. */
export interface KeyValueReader {
  get(key: KvKey): Promise<unknown>;
}

/** Where Fedify keeps the public keys it fetched. */
const FEDIFY_PUBLIC_KEY_PREFIX = FEDIFY_KV_PREFIXES.publicKey;
/** Keys kept: those of the remote actors heard from lately. */
const MAX_KEYS = 4_096;

/** How long a kept key is used before its entry is read again. */
const KEPT_FOR_MS = 60_000;

const SECURITY = "https://w3id.org/security#";
const SECURITY_CONTEXT = "https://w3id.org/security/v1";
const PLAIN_KEY_CONTEXTS: ReadonlySet<string> = new Set([SECURITY_CONTEXT, "https://www.w3.org/ns/activitystreams"]);

/** The one value of an expanded JSON-LD property (`[{"@id": ...}]` or `[{"@value": ...}]`), or undefined. */
function expandedValueOf(property: unknown, field: "@id" | "@value"): unknown {
  if (!Array.isArray(property) || property.length !== 1) return undefined;
  const [only] = property as unknown[];
  return typeof only === "object" && only !== null ? (only as Record<string, unknown>)[field] : undefined;
}

/**
 * Whether a compact key entry's `@context` gives its `owner` and
 * `publicKeyPem` the meaning read here by name: the security vocabulary's
 * context alone or with ActivityStreams', neither of which redefines them. A
 * key document's own context may map those names elsewhere (a fetched key
 * document is cached as it was served), and then only Fedify's parse says
 * what they are.
 */
function isPlainKeyContext(context: unknown): boolean {
  const list = Array.isArray(context) ? (context as unknown[]) : [context];
  return list.includes(SECURITY_CONTEXT) && list.every((entry) => typeof entry === "string" && PLAIN_KEY_CONTEXTS.has(entry));
}

/** The id, owner and PEM of a key as Fedify's `toJsonLd` writes it: expanded (what its key cache writes) or compact. */
function keyFieldsOf(value: Record<string, unknown>): KeyFields | null {
  if ("@id" in value) {
    // Expanded JSON-LD has no context; a document that has one is read by name below, or not at all.
    if ("@context" in value) return null;
    // Fedify reads an entry without a type as a CryptographicKey too (a key document may leave it out).
    const types = value["@type"];
    if (types !== undefined && !(Array.isArray(types) && types.length === 1 && types[0] === `${SECURITY}Key`)) return null;
    return {
      id: value["@id"],
      owner: expandedValueOf(value[`${SECURITY}owner`], "@id"),
      pem: expandedValueOf(value[`${SECURITY}publicKeyPem`], "@value"),
    };
  }
  if (!isPlainKeyContext(value["@context"])) return null;
  if (value.type !== undefined && value.type !== "CryptographicKey") return null;
  return { id: value.id, owner: value.owner, pem: value.publicKeyPem };
}

interface KeyFields {
  readonly id: unknown;
  readonly owner: unknown;
  readonly pem: unknown;
}

/** A key the front may check signatures with, and the PEM it was made from (to tell a replaced key from the same one). */
interface ReadKey extends VerifiedKey {
  readonly pem: string;
}

/**
 * The key Fedify cached as `value` (a `CryptographicKey` with `owner` and
 * `publicKeyPem`), or null when it is not one (a Multikey, a key Fedify
 * could not fetch, a key without owner, for which Fedify fetches the actor).
 * `kept` is reused when the entry still holds the same key.
 */
function readKeyOf(keyId: string, value: unknown, kept: ReadKey | undefined): ReadKey | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const fields = keyFieldsOf(value as Record<string, unknown>);
  if (fields === null) return null;
  const { id, owner, pem } = fields;
  if (!(typeof id === "string" && URL.canParse(id) && new URL(id).href === keyId)) return null;
  if (typeof owner !== "string" || !URL.canParse(owner) || typeof pem !== "string") return null;
  const ownerHref = new URL(owner).href;
  if (kept !== undefined && kept.pem === pem && kept.owner === ownerHref) return kept;
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== "rsa" && key.asymmetricKeyType !== "ed25519") return null;
    return { key, owner: ownerHref, pem };
  } catch {
    return null;
  }
}

/**
 * The public keys the inbox front checks signatures with, by key id: kept
 * in this process as node:crypto key objects, read on a miss from the entry
 * Fedify wrote when it fetched the key. A key the front does not find is
 * left to Fedify, which fetches it (and writes the entry read next time);
 * a key whose signature did not verify is forgotten, so the one Fedify
 * fetches again after a rotation is read anew. A kept key is read again
 * after a minute, as Fedify would read the entry another process may have
 * replaced (the key-value store's own copy is as old at most).
 */
export class VerifiedKeys {
  readonly #kept = new BoundedMap<string, { readonly key: ReadKey; readonly readAt: number }>(MAX_KEYS);

  constructor(
    private readonly kv: KeyValueReader,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key of `keyId` (a URL's `href`), or null when Fedify has not fetched it (or it is not one the front uses). */
  async get(keyId: string): Promise<VerifiedKey | null> {
    const kept = this.#kept.use(keyId);
    const now = this.now();
    if (kept !== undefined && now - kept.readAt < KEPT_FOR_MS) return kept.key;
    const key = readKeyOf(keyId, await this.kv.get([...FEDIFY_PUBLIC_KEY_PREFIX, keyId]), kept?.key);
    if (key === null) this.#kept.delete(keyId);
    else this.#kept.set(keyId, { key, readAt: now });
    return key;
  }

  /** What Fedify's cache holds for `keyId` (a URL's `href`); a kept key answers without reading it. */
  async state(keyId: string): Promise<KeyState> {
    if ((await this.get(keyId)) !== null) return "usable";
    // Only when the key is none the front uses: the usual request is answered above.
    const value = await this.kv.get([...FEDIFY_PUBLIC_KEY_PREFIX, keyId]);
    return value === undefined ? "unknown" : value === null ? "unavailable" : "cached";
  }

  /** Forgets the key of `keyId` (its signature did not verify: it may have been replaced). */
  forget(keyId: string): void {
    this.#kept.delete(keyId);
  }
}
