/**
 * IP addresses and CIDR ranges, IPv4 and IPv6, as bytes. Hand-written so the
 * adapter decides exactly what it accepts: no leading-zero octets (read as
 * octal by some parsers), no hostnames, IPv4-mapped IPv6 treated as the IPv4
 * address it carries (a dual-stack socket reports 127.0.0.1 as ::ffff:127.0.0.1).
 */

export interface IpAddress {
  readonly family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  readonly bytes: Uint8Array;
}

export interface IpRange {
  readonly family: 4 | 6;
  /** The network address; bits past `prefix` are zero. */
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

const IPV4_PART = /^(?:0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(text: string): Uint8Array | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] ?? "";
    if (!IPV4_PART.test(part)) return null;
    const value = Number(part);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}

function parseHexGroups(text: string): number[] | null {
  if (text === "") return [];
  const groups: number[] = [];
  for (const group of text.split(":")) {
    if (!HEX_GROUP.test(group)) return null;
    groups.push(Number.parseInt(group, 16));
  }
  return groups;
}

function parseIpv6(text: string): Uint8Array | null {
  // A zone ("fe80::1%eth0") names an interface, not part of the address.
  const zone = text.indexOf("%");
  let rest = zone === -1 ? text : text.slice(0, zone);
  if (zone !== -1 && zone === text.length - 1) return null;

  // A trailing dotted quad stands for the last two groups ("::ffff:192.0.2.1").
  let tail: number[] = [];
  const lastColon = rest.lastIndexOf(":");
  if (lastColon !== -1 && rest.includes(".", lastColon)) {
    const v4 = parseIpv4(rest.slice(lastColon + 1));
    if (!v4) return null;
    tail = [((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0)];
    // Drop the dotted quad, but keep a "::" that directly precedes it ("::1.2.3.4").
    const before = rest.slice(0, lastColon);
    rest = before.endsWith(":") ? `${before}:` : before;
  }

  const doubleColon = rest.indexOf("::");
  let groups: number[];
  if (doubleColon === -1) {
    const parsed = parseHexGroups(rest);
    if (!parsed) return null;
    groups = [...parsed, ...tail];
    if (groups.length !== 8) return null;
  } else {
    if (rest.indexOf("::", doubleColon + 1) !== -1) return null;
    const head = parseHexGroups(rest.slice(0, doubleColon));
    const after = parseHexGroups(rest.slice(doubleColon + 2));
    if (!head || !after) return null;
    const known = head.length + after.length + tail.length;
    // "::" stands for at least one zero group.
    if (known > 7) return null;
    groups = [...head, ...new Array<number>(8 - known).fill(0), ...after, ...tail];
  }

  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

function isMappedIpv4(bytes: Uint8Array): boolean {
  if (bytes.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/**
 * Parses an IPv4 or IPv6 address (optionally in brackets, IPv6 optionally
 * with a zone). IPv4-mapped IPv6 addresses come back as IPv4. Null if invalid.
 */
export function parseIp(text: string): IpAddress | null {
  let candidate = text.trim();
  if (candidate.startsWith("[") && candidate.endsWith("]")) candidate = candidate.slice(1, -1);
  if (candidate.includes(":")) {
    const bytes = parseIpv6(candidate);
    if (!bytes) return null;
    if (isMappedIpv4(bytes)) return { family: 4, bytes: bytes.slice(12) };
    return { family: 6, bytes };
  }
  const bytes = parseIpv4(candidate);
  return bytes ? { family: 4, bytes } : null;
}

/** Canonical text: dotted quad, or RFC 5952 IPv6 (lower case, longest zero run compressed). */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return Array.from(ip.bytes).join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i] ?? 0) << 8) | (ip.bytes[i + 1] ?? 0));
  // RFC 5952: compress the longest run of two or more zero groups, the first on a tie.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let end = i;
    while (end < 8 && groups[end] === 0) end++;
    if (end - i > bestLength) {
      bestStart = i;
      bestLength = end - i;
    }
    i = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}

/** Canonical text of an address given as text, or null if it is not an address. */
export function normalizeIp(text: string): string | null {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
}

function maskTo(bytes: Uint8Array, prefix: number): Uint8Array {
  const masked = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    masked[i] = (bytes[i] ?? 0) & ((0xff << (8 - bits)) & 0xff);
  }
  return masked;
}

/**
 * Parses "192.0.2.0/24", "2001:db8::/32" or a bare address (a range of one).
 * A range written in IPv4-mapped IPv6 ("::ffff:10.0.0.0/104") becomes the IPv4
 * range it covers, so it matches the same sockets. Null if invalid.
 */
export function parseIpRange(text: string): IpRange | null {
  const slash = text.indexOf("/");
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? null : text.slice(slash + 1);
  const raw = addressText.includes(":") ? parseIpv6(addressText.trim().replace(/^\[(.*)\]$/, "$1")) : parseIpv4(addressText.trim());
  if (!raw) return null;
  const maxPrefix = raw.length * 8;
  let prefix = maxPrefix;
  if (prefixText !== null) {
    if (!/^\d{1,3}$/.test(prefixText.trim())) return null;
    prefix = Number(prefixText.trim());
    if (prefix > maxPrefix) return null;
  }
  if (raw.length === 16 && isMappedIpv4(raw) && prefix >= 96) {
    return { family: 4, bytes: maskTo(raw.slice(12), prefix - 96), prefix: prefix - 96 };
  }
  return { family: raw.length === 4 ? 4 : 6, bytes: maskTo(raw, prefix), prefix };
}

/** Whether the address lies in the range. An IPv4 address never matches an IPv6 range, except through the mapped form above. */
export function ipInRange(ip: IpAddress, range: IpRange): boolean {
  if (ip.family !== range.family) return false;
  const masked = maskTo(ip.bytes, range.prefix);
  for (let i = 0; i < masked.length; i++) if (masked[i] !== range.bytes[i]) return false;
  return true;
}
