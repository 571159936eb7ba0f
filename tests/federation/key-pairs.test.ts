import { type Storage, systemClock } from "@kith/core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { KeyPairStore } from "../../packages/core/src/modules/federation/key-pairs.js";
import { type EngineDatabase, describeOnEngines } from "../support/engines.js";

describeOnEngines("the key pairs of local actors", (engine) => {
  let database: EngineDatabase;
  let storage: Storage;

  beforeEach(async () => {
    database = await engine.database();
    storage = database.open();
  });
  afterEach(async () => {
    await storage.close();
    await database.drop();
  });

  it("makes an RSA and an Ed25519 pair once, and gives the same keys to every process", async () => {
    const first = await new KeyPairStore(storage, systemClock).keysOf("us_alice");
    const second = await new KeyPairStore(storage, systemClock).keysOf("us_alice");
    expect(first.map((pair) => pair.algorithm)).toEqual(["RSASSA-PKCS1-v1_5", "Ed25519"]);
    const publicJwk = async (keys: typeof first) => Promise.all(keys.map((pair) => crypto.subtle.exportKey("jwk", pair.publicKey)));
    expect(await publicJwk(second)).toEqual(await publicJwk(first));
  });

  it("keeps the keys of the actors used last, and reads the others again", async () => {
    const store = new KeyPairStore(storage, systemClock, 2);
    const alice = await store.keysOf("us_alice");
    const bob = await store.keysOf("us_bob");
    expect(await store.keysOf("us_alice")).toBe(alice);
    await store.keysOf("us_carol");
    // Bob was used longest ago: his keys are imported again, alice's are still kept.
    expect(await store.keysOf("us_alice")).toBe(alice);
    const bobAgain = await store.keysOf("us_bob");
    expect(bobAgain).not.toBe(bob);
    expect(await crypto.subtle.exportKey("jwk", bobAgain[0]?.publicKey as CryptoKey)).toEqual(
      await crypto.subtle.exportKey("jwk", bob[0]?.publicKey as CryptoKey),
    );
  });
});
