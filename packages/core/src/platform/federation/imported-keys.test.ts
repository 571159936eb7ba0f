import { describe, expect, it } from "vitest";
import { keepImportedKeys } from "./imported-keys.js";

/** A SubtleCrypto whose imports are counted, in front of the real one. */
function countingSubtle(): { subtle: SubtleCrypto; imports: () => number } {
  let imports = 0;
  const subtle = {
    importKey: (...args: Parameters<SubtleCrypto["importKey"]>) => {
      imports++;
      return (crypto.subtle.importKey as (...a: unknown[]) => Promise<CryptoKey>)(...args);
    },
  } as unknown as SubtleCrypto;
  return { subtle, imports: () => imports };
}

const RSA = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };

async function rsaJwks(): Promise<{ privateJwk: JsonWebKey; publicJwk: JsonWebKey }> {
  const pair = await crypto.subtle.generateKey({ ...RSA, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
    "sign",
    "verify",
  ]);
  return {
    privateJwk: await crypto.subtle.exportKey("jwk", pair.privateKey),
    publicJwk: await crypto.subtle.exportKey("jwk", pair.publicKey),
  };
}

describe("private keys imported from JWK", () => {
  it("are imported once per key and parameters, and the kept key signs", async () => {
    const { subtle, imports } = countingSubtle();
    keepImportedKeys(subtle);
    const { privateJwk, publicJwk } = await rsaJwks();
    const first = await subtle.importKey("jwk", { ...privateJwk }, RSA, true, ["sign"]);
    const again = await subtle.importKey("jwk", { ...privateJwk }, { name: "RSASSA-PKCS1-v1_5", hash: { name: "SHA-256" } }, true, [
      "sign",
    ]);
    expect(again).toBe(first);
    expect(imports()).toBe(1);

    const data = new TextEncoder().encode("a delivery");
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", again, data);
    const verifier = await crypto.subtle.importKey("jwk", publicJwk, RSA, true, ["verify"]);
    expect(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", verifier, signature, data)).toBe(true);
  });

  it("are imported again for other parameters or another key; public keys from JWK are never kept", async () => {
    const { subtle, imports } = countingSubtle();
    keepImportedKeys(subtle);
    const one = await rsaJwks();
    const other = await rsaJwks();
    const kept = await subtle.importKey("jwk", one.privateJwk, RSA, true, ["sign"]);
    expect(await subtle.importKey("jwk", one.privateJwk, RSA, false, ["sign"])).not.toBe(kept);
    expect(await subtle.importKey("jwk", other.privateJwk, RSA, true, ["sign"])).not.toBe(kept);
    const publicKey = await subtle.importKey("jwk", one.publicJwk, RSA, true, ["verify"]);
    expect(await subtle.importKey("jwk", one.publicJwk, RSA, true, ["verify"])).not.toBe(publicKey);
    expect(imports()).toBe(5);
  });

  it("keeps Ed25519 keys too, and installing twice wraps once", async () => {
    const { subtle, imports } = countingSubtle();
    keepImportedKeys(subtle);
    keepImportedKeys(subtle);
    const pair = (await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
    const first = await subtle.importKey("jwk", jwk, "Ed25519", true, ["sign"]);
    expect(await subtle.importKey("jwk", jwk, "Ed25519", true, ["sign"])).toBe(first);
    expect(imports()).toBe(1);
  });

  it("does not keep a failed import", async () => {
    const { subtle, imports } = countingSubtle();
    keepImportedKeys(subtle);
    const broken = { kty: "RSA", d: "not-a-key", n: "AQAB", e: "AQAB" };
    await expect(subtle.importKey("jwk", broken, RSA, true, ["sign"])).rejects.toThrow();
    await expect(subtle.importKey("jwk", broken, RSA, true, ["sign"])).rejects.toThrow();
    expect(imports()).toBe(2);
  });
});

describe("public keys imported from SPKI (a sender's key, verifying an incoming activity)", () => {
  async function spkiOf(): Promise<{ spki: ArrayBuffer; privateKey: CryptoKey }> {
    const pair = await crypto.subtle.generateKey({ ...RSA, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) }, true, [
      "sign",
      "verify",
    ]);
    return { spki: await crypto.subtle.exportKey("spki", pair.publicKey), privateKey: pair.privateKey };
  }

  it("are imported once per key and parameters, given as any view of the same bytes, and the kept key verifies", async () => {
    const { subtle, imports } = countingSubtle();
    keepImportedKeys(subtle);
    const { spki, privateKey } = await spkiOf();
    const first = await subtle.importKey("spki", spki, RSA, true, ["verify"]);
    // Fedify decodes the PEM anew each time: another buffer with the same bytes.
    const copy = new Uint8Array(spki.byteLength + 4);
    copy.set(new Uint8Array(spki), 4);
    const again = await subtle.importKey("spki", copy.subarray(4), RSA, true, ["verify"]);
    expect(again).toBe(first);
    expect(imports()).toBe(1);
    const data = new TextEncoder().encode("an incoming activity");
    const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", privateKey, data);
    expect(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", again, signature, data)).toBe(true);
  });

  it("are imported again for another key or other parameters", async () => {
    const { subtle, imports } = countingSubtle();
    keepImportedKeys(subtle);
    const one = await spkiOf();
    const other = await spkiOf();
    const kept = await subtle.importKey("spki", one.spki, RSA, true, ["verify"]);
    expect(await subtle.importKey("spki", other.spki, RSA, true, ["verify"])).not.toBe(kept);
    expect(await subtle.importKey("spki", one.spki, RSA, false, ["verify"])).not.toBe(kept);
    expect(await subtle.importKey("spki", one.spki, { name: "RSA-PSS", hash: "SHA-256" }, true, ["verify"])).not.toBe(kept);
    expect(imports()).toBe(4);
  });
});
