import { describe, expect, it } from "vitest";
import { GRANULAR_SCOPES, isKnownScope, parseScopes, scopesAllow } from "./scopes.js";

const readChildren = GRANULAR_SCOPES.filter((scope) => scope.startsWith("read:"));
const writeChildren = GRANULAR_SCOPES.filter((scope) => scope.startsWith("write:"));
const adminReadChildren = GRANULAR_SCOPES.filter((scope) => scope.startsWith("admin:read:"));
const adminWriteChildren = GRANULAR_SCOPES.filter((scope) => scope.startsWith("admin:write:"));
const FOLLOW_CHILDREN = ["read:blocks", "write:blocks", "read:follows", "write:follows", "read:mutes", "write:mutes"];

describe("scope coverage", () => {
  it("a granted scope covers itself", () => {
    for (const scope of ["read", "write:statuses", "admin:read:reports", "push", "profile"]) {
      expect(scopesAllow([scope], [scope])).toBe(true);
    }
  });

  it.each(readChildren)("read covers %s", (scope) => {
    expect(scopesAllow(["read"], [scope])).toBe(true);
  });

  it.each(writeChildren)("write covers %s", (scope) => {
    expect(scopesAllow(["write"], [scope])).toBe(true);
  });

  it.each(adminReadChildren)("admin:read covers %s", (scope) => {
    expect(scopesAllow(["admin:read"], [scope])).toBe(true);
  });

  it.each(adminWriteChildren)("admin:write covers %s", (scope) => {
    expect(scopesAllow(["admin:write"], [scope])).toBe(true);
  });

  it.each(FOLLOW_CHILDREN)("follow covers %s", (scope) => {
    expect(scopesAllow(["follow"], [scope])).toBe(true);
  });

  it("follow covers nothing beyond follows, blocks and mutes", () => {
    const others = GRANULAR_SCOPES.filter((scope) => !FOLLOW_CHILDREN.includes(scope));
    for (const scope of [...others, "read", "write", "admin:read", "push"]) expect(scopesAllow(["follow"], [scope])).toBe(false);
  });

  it("read does not cover write, admin or push scopes", () => {
    for (const scope of [...writeChildren, ...adminReadChildren, "write", "admin:read", "push", "follow"]) {
      expect(scopesAllow(["read"], [scope])).toBe(false);
    }
  });

  it("write does not cover read or admin scopes", () => {
    for (const scope of [...readChildren, ...adminWriteChildren, "read", "admin:write"])
      expect(scopesAllow(["write"], [scope])).toBe(false);
  });

  it("admin:read does not cover admin:write or plain read scopes", () => {
    for (const scope of [...adminWriteChildren, ...readChildren, "admin:write", "read"]) {
      expect(scopesAllow(["admin:read"], [scope])).toBe(false);
    }
  });

  it("a granular scope does not cover its parent or its siblings", () => {
    expect(scopesAllow(["read:accounts"], ["read"])).toBe(false);
    expect(scopesAllow(["read:accounts"], ["read:statuses"])).toBe(false);
    expect(scopesAllow(["admin:read:accounts"], ["admin:read"])).toBe(false);
  });

  it("a scope name that is not a real scope covers nothing but itself", () => {
    expect(scopesAllow(["admin"], ["admin:read"])).toBe(false);
    expect(scopesAllow(["admin"], ["admin:write:accounts"])).toBe(false);
    expect(scopesAllow(["read:accounts"], ["read:accounts:extra"])).toBe(false);
  });

  it("profile is allowed by read and read:accounts", () => {
    expect(scopesAllow(["read"], ["profile"])).toBe(true);
    expect(scopesAllow(["read:accounts"], ["profile"])).toBe(true);
    expect(scopesAllow(["write"], ["profile"])).toBe(false);
  });

  it("profile does not cover read:accounts", () => {
    expect(scopesAllow(["profile"], ["read:accounts"])).toBe(false);
  });

  it("one of several required scopes is enough", () => {
    expect(scopesAllow(["profile"], ["read:accounts", "profile"])).toBe(true);
  });

  it("a route with no required scopes lets any token in", () => {
    expect(scopesAllow([], [])).toBe(true);
  });

  it("no granted scopes allow no required scope", () => {
    expect(scopesAllow([], ["read"])).toBe(false);
  });
});

describe("scope strings", () => {
  it("split on spaces and plus signs, dropping empties and duplicates", () => {
    expect(parseScopes("read  write+follow read")).toEqual(["read", "write", "follow"]);
    expect(parseScopes(null)).toEqual([]);
    expect(parseScopes("")).toEqual([]);
  });

  it("are known only when Mastodon defines them", () => {
    expect(isKnownScope("admin:read:reports")).toBe(true);
    expect(isKnownScope("admin")).toBe(false);
    expect(isKnownScope("read:everything")).toBe(false);
  });
});
