import { describe, expect, it } from "vitest";
import { canonicalEmail } from "./canonical-email.js";
import { formatRange, parseAddress, parseRange, rangeContains } from "./ip-ranges.js";

describe("canonical email", () => {
  it("is Mastodon's: lower-cased, dots of the local part dropped, +tag cut", () => {
    expect(canonicalEmail("J.Doe+spam@Example.COM")).toBe("jdoe@example.com");
    expect(canonicalEmail("a.b.c@x.org")).toBe("abc@x.org");
    expect(canonicalEmail("plain@mail.x.org")).toBe("plain@mail.x.org");
    expect(canonicalEmail("a+b+c@x.org")).toBe("a@x.org");
  });
});

describe("IP ranges", () => {
  const shown = (raw: string) => {
    const range = parseRange(raw);
    return range && formatRange(range);
  };

  it("parses addresses and CIDR ranges, clearing host bits", () => {
    expect(shown("192.0.2.77/24")).toBe("192.0.2.0/24");
    expect(shown("192.0.2.77")).toBe("192.0.2.77/32");
    expect(shown("0.0.0.0/0")).toBe("0.0.0.0/0");
    expect(shown("2001:DB8::1")).toBe("2001:db8::1/128");
    expect(shown("2001:db8:aa:bb::1/48")).toBe("2001:db8:aa::/48");
    expect(shown("::/0")).toBe("::/0");
    expect(shown("fe80:0:0:1::/64")).toBe("fe80:0:0:1::/64");
  });

  it("refuses what is not an address or range", () => {
    for (const bad of ["", "999.1.1.1", "192.0.2.0/33", "2001:db8::/129", "192.0.2.0/-1", "192.0.2.0/24/1", "example.org", "1.2.3"]) {
      expect(parseRange(bad), bad).toBeNull();
    }
  });

  it("matches addresses of the range only, IPv4-mapped IPv6 addresses as IPv4", () => {
    const range = parseRange("203.0.113.0/24");
    if (!range) throw new Error("unparsed");
    const within = (raw: string) => rangeContains(range, parseAddress(raw) ?? { family: 4, value: -1n });
    expect(within("203.0.113.200")).toBe(true);
    expect(within("::ffff:203.0.113.9")).toBe(true);
    expect(within("203.0.114.1")).toBe(false);
    const v6 = parseRange("2001:db8::/32");
    if (!v6) throw new Error("unparsed");
    expect(rangeContains(v6, parseAddress("2001:db8:ffff::1") ?? { family: 6, value: 0n })).toBe(true);
    expect(rangeContains(v6, parseAddress("2001:db9::1") ?? { family: 6, value: 0n })).toBe(false);
  });
});
