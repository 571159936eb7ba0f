import { describe, expect, it } from "vitest";
import { formatIp, ipInRange, normalizeIp, parseIp, parseIpRange } from "./ip-address.js";

function inRange(address: string, range: string): boolean {
  const ip = parseIp(address);
  const parsed = parseIpRange(range);
  if (!ip || !parsed) throw new Error(`test input not parsed: ${address} / ${range}`);
  return ipInRange(ip, parsed);
}

describe("parseIp", () => {
  it("reads dotted IPv4 and refuses what is not one", () => {
    expect(parseIp("192.0.2.1")).toEqual({ family: 4, bytes: new Uint8Array([192, 0, 2, 1]) });
    expect(parseIp(" 0.0.0.0 ")?.bytes).toEqual(new Uint8Array([0, 0, 0, 0]));
    for (const bad of ["256.0.0.1", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.-4", "", "localhost", "1.2.3.4/8", "1.2.3.4:80"]) {
      expect(parseIp(bad), bad).toBeNull();
    }
  });

  it("reads IPv6 in full, compressed, bracketed, with a zone or a trailing dotted quad", () => {
    expect(normalizeIp("2001:0db8:0000:0000:0000:0000:0000:0001")).toBe("2001:db8::1");
    expect(normalizeIp("::")).toBe("::");
    expect(normalizeIp("::1")).toBe("::1");
    expect(normalizeIp("[2001:db8::1]")).toBe("2001:db8::1");
    expect(normalizeIp("fe80::1%eth0")).toBe("fe80::1");
    expect(normalizeIp("64:ff9b::192.0.2.33")).toBe("64:ff9b::c000:221");
    expect(normalizeIp("::192.0.2.33")).toBe("::c000:221");
    expect(normalizeIp("1:2:3:4:5:6:192.0.2.33")).toBe("1:2:3:4:5:6:c000:221");
    expect(normalizeIp("2001:DB8::A")).toBe("2001:db8::a");
  });

  it("refuses malformed IPv6", () => {
    for (const bad of [
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "12345::",
      "g::1",
      ":1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8::",
      "::1.2.3",
      "fe80::1%",
      ":::1",
    ]) {
      expect(parseIp(bad), bad).toBeNull();
    }
  });

  it("turns IPv4-mapped IPv6 into the IPv4 address it carries", () => {
    expect(parseIp("::ffff:127.0.0.1")).toEqual({ family: 4, bytes: new Uint8Array([127, 0, 0, 1]) });
    expect(normalizeIp("::ffff:c000:0201")).toBe("192.0.2.1");
    expect(normalizeIp("[::FFFF:10.0.0.1]")).toBe("10.0.0.1");
    // Only ::ffff:0:0/96 is the mapped range; the IPv4-compatible form stays IPv6.
    expect(parseIp("::10.0.0.1")?.family).toBe(6);
  });
});

describe("formatIp", () => {
  it("writes IPv6 the RFC 5952 way", () => {
    const cases: Array<[string, string]> = [
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
      ["0:0:0:0:0:0:0:0", "::"],
      ["1:0:0:0:0:0:0:0", "1::"],
      ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ];
    for (const [input, expected] of cases) {
      const ip = parseIp(input);
      expect(ip && formatIp(ip), input).toBe(expected);
    }
  });
});

describe("CIDR ranges", () => {
  it("match IPv4 at every prefix length", () => {
    expect(inRange("10.255.255.255", "10.0.0.0/8")).toBe(true);
    expect(inRange("11.0.0.0", "10.0.0.0/8")).toBe(false);
    expect(inRange("172.31.0.1", "172.16.0.0/12")).toBe(true);
    expect(inRange("172.32.0.1", "172.16.0.0/12")).toBe(false);
    expect(inRange("192.0.2.1", "192.0.2.1")).toBe(true);
    expect(inRange("192.0.2.2", "192.0.2.1/32")).toBe(false);
    expect(inRange("8.8.8.8", "0.0.0.0/0")).toBe(true);
    // Host bits in the range are ignored.
    expect(inRange("10.9.9.9", "10.1.2.3/8")).toBe(true);
  });

  it("match IPv6, including prefixes that end inside a byte", () => {
    expect(inRange("2001:db8:ffff::1", "2001:db8::/32")).toBe(true);
    expect(inRange("2001:db9::1", "2001:db8::/32")).toBe(false);
    expect(inRange("2001:dbf:ffff::", "2001:db8::/29")).toBe(true);
    expect(inRange("2001:dc0::", "2001:db8::/29")).toBe(false);
    expect(inRange("fd12:3456::1", "fc00::/7")).toBe(true);
    expect(inRange("fe80::1", "fc00::/7")).toBe(false);
    expect(inRange("::1", "::1/128")).toBe(true);
    expect(inRange("::2", "::1")).toBe(false);
    expect(inRange("[2001:db8::5]", "[2001:db8::]/64")).toBe(true);
  });

  it("keep families apart, except that mapped addresses and ranges count as IPv4", () => {
    expect(inRange("10.0.0.1", "::/0")).toBe(false);
    expect(inRange("::1", "0.0.0.0/0")).toBe(false);
    expect(inRange("::ffff:127.0.0.1", "127.0.0.0/8")).toBe(true);
    expect(inRange("10.1.2.3", "::ffff:10.0.0.0/104")).toBe(true);
    expect(inRange("11.1.2.3", "::ffff:10.0.0.0/104")).toBe(false);
    expect(parseIpRange("::ffff:0:0/96")).toEqual({ family: 4, bytes: new Uint8Array(4), prefix: 0 });
  });

  it("refuse unreadable ranges", () => {
    for (const bad of ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/a", "10.0.0.0/-1", "example.com", "10.0.0.0/8/8", ""]) {
      expect(parseIpRange(bad), bad).toBeNull();
    }
  });
});
