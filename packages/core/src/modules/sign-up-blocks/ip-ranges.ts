import { isIPv4, isIPv6 } from "node:net";

/** An IP range: its first address as a number, its prefix length, and its family's width. */
export interface IpRange {
  readonly family: 4 | 6;
  readonly base: bigint;
  readonly prefix: number;
}

function v4ToBigInt(address: string): bigint {
  return address.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigInt(address: string): bigint | null {
  let text = address;
  // An embedded IPv4 tail (`::ffff:192.0.2.1`) is two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4 !== undefined) {
    const n = v4ToBigInt(v4);
    text = `${text.slice(0, -v4.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<string>(missing).fill("0"), ...tail];
  return groups.reduce((n, group) => (n << 16n) | BigInt(Number.parseInt(group || "0", 16)), 0n);
}

/** An address as a number of its family; an IPv4-mapped IPv6 address counts as the IPv4 one. */
export function parseAddress(raw: string): { family: 4 | 6; value: bigint } | null {
  const address = raw.trim().replace(/^\[|\]$/g, "");
  if (isIPv4(address)) return { family: 4, value: v4ToBigInt(address) };
  if (!isIPv6(address)) return null;
  const value = v6ToBigInt(address.split("%")[0] ?? "");
  if (value === null) return null;
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

const bits = (family: 4 | 6): number => (family === 4 ? 32 : 128);

function mask(family: 4 | 6, prefix: number): bigint {
  const width = BigInt(bits(family));
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(prefix))) - 1n);
}

/** A range in CIDR form (`192.0.2.0/24`) or a single address (a /32 or /128); null when it is neither. */
export function parseRange(raw: string): IpRange | null {
  const [addressPart, prefixPart, extra] = raw.trim().split("/");
  if (extra !== undefined || addressPart === undefined) return null;
  const address = parseAddress(addressPart);
  if (address === null) return null;
  // A mapped IPv6 range would need its prefix translated; accept it only written as IPv4.
  if (address.family === 4 && !isIPv4(addressPart.trim()) && prefixPart !== undefined) return null;
  const width = bits(address.family);
  if (prefixPart !== undefined && !/^\d{1,3}$/.test(prefixPart)) return null;
  const prefix = prefixPart === undefined ? width : Number(prefixPart);
  if (prefix > width) return null;
  return { family: address.family, base: address.value & mask(address.family, prefix), prefix };
}

function v6Text(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
  // The longest run of zero groups (two or more) becomes `::`, as RFC 5952 writes it.
  let best = { start: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length && j - i >= 2) best = { start: i, length: j - i };
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.start === -1) return hex.join(":");
  return `${hex.slice(0, best.start).join(":")}::${hex.slice(best.start + best.length).join(":")}`;
}

/** The range as Mastodon shows it: its first address and prefix length. */
export function formatRange(range: IpRange): string {
  const address =
    range.family === 4 ? [24n, 16n, 8n, 0n].map((shift) => String((range.base >> shift) & 0xffn)).join(".") : v6Text(range.base);
  return `${address}/${range.prefix}`;
}

export function rangeContains(range: IpRange, address: { family: 4 | 6; value: bigint }): boolean {
  return range.family === address.family && (address.value & mask(range.family, range.prefix)) === range.base;
}
