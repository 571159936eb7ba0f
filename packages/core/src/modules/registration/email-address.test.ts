import { describe, expect, it } from "vitest";
import { checkEmailAddress, domainAndParents, normalizeDomain } from "./email-address.js";

describe("checkEmailAddress", () => {
  it("normalises a plain address", () => {
    expect(checkEmailAddress("  Alice.B+tag@Mail.Example.ORG ")).toEqual({
      ok: true,
      address: "alice.b+tag@mail.example.org",
      local: "alice.b+tag",
      domain: "mail.example.org",
    });
  });

  it.each([
    ['"quoted"@example.com', "invalid"],
    ["a(c)@example.com", "invalid"],
    ["a@[127.0.0.1]", "invalid"],
    ["a@192.168.0.1", "invalid"],
    ["a..b@example.com", "invalid"],
    ["a@example.com.", "invalid"],
    ["ü@example.com", "invalid"],
    ["a@b@c.example", "invalid"],
    ["", "blank"],
    [`${"a".repeat(65)}@example.com`, "invalid"],
    [`a@${"b".repeat(250)}.com`, "too_long"],
  ])("refuses %s (%s)", (raw, problem) => {
    expect(checkEmailAddress(raw)).toEqual({ ok: false, problem });
  });

  it("stores internationalised domains as punycode", () => {
    expect(checkEmailAddress("a@bücher.example")).toMatchObject({ ok: true, domain: "xn--bcher-kva.example" });
  });
});

describe("normalizeDomain and domainAndParents", () => {
  it("refuses what is not a deliverable domain name", () => {
    for (const bad of ["", "localhost", "-a.example", "a-.example", "a_b.example", "1.2.3.4", "[::1]", "a.example."]) {
      expect(normalizeDomain(bad), bad).toBeNull();
    }
    expect(normalizeDomain("Example.COM")).toBe("example.com");
  });

  it("lists a domain and its parents by whole labels", () => {
    expect(domainAndParents("a.b.example")).toEqual(["a.b.example", "b.example", "example"]);
  });
});
