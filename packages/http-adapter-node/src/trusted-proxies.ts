import type { IncomingHttpHeaders } from "node:http";
import { type IpAddress, type IpRange, formatIp, ipInRange, parseIp, parseIpRange } from "./ip-address.js";

/** A compiled `trustedProxies` list. */
export interface TrustedProxies {
  /** Whether an address (any textual form, brackets and ports excluded) belongs to a trusted proxy. */
  trusts(address: string | IpAddress): boolean;
  readonly isEmpty: boolean;
}

/** What the client asked for, as far as the connection and the trusted proxies tell. */
export interface ForwardedView {
  /** Canonical address of the client; null if unknown (socket gone, or a trusted proxy reported no address). */
  readonly clientIp: string | null;
  /** From a trusted X-Forwarded-Proto, else null (the caller falls back to the connection's own protocol). */
  readonly protocol: "http" | "https" | null;
  /** From a trusted X-Forwarded-Host, else null (the caller falls back to Host). */
  readonly host: string | null;
}

const KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  loopback: ["127.0.0.0/8", "::1/128"],
};

const compiled = new WeakMap<readonly string[], TrustedProxies>();

/**
 * Compiles addresses, CIDR ranges and the keyword "loopback". Throws on an
 * entry it cannot read: a typo in the proxy list must stop the server, not
 * silently trust nobody (or everybody).
 */
export function compileTrustedProxies(entries: readonly string[]): TrustedProxies {
  const cached = compiled.get(entries);
  if (cached) return cached;
  const ranges: IpRange[] = [];
  for (const entry of entries) {
    const expanded = KEYWORDS[entry.trim().toLowerCase()] ?? [entry];
    for (const text of expanded) {
      const range = parseIpRange(text.trim());
      if (!range) throw new TypeError(`trustedProxies: "${entry}" is neither an IP address, a CIDR range nor "loopback"`);
      ranges.push(range);
    }
  }
  const trusted: TrustedProxies = {
    isEmpty: ranges.length === 0,
    trusts(address) {
      if (ranges.length === 0) return false;
      const ip = typeof address === "string" ? parseIp(address) : address;
      return ip !== null && ranges.some((range) => ipInRange(ip, range));
    },
  };
  // Embedders call requestFromNode per request with the same array; compile it once.
  compiled.set(entries, trusted);
  return trusted;
}

/** One X-Forwarded-For entry: a bare address, "[v6]:port", "v4:port", or a quoted form of those. */
export function parseForwardedAddress(entry: string): IpAddress | null {
  let text = entry.trim();
  if (text.startsWith('"') && text.endsWith('"') && text.length >= 2) text = text.slice(1, -1).trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed) return parseIp(bracketed[1] ?? "");
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  if (v4WithPort) return parseIp(v4WithPort[1] ?? "");
  return parseIp(text);
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function listOf(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

// host or host:port, a bracketed IPv6 literal, nothing that could smuggle a path, user info or a second host.
const HOST_PATTERN = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Whether a Host / X-Forwarded-Host value is a plain authority that can go into a URL. */
export function isValidHost(host: string): boolean {
  return HOST_PATTERN.test(host);
}

const NO_CLIENT: ForwardedView = Object.freeze({ clientIp: null, protocol: null, host: null });

/** What the address a connection comes from says, whatever its headers: parsed, canonical, trusted or not. */
interface ConnectionView {
  readonly direct: ForwardedView;
  readonly trusted: boolean;
}

/** Remote addresses already read, per proxy list: a keep-alive connection, or a client that comes back, sends the same. */
const connectionsByList = new WeakMap<TrustedProxies, Map<string, ConnectionView | null>>();
const MAX_REMEMBERED_ADDRESSES = 1024;

function connectionOf(remoteAddress: string, trusted: TrustedProxies): ConnectionView | null {
  let known = connectionsByList.get(trusted);
  if (!known) {
    known = new Map();
    connectionsByList.set(trusted, known);
  }
  const remembered = known.get(remoteAddress);
  if (remembered !== undefined) return remembered;
  const ip = parseIp(remoteAddress);
  const view: ConnectionView | null =
    ip === null ? null : { direct: Object.freeze({ clientIp: formatIp(ip), protocol: null, host: null }), trusted: trusted.trusts(ip) };
  if (known.size >= MAX_REMEMBERED_ADDRESSES) known.clear();
  known.set(remoteAddress, view);
  return view;
}

/**
 * Reads the client's address, protocol and host from the connection, believing
 * X-Forwarded-* only when the connection comes from a trusted proxy.
 *
 * The client is the right-most X-Forwarded-For entry that is not a trusted
 * proxy: entries to its left were written by the client itself and can say
 * anything. Protocol and host are single values set by the proxy the client
 * reached; when proxies append rather than replace, the left-most one is it.
 */
export function resolveForwarded(remoteAddress: string | undefined, headers: IncomingHttpHeaders, trusted: TrustedProxies): ForwardedView {
  const connection = remoteAddress === undefined ? null : connectionOf(remoteAddress, trusted);
  if (connection === null || !connection.trusted) return connection?.direct ?? NO_CLIENT;
  let clientIp = connection.direct.clientIp;
  const hops = listOf(headerValue(headers, "x-forwarded-for"));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseForwardedAddress(hops[i] ?? "");
    if (hop === null) {
      // A trusted proxy wrote something that is no address ("unknown"): the client is not known.
      clientIp = null;
      break;
    }
    clientIp = formatIp(hop);
    if (!trusted.trusts(hop)) break;
  }

  const protoValue = listOf(headerValue(headers, "x-forwarded-proto"))[0]?.toLowerCase();
  const protocol = protoValue === "http" || protoValue === "https" ? protoValue : null;
  const hostValue = listOf(headerValue(headers, "x-forwarded-host"))[0];
  const host = hostValue !== undefined && isValidHost(hostValue) ? hostValue : null;
  return { clientIp, protocol, host };
}
