import { describe, expect, it } from "vitest";
import { compileTrustedProxies, isValidHost, parseForwardedAddress, resolveForwarded } from "./trusted-proxies.js";

describe("compileTrustedProxies", () => {
  it("expands loopback to 127.0.0.0/8 and ::1", () => {
    const trusted = compileTrustedProxies(["loopback"]);
    expect(trusted.trusts("127.0.0.1")).toBe(true);
    expect(trusted.trusts("127.9.8.7")).toBe(true);
    expect(trusted.trusts("::1")).toBe(true);
    expect(trusted.trusts("::ffff:127.0.0.1")).toBe(true);
    expect(trusted.trusts("10.0.0.1")).toBe(false);
    expect(trusted.trusts("::2")).toBe(false);
    expect(trusted.trusts("not an address")).toBe(false);
  });

  it("trusts nobody when empty, and refuses unreadable entries", () => {
    const none = compileTrustedProxies([]);
    expect(none.isEmpty).toBe(true);
    expect(none.trusts("127.0.0.1")).toBe(false);
    expect(() => compileTrustedProxies(["10.0.0.0/8", "10.0.0.0/40"])).toThrow(/10\.0\.0\.0\/40/);
    expect(() => compileTrustedProxies(["proxy.internal"])).toThrow(TypeError);
  });
});

describe("parseForwardedAddress", () => {
  it("accepts the forms proxies write", () => {
    expect(parseForwardedAddress(" 203.0.113.7 ")?.bytes).toEqual(new Uint8Array([203, 0, 113, 7]));
    expect(parseForwardedAddress("203.0.113.7:51234")?.bytes).toEqual(new Uint8Array([203, 0, 113, 7]));
    expect(parseForwardedAddress("[2001:db8::7]:443")?.family).toBe(6);
    expect(parseForwardedAddress('"[2001:db8::7]"')?.family).toBe(6);
    expect(parseForwardedAddress("2001:db8::7")?.family).toBe(6);
    expect(parseForwardedAddress("unknown")).toBeNull();
  });
});

describe("resolveForwarded", () => {
  const proxies = compileTrustedProxies(["10.0.0.0/8", "fd00::/8"]);
  const forwarded = {
    "x-forwarded-for": "198.51.100.1, 203.0.113.7, 10.0.0.2",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "social.example",
  };

  it("ignores X-Forwarded-* from an untrusted peer and reports the socket address", () => {
    expect(resolveForwarded("198.51.100.9", forwarded, proxies)).toEqual({ clientIp: "198.51.100.9", protocol: null, host: null });
    expect(resolveForwarded("::ffff:198.51.100.9", forwarded, proxies).clientIp).toBe("198.51.100.9");
    expect(resolveForwarded(undefined, forwarded, proxies).clientIp).toBeNull();
  });

  it("takes the right-most X-Forwarded-For entry that is not a trusted proxy", () => {
    expect(resolveForwarded("10.0.0.1", forwarded, proxies)).toEqual({
      clientIp: "203.0.113.7",
      protocol: "https",
      host: "social.example",
    });
    // Through an IPv6 proxy, reported as a mapped address by a dual-stack socket.
    expect(resolveForwarded("fd00::1", { "x-forwarded-for": "2001:DB8::7, fd00::2" }, proxies).clientIp).toBe("2001:db8::7");
    expect(resolveForwarded("::ffff:10.0.0.1", { "x-forwarded-for": "203.0.113.7" }, proxies).clientIp).toBe("203.0.113.7");
  });

  it("falls back sensibly when the chain says little", () => {
    expect(resolveForwarded("10.0.0.1", {}, proxies)).toEqual({ clientIp: "10.0.0.1", protocol: null, host: null });
    // Only proxies in the chain: the farthest one is the best guess.
    expect(resolveForwarded("10.0.0.1", { "x-forwarded-for": "10.0.0.3, 10.0.0.2" }, proxies).clientIp).toBe("10.0.0.3");
    // A trusted proxy that reports no address leaves the client unknown rather than guessed.
    expect(resolveForwarded("10.0.0.1", { "x-forwarded-for": "198.51.100.1, unknown" }, proxies).clientIp).toBeNull();
  });

  it("reads the left-most protocol and host, and only well-formed ones", () => {
    const appended = { "x-forwarded-proto": "HTTPS, http", "x-forwarded-host": "social.example:8443, internal:3000" };
    expect(resolveForwarded("10.0.0.1", appended, proxies)).toMatchObject({ protocol: "https", host: "social.example:8443" });
    const bogus = { "x-forwarded-proto": "gopher", "x-forwarded-host": "evil.example/path" };
    expect(resolveForwarded("10.0.0.1", bogus, proxies)).toMatchObject({ protocol: null, host: null });
  });
});

describe("isValidHost", () => {
  it("accepts plain authorities only", () => {
    for (const good of ["social.example", "social.example:8443", "localhost", "127.0.0.1:80", "[::1]:3000", "my_service", "a"]) {
      expect(isValidHost(good), good).toBe(true);
    }
    for (const bad of ["", "user@host", "host/path", "host?x", "host:port", "a b", "[::1", "host:123456", ".example"]) {
      expect(isValidHost(bad), bad).toBe(false);
    }
  });
});
