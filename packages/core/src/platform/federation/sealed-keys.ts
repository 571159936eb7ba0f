/**
 * Fedify puts the sender's private keys, as JWK, into every message of a
 * send (a delivery, a fan-out), and so into the job it becomes: a row of the
 * jobs table or a Redis entry, and the payload the jobs API shows an
 * administrator. A queued message keeps only the keys' ids instead; the
 * private keys are looked up again from the actor's stored keys when the
 * job runs (an actor removed meanwhile sends nothing more).
 */

/** A key as Fedify's messages carry it. */
interface MessageKey {
  readonly keyId: string;
  readonly privateKey?: JsonWebKey;
}

/** The private key (JWK) of one of this server's actors' key ids, or null when there is none (the actor is gone). */
export type PrivateKeyResolver = (keyId: string) => Promise<JsonWebKey | null>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isMessageKeyList(value: unknown): value is readonly MessageKey[] {
  return Array.isArray(value) && value.every((key) => isRecord(key) && typeof key.keyId === "string");
}

/** The object holding a payload's `keys`: the message itself, or a batch's shared message. */
function keyHolderOf(payload: unknown): Record<string, unknown> | null {
  if (!isRecord(payload)) return null;
  if (isMessageKeyList(payload.keys)) return payload;
  const shared = payload.message;
  return isRecord(shared) && isMessageKeyList(shared.keys) ? shared : null;
}

function withKeys(payload: Record<string, unknown>, holder: Record<string, unknown>, keys: readonly MessageKey[]): unknown {
  if (holder === payload) return { ...payload, keys };
  return { ...payload, message: { ...holder, keys } };
}

/**
 * The payload to store: its keys without their private parts, for each key
 * `resolve` finds now. A key it cannot find (the key of an account being
 * removed, which signs its own Delete after its keys are gone) stays in the
 * message, as Fedify made it. Payloads without keys are returned as they are.
 */
export async function sealPrivateKeys(payload: unknown, resolve: PrivateKeyResolver): Promise<unknown> {
  const holder = keyHolderOf(payload);
  if (holder === null || !isRecord(payload)) return payload;
  const keys = holder.keys as readonly MessageKey[];
  if (keys.every((key) => key.privateKey === undefined)) return payload;
  const sealed: MessageKey[] = [];
  for (const key of keys) {
    const findable = key.privateKey === undefined || (await resolve(key.keyId)) !== null;
    sealed.push(findable ? { keyId: key.keyId } : key);
  }
  return withKeys(payload, holder, sealed);
}

/**
 * The payload as Fedify made it: each key without its private part gets it
 * from `resolve`. A key that no longer exists is left out; a message left
 * with no key cannot be signed, and null says so.
 */
export async function unsealPrivateKeys(payload: unknown, resolve: PrivateKeyResolver): Promise<unknown | null> {
  const holder = keyHolderOf(payload);
  if (holder === null || !isRecord(payload)) return payload;
  const keys = holder.keys as readonly MessageKey[];
  // Messages queued before keys were sealed still carry them.
  if (keys.every((key) => key.privateKey !== undefined)) return payload;
  const resolved: MessageKey[] = [];
  for (const key of keys) {
    const privateKey = key.privateKey ?? (await resolve(key.keyId));
    if (privateKey) resolved.push({ keyId: key.keyId, privateKey });
  }
  if (resolved.length === 0) return null;
  return withKeys(payload, holder, resolved);
}
