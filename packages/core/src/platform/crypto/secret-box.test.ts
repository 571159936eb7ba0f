import { describe, expect, it } from "vitest";
import { SecretBox, UnreadableSecretError } from "./secret-box.js";

const oldKey = "an-old-secret-key-of-at-least-32-characters";
const newKey = "a-new-secret-key-of-at-least-32-characters!";

describe("SecretBox", () => {
  it("opens what it sealed, and the sealed text holds neither the plaintext nor the key", () => {
    const box = new SecretBox([newKey]);
    const sealed = box.seal("token-123", "push.access_token");
    expect(sealed).toMatch(/^sb1\./);
    expect(sealed).not.toContain("token-123");
    expect(sealed).not.toContain(newKey);
    expect(box.open(sealed, "push.access_token")).toBe("token-123");
  });

  it("seals the same plaintext differently each time", () => {
    const box = new SecretBox([newKey]);
    expect(box.seal("same", "p")).not.toBe(box.seal("same", "p"));
  });

  it("refuses a value sealed for another purpose, an altered value and a value under an unknown key", () => {
    const box = new SecretBox([newKey]);
    const sealed = box.seal("token", "push.access_token");
    expect(() => box.open(sealed, "ai.api_key")).toThrow(UnreadableSecretError);
    const parts = sealed.split(".");
    const flipped = [...parts.slice(0, 3), `${parts[3]?.startsWith("A") ? "B" : "A"}${parts[3]?.slice(1)}`, parts[4]].join(".");
    expect(() => box.open(flipped, "push.access_token")).toThrow(UnreadableSecretError);
    expect(() => new SecretBox([oldKey]).open(sealed, "push.access_token")).toThrow(UnreadableSecretError);
    expect(() => box.open("not sealed", "push.access_token")).toThrow(UnreadableSecretError);
  });

  it("rotates: a new first key seals, the old one still opens, and old values are told to be sealed again", () => {
    const before = new SecretBox([oldKey]).seal("token", "p");
    const rotated = new SecretBox([newKey, oldKey]);
    expect(rotated.open(before, "p")).toBe("token");
    expect(rotated.needsResealing(before)).toBe(true);
    const after = rotated.seal("token", "p");
    expect(rotated.needsResealing(after)).toBe(false);
    expect(new SecretBox([newKey]).open(after, "p")).toBe("token");
  });

  it("refuses short keys and an empty key list", () => {
    expect(() => new SecretBox([])).toThrow();
    expect(() => new SecretBox(["short"])).toThrow();
    expect(SecretBox.newKey().length).toBeGreaterThanOrEqual(32);
  });

  it("tells sealed values from values stored before sealing", () => {
    expect(SecretBox.isSealed(new SecretBox([newKey]).seal("x", "p"))).toBe(true);
    expect(SecretBox.isSealed("plain-token")).toBe(false);
  });
});
