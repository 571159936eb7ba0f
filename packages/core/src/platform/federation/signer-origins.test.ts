import { describe, expect, it } from "vitest";
import { preloadedContextLoader } from "../../testing/offline-documents.js";
import { httpSignerIds, signedPartiesOf, signerVerdict } from "./signer-origins.js";

const loader = preloadedContextLoader;
const loaders = { documentLoader: loader, contextLoader: loader };

const AS = "https://www.w3.org/ns/activitystreams";
const BOB = "https://victim.example/users/bob";
const urls = (...values: string[]) => values.map((value) => new URL(value));

function follow(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { "@context": AS, id: `${BOB}/follows/1`, type: "Follow", actor: BOB, object: "https://kith.test/users/alice", ...extra };
}

describe("signer origins", () => {
  it("takes keys of the actor's origin, and another origin's HTTP signature only beside the actor origin's own signature", () => {
    const actors = urls(BOB);
    const home = urls("https://victim.example/users/bob#main-key");
    const other = urls("https://relay.example/actor#main-key");
    expect(signerVerdict({ actors, embeddedSigners: [] }, home)).toBe("same-origin");
    expect(signerVerdict({ actors, embeddedSigners: [] }, [])).toBe("same-origin");
    expect(signerVerdict({ actors, embeddedSigners: [] }, other)).toBe("refused");
    expect(signerVerdict({ actors, embeddedSigners: home }, other)).toBe("embedded-only");
    expect(signerVerdict({ actors, embeddedSigners: other }, home)).toBe("refused");
    // Another scheme or port is another origin.
    expect(signerVerdict({ actors, embeddedSigners: [] }, urls("http://victim.example/users/bob#main-key"))).toBe("refused");
    expect(signerVerdict({ actors, embeddedSigners: [] }, urls("https://victim.example:8443/key"))).toBe("refused");
    // No actor, or actors of two origins: no one key can vouch for it.
    expect(signerVerdict({ actors: [], embeddedSigners: [] }, home)).toBe("refused");
    expect(signerVerdict({ actors: urls(BOB, "https://other.example/users/carol"), embeddedSigners: [] }, home)).toBe("refused");
  });

  it("reads the key ids of both signature forms, each way a reader may take an escaped quote", () => {
    const draft = new Headers({
      signature: 'keyId="https://a.example/users/x#main-key",algorithm="rsa-sha256",headers="date",signature="AA=="',
    });
    expect(httpSignerIds(draft).map((url) => url.href)).toEqual(["https://a.example/users/x#main-key"]);
    const rfc9421 = new Headers({
      signature: "sig1=:AA==:",
      "signature-input": 'sig1=("@method");keyid="https://ok.example\\"@blocked.example/k";created=1',
    });
    expect(new Set(httpSignerIds(rfc9421).map((url) => url.host))).toEqual(new Set(["ok.example", "blocked.example"]));
    expect(httpSignerIds(new Headers())).toEqual([]);
  });

  it("reads the actors as Fedify does, through the context's aliases", async () => {
    expect((await signedPartiesOf(follow(), loaders))?.actors.map((url) => url.href)).toEqual([BOB]);
    // "actor" named otherwise: a reader of names would see another actor, or none.
    const aliased = {
      ...follow(),
      "@context": [AS, { by: { "@id": "as:actor", "@type": "@id" }, actor: "https://example.invalid/ns#decoy" }],
      actor: "https://mallory.example/users/m",
      by: BOB,
    };
    const parties = await signedPartiesOf(aliased, loaders);
    expect(parties?.actors.map((url) => url.href)).toEqual([BOB]);
    expect(await signedPartiesOf(null, loaders)).toBeNull();
    expect(await signedPartiesOf("a text", loaders)).toBeNull();
    // An object without an actor reads as an activity of nobody, which no key vouches for.
    expect((await signedPartiesOf({ "@context": AS, type: "Follow" }, loaders))?.actors).toEqual([]);
  });

  it("names the keys of a Linked Data signature and of integrity proofs", async () => {
    const signed = follow({
      signature: {
        type: "RsaSignature2017",
        creator: "https://mallory.example/key",
        created: "2026-01-01T00:00:00Z",
        signatureValue: "AA==",
      },
    });
    expect((await signedPartiesOf(signed, loaders))?.embeddedSigners.map((url) => url.href)).toEqual(["https://mallory.example/key"]);
    const proved = follow({
      "@context": [AS, "https://w3id.org/security/data-integrity/v1"],
      proof: {
        type: "DataIntegrityProof",
        cryptosuite: "eddsa-jcs-2022",
        verificationMethod: "https://mallory.example/users/m#ed25519-key",
        proofPurpose: "assertionMethod",
        proofValue: "z3abc",
        created: "2026-01-01T00:00:00Z",
      },
    });
    expect((await signedPartiesOf(proved, loaders))?.embeddedSigners.map((url) => url.href)).toEqual([
      "https://mallory.example/users/m#ed25519-key",
    ]);
  });
});
