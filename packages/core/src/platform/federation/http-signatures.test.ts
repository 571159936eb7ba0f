import { verifyRequest } from "@fedify/fedify";
import { CryptographicKey } from "@fedify/fedify/vocab";
import { beforeAll, describe, expect, it } from "vitest";
import { type SignatureKey, type SignatureSpec, rsaSignatureKey, signedBody, signedPostHeaders } from "./http-signatures.js";

/** Signatures made here are checked by Fedify's verifier, as a receiving server checks them. */
describe("HTTP signatures of deliveries", () => {
  const KEY_ID = "https://kith.example/users/alice#main-key";
  let key: SignatureKey;
  let publicKey: CryptoKey;

  beforeAll(async () => {
    const pair = (await crypto.subtle.generateKey(
      { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
      true,
      ["sign", "verify"],
    )) as CryptoKeyPair;
    publicKey = pair.publicKey;
    key = rsaSignatureKey(KEY_ID, await crypto.subtle.exportKey("jwk", pair.privateKey)) ?? expect.unreachable("an RSA key");
  });

  async function verifies(url: URL, headers: Record<string, string>, body: string): Promise<boolean> {
    const request = new Request(url, { method: "POST", headers, body });
    const signer = new CryptographicKey({ id: new URL(KEY_ID), owner: new URL("https://kith.example/users/alice"), publicKey });
    const keyCache = { get: async () => signer, set: async () => {} };
    const verified = await verifyRequest(request, { keyCache, documentLoader: async () => expect.unreachable("the key is cached") });
    return verified !== null;
  }

  const body = JSON.stringify({ type: "Create", content: "héllo" });
  const given = { "content-type": "application/activity+json", "Collection-Synchronization": 'collectionId="x", url="y", digest="z"' };

  for (const spec of ["rfc9421", "draft-cavage-http-signatures-12"] as SignatureSpec[]) {
    it(`signs a POST in ${spec} so that a server verifies it, and not once it is changed`, async () => {
      const url = new URL("https://remote.example:8443/users/bob/inbox");
      const signed = signedBody(new TextEncoder().encode(body));
      const headers = await signedPostHeaders(url, given, signed, key, spec, new Date());
      expect(headers).toMatchObject({ host: "remote.example:8443", "collection-synchronization": given["Collection-Synchronization"] });
      expect(await verifies(url, headers, body)).toBe(true);
      expect(await verifies(url, headers, body.replace("héllo", "hello"))).toBe(false);
      expect(await verifies(new URL("https://remote.example:8443/inbox"), headers, body)).toBe(false);
      // A signature made long ago is refused as a replay would be.
      const old = await signedPostHeaders(url, given, signed, key, spec, new Date(Date.now() - 3 * 3_600_000));
      expect(await verifies(url, old, body)).toBe(false);
    });
  }

  it("takes RSA keys only", async () => {
    const ed25519 = (await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"])) as CryptoKeyPair;
    expect(rsaSignatureKey(KEY_ID, await crypto.subtle.exportKey("jwk", ed25519.privateKey))).toBeNull();
  });
});
