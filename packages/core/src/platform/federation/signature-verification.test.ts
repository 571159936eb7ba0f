import { KeyObject, createHash, sign } from "node:crypto";
import { signRequest } from "@fedify/fedify";
import { describe, expect, it } from "vitest";
import { type SignedRequest, readSignature, verifySignature } from "./signature-verification.js";

const KEY_ID = new URL("https://remote.example/users/bob#main-key");
const INBOX = "https://kith.test/inbox";
const WINDOW_MS = 12 * 60 * 60 * 1000;
const BODY = JSON.stringify({
  type: "Like",
  actor: "https://remote.example/users/bob",
  object: "https://kith.test/users/alice/statuses/1",
});

async function rsaPair(): Promise<CryptoKeyPair> {
  const algorithm = { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" };
  return crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
}

async function signed(spec: "draft-cavage-http-signatures-12" | "rfc9421", privateKey: CryptoKey): Promise<Request> {
  const request = new Request(INBOX, { method: "POST", headers: { "content-type": "application/activity+json" }, body: BODY });
  return signRequest(request, privateKey, KEY_ID, { spec });
}

async function partsOf(request: Request, headers: Headers = request.headers, body = BODY): Promise<SignedRequest> {
  return { method: request.method, url: new URL(request.url), headers, body: new TextEncoder().encode(body) };
}

const now = () => ({ now: Date.now(), maxAgeMs: WINDOW_MS });

describe("signature verification", () => {
  for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
    it(`reads and verifies a ${spec} signature made by Fedify, and not with another key`, async () => {
      const pair = await rsaPair();
      const read = readSignature(await partsOf(await signed(spec, pair.privateKey)), now());
      expect(read?.keyId).toBe(KEY_ID.href);
      expect(read && verifySignature(read, KeyObject.from(pair.publicKey))).toBe(true);
      const other = await rsaPair();
      expect(read && verifySignature(read, KeyObject.from(other.publicKey))).toBe(false);
    });

    it(`reads no ${spec} signature whose body does not match its digest, or whose date is out of the window`, async () => {
      const pair = await rsaPair();
      const request = await signed(spec, pair.privateKey);
      expect(readSignature(await partsOf(request, request.headers, `${BODY} `), now())).toBeNull();
      const later = { now: Date.now() + WINDOW_MS + 60_000, maxAgeMs: WINDOW_MS };
      const earlier = { now: Date.now() - WINDOW_MS - 60_000, maxAgeMs: WINDOW_MS };
      expect(readSignature(await partsOf(request), later)).toBeNull();
      expect(readSignature(await partsOf(request), earlier)).toBeNull();
    });
  }

  it("reads a Digest written without its padding, but not another spelling of the same bytes", async () => {
    const pair = await rsaPair();
    const request = await signed("draft-cavage-http-signatures-12", pair.privateKey);
    const canonical = createHash("sha256").update(BODY).digest("base64");
    const withDigest = (value: string): Headers => {
      const headers = new Headers(request.headers);
      headers.set("digest", `SHA-256=${value}`);
      return headers;
    };
    expect(readSignature(await partsOf(request, withDigest(canonical)), now())).not.toBeNull();
    expect(readSignature(await partsOf(request, withDigest(canonical.replace(/=+$/, ""))), now())).not.toBeNull();
    // More padding than base64 has is no base64.
    expect(readSignature(await partsOf(request, withDigest(`${canonical}==`)), now())).toBeNull();
    // The last character before the padding carries two bits that decoding drops: flipping one spells the same bytes.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const last = canonical.length - 2;
    const respelled = `${canonical.slice(0, last)}${alphabet[alphabet.indexOf(canonical[last] ?? "A") ^ 1]}=`;
    expect(Buffer.from(respelled, "base64").equals(Buffer.from(canonical, "base64"))).toBe(true);
    expect(readSignature(await partsOf(request, withDigest(respelled)), now())).toBeNull();
  });

  it("reads no draft-cavage signature without a digest, not covering the host, or of another algorithm", async () => {
    const pair = await rsaPair();
    const request = await signed("draft-cavage-http-signatures-12", pair.privateKey);
    const variants: ((headers: Headers) => void)[] = [
      (headers) => headers.delete("digest"),
      (headers) => headers.set("digest", "SHA-256=not*base64"),
      (headers) => headers.set("digest", "MD5=abc"),
      (headers) => headers.set("signature", (headers.get("signature") ?? "").replace(/ host"/, '"')),
      (headers) => headers.set("signature", (headers.get("signature") ?? "").replace("rsa-sha256", "rsa-sha512")),
      (headers) => headers.set("signature", (headers.get("signature") ?? "").replace(/signature="[^"]*"/, 'signature="***"')),
      (headers) => headers.delete("date"),
      // Names that are no header names: read as a header, they would throw.
      (headers) => headers.set("signature", (headers.get("signature") ?? "").replace('headers="', 'headers="(foo) ')),
      (headers) => headers.set("signature", (headers.get("signature") ?? "").replace('headers="', 'headers=" ')),
      (headers) => headers.set("signature", (headers.get("signature") ?? "").replace(/ host"/, ' host "')),
    ];
    for (const change of variants) {
      const headers = new Headers(request.headers);
      change(headers);
      expect(readSignature(await partsOf(request, headers), now())).toBeNull();
    }
  });

  it("reads no RFC 9421 signature among several, with other parameters, or of an algorithm it does not check", async () => {
    const pair = await rsaPair();
    const request = await signed("rfc9421", pair.privateKey);
    const input = request.headers.get("signature-input") ?? "";
    const variants: ((headers: Headers) => void)[] = [
      (headers) => headers.set("signature-input", `${input}, ${input.replace("sig1", "sig2")}`),
      (headers) => headers.set("signature-input", `${input};nonce="x"`),
      (headers) => headers.set("signature-input", input.replace("rsa-v1_5-sha256", "ecdsa-p256-sha256")),
      (headers) => headers.set("signature-input", input.replace('"@method" ', "")),
      (headers) => headers.set("signature-input", input.replace(' "content-digest"', "")),
      (headers) => headers.set("signature-input", input.replace("sig1", "other")),
      (headers) => headers.delete("content-digest"),
    ];
    for (const change of variants) {
      const headers = new Headers(request.headers);
      change(headers);
      expect(readSignature(await partsOf(request, headers), now())).toBeNull();
    }
  });

  it("verifies an RFC 9421 Ed25519 signature, and no Ed25519 signature with an RSA key", async () => {
    const pair = (await crypto.subtle.generateKey("Ed25519", true, ["sign", "verify"])) as CryptoKeyPair;
    const created = Math.floor(Date.now() / 1000);
    const digest = `sha-256=:${createHash("sha256").update(BODY).digest("base64")}:`;
    const components = '"@method" "@target-uri" "host" "content-digest"';
    const parameters = `;alg="ed25519";keyid="${KEY_ID.href}";created=${created}`;
    const base = [
      '"@method": POST',
      `"@target-uri": ${INBOX}`,
      '"host": kith.test',
      `"content-digest": ${digest}`,
      `"@signature-params": (${components})${parameters}`,
    ].join("\n");
    const signature = sign(null, Buffer.from(base), KeyObject.from(pair.privateKey)).toString("base64");
    const headers = new Headers({
      host: "kith.test",
      "content-digest": digest,
      "signature-input": `sig1=(${components})${parameters}`,
      signature: `sig1=:${signature}:`,
    });
    const read = readSignature(await partsOf(new Request(INBOX, { method: "POST", body: BODY }), headers), now());
    expect(read?.algorithm).toBe("ed25519");
    expect(read && verifySignature(read, KeyObject.from(pair.publicKey))).toBe(true);
    expect(read && verifySignature(read, KeyObject.from((await rsaPair()).publicKey))).toBe(false);
  });
});
