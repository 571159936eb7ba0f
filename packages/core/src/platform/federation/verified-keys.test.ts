import { generateKeyPairSync } from "node:crypto";
import type { KvKey } from "@fedify/fedify";
import { describe, expect, it } from "vitest";
import { VerifiedKeys } from "./verified-keys.js";

const KEY_ID = "https://remote.example/users/bob#main-key";
const OWNER = "https://remote.example/users/bob";
const SECURITY = "https://w3id.org/security#";
const SECURITY_CONTEXT = "https://w3id.org/security/v1";
const AS_CONTEXT = "https://www.w3.org/ns/activitystreams";

function rsaPem(): string {
  return generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "pem" }).toString();
}

/** A key-value store with one entry per encoded key, whose reads are counted. */
function store(entries: Record<string, unknown>): { kv: { get(key: KvKey): Promise<unknown> }; reads: () => number } {
  let reads = 0;
  return {
    kv: {
      get: async (key) => {
        reads++;
        return entries[JSON.stringify(key)];
      },
    },
    reads: () => reads,
  };
}

const entryKey = (keyId: string) => JSON.stringify(["_fedify", "publicKey", keyId]);

/** A key as Fedify's key cache writes it (expanded JSON-LD). */
function expanded(pem: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "@id": KEY_ID,
    [`${SECURITY}owner`]: [{ "@id": OWNER }],
    [`${SECURITY}publicKeyPem`]: [{ "@value": pem }],
    ...extra,
  };
}

describe("verified keys", () => {
  it("reads the key Fedify cached, with or without its type, once, and keeps it", async () => {
    for (const entry of [expanded(rsaPem()), expanded(rsaPem(), { "@type": [`${SECURITY}Key`] })]) {
      const { kv, reads } = store({ [entryKey(KEY_ID)]: entry });
      const keys = new VerifiedKeys(kv);
      const key = await keys.get(KEY_ID);
      expect(key?.owner).toBe(OWNER);
      expect(key?.key.asymmetricKeyType).toBe("rsa");
      expect(await keys.get(KEY_ID)).toBe(key);
      expect(reads()).toBe(1);
    }
  });

  it("reads the compact form too, under the security context alone or with ActivityStreams'", async () => {
    for (const context of [SECURITY_CONTEXT, [AS_CONTEXT, SECURITY_CONTEXT]]) {
      const entry = { "@context": context, id: KEY_ID, type: "CryptographicKey", owner: OWNER, publicKeyPem: rsaPem() };
      const { kv } = store({ [entryKey(KEY_ID)]: entry });
      expect((await new VerifiedKeys(kv).get(KEY_ID))?.owner).toBe(OWNER);
    }
  });

  it("reads no compact key whose context may give its names another meaning, or gives them none", async () => {
    const eve = "https://remote.example/users/eve";
    // "owner" mapped elsewhere: Fedify sees no owner here, and would fetch the actor to find the key.
    const remapped = [AS_CONTEXT, SECURITY_CONTEXT, { owner: "https://remote.example/ns#claimedBy" }];
    for (const context of [undefined, AS_CONTEXT, remapped, [SECURITY_CONTEXT, "https://remote.example/context.jsonld"]]) {
      const entry = { "@context": context, id: KEY_ID, type: "CryptographicKey", owner: eve, publicKeyPem: rsaPem() };
      const { kv } = store({ [entryKey(KEY_ID)]: entry });
      expect(await new VerifiedKeys(kv).get(KEY_ID)).toBeNull();
    }
    // Keys written as IRIs under a context that may set a base or aliases: not what Fedify's cache writes.
    const { kv } = store({ [entryKey(KEY_ID)]: { "@context": remapped, ...expanded(rsaPem()) } });
    expect(await new VerifiedKeys(kv).get(KEY_ID)).toBeNull();
  });

  it("reads a kept key's entry again after a minute: the same key is kept, a replaced or removed one is not", async () => {
    const entries: Record<string, unknown> = { [entryKey(KEY_ID)]: expanded(rsaPem()) };
    const { kv, reads } = store(entries);
    let now = 1_000_000;
    const keys = new VerifiedKeys(kv, () => now);
    const first = await keys.get(KEY_ID);
    now += 59_000;
    expect(await keys.get(KEY_ID)).toBe(first);
    expect(reads()).toBe(1);
    now += 2_000;
    expect(await keys.get(KEY_ID)).toBe(first);
    expect(reads()).toBe(2);
    entries[entryKey(KEY_ID)] = expanded(rsaPem());
    now += 61_000;
    const replaced = await keys.get(KEY_ID);
    expect(replaced?.key.equals(first?.key ?? replaced.key)).toBe(false);
    delete entries[entryKey(KEY_ID)];
    now += 61_000;
    expect(await keys.get(KEY_ID)).toBeNull();
  });

  it("finds nothing for a key Fedify has not fetched, could not fetch, or keeps as something else", async () => {
    const pem = rsaPem();
    const cases: unknown[] = [
      undefined,
      null,
      expanded(pem, { "@type": [`${SECURITY}Multikey`] }),
      expanded(pem, { "@id": "https://remote.example/users/eve#main-key" }),
      { ...expanded(pem), [`${SECURITY}owner`]: [] },
      expanded("not a key"),
      { id: KEY_ID, publicKeyPem: pem },
    ];
    for (const entry of cases) {
      const { kv, reads } = store({ [entryKey(KEY_ID)]: entry });
      const keys = new VerifiedKeys(kv);
      expect(await keys.get(KEY_ID)).toBeNull();
      // Not kept: read again next time (Fedify may have fetched it meanwhile).
      await keys.get(KEY_ID);
      expect(reads()).toBe(2);
    }
  });

  it("reads a forgotten key again", async () => {
    const entries: Record<string, unknown> = { [entryKey(KEY_ID)]: expanded(rsaPem()) };
    const { kv, reads } = store(entries);
    const keys = new VerifiedKeys(kv);
    const first = await keys.get(KEY_ID);
    entries[entryKey(KEY_ID)] = expanded(rsaPem());
    keys.forget(KEY_ID);
    const second = await keys.get(KEY_ID);
    expect(reads()).toBe(2);
    expect(second?.key.equals(first?.key ?? second.key)).toBe(false);
  });
});
