import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { withoutUnusableKeys } from "./key-material.js";

describe("key material of fetched documents", () => {
  const good = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString();
  const garbled = `-----BEGIN PUBLIC KEY-----\n${"A".repeat(64)}\n-----END PUBLIC KEY-----\n`;

  it("leaves a document whose keys import as it is, the same object", () => {
    const actor = { id: "https://remote.example/users/a", publicKey: { id: "https://remote.example/users/a#k", publicKeyPem: good } };
    expect(withoutUnusableKeys(actor)).toBe(actor);
  });

  it("takes out the PEM of a key document that is no key", () => {
    expect(withoutUnusableKeys({ id: "https://remote.example/k", owner: "https://remote.example/a", publicKeyPem: garbled })).toEqual({
      id: "https://remote.example/k",
      owner: "https://remote.example/a",
    });
  });

  it("keeps an actor's keys that import and references, and drops those that do not", () => {
    const usable = { id: "https://remote.example/a#good", publicKeyPem: good };
    const actor = {
      id: "https://remote.example/a",
      publicKey: [usable, { id: "https://remote.example/a#bad", publicKeyPem: garbled }, "https://remote.example/a#elsewhere"],
    };
    expect(withoutUnusableKeys(actor)).toEqual({ id: "https://remote.example/a", publicKey: [usable, "https://remote.example/a#elsewhere"] });
    expect(withoutUnusableKeys({ id: "https://remote.example/b", publicKey: { publicKeyPem: garbled } })).toEqual({
      id: "https://remote.example/b",
    });
  });
});
