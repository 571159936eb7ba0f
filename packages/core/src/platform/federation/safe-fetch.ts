import { lookup as dnsLookup } from "node:dns";
import { type IncomingMessage, request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, type LookupFunction, isIP } from "node:net";

/**
 * Outgoing HTTP for federation: every fetch of another server's documents,
 * keys, WebFinger and NodeInfo goes through here. It refuses loopback,
 * private, link-local, unique-local and other non-public addresses, checked
 * on the addresses DNS returned (the connection uses exactly those, so a
 * name cannot resolve to a public address for the check and a private one
 * for the connection), on every redirect hop; and it bounds redirects, time
 * and body size.
 */
export interface SafeFetchOptions {
  /** Lets requests reach non-public addresses: test networks only. @default false */
  readonly allowPrivateAddress?: boolean;
  /** Redirects followed before giving up. @default 5 */
  readonly maxRedirects?: number;
  /** The whole exchange, redirects and body included. @default 10_000 */
  readonly timeoutMs?: number;
  /** Largest response body read. @default 2_000_000 */
  readonly maxBodyBytes?: number;
  /** Addresses reachable even though not public (a known internal service); checked exactly. @default [] */
  readonly trustedAddresses?: readonly string[];
  /** Resolves host names; tests give their own. @default node:dns lookup */
  readonly lookup?: (hostname: string) => Promise<readonly string[]>;
}

export interface SafeFetchInit {
  readonly method?: string;
  readonly headers?: HeadersInit;
  readonly body?: string | Uint8Array | null;
  readonly signal?: AbortSignal;
  /** "manual": a 3xx response is returned as is (its Location unfollowed). @default "follow" */
  readonly redirect?: "follow" | "manual";
}

/** A fetch limited as above; the Response's `url` is the final URL after redirects. */
export type SafeFetch = (input: string | URL, init?: SafeFetchInit) => Promise<Response>;

/** Why an outgoing request was refused before or while it was made. */
export class OutgoingFetchError extends Error {
  constructor(
    readonly reason: "private_address" | "bad_url" | "too_many_redirects" | "redirect_refused" | "body_too_large" | "timeout",
    message: string,
  ) {
    super(message);
    this.name = "OutgoingFetchError";
  }
}

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  // 6to4: relays to an IPv4 address, which may be a private one.
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv6");
}

/**
 * IPv4-mapped addresses (`::ffff:0:0/96`): no public server is reached by
 * one, and a socket connects to the IPv4 address inside. A list of its own:
 * in one list with the IPv4 ranges, Node's BlockList would match every IPv4
 * address against it.
 */
const IPV4_MAPPED = new BlockList();
IPV4_MAPPED.addSubnet("::ffff:0:0", 96, "ipv6");

/** The IPv4 address inside an IPv4-compatible or NAT64 IPv6 address, if any (IPv4-mapped ones are all refused). */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted?.[1]) return dotted[1];
  const hex = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return null;
}

/** True for loopback, private, link-local, unique-local, multicast, documentation and other non-public addresses. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return NON_PUBLIC.check(address, "ipv4");
  if (family === 6) {
    const bare = address.replace(/%.*$/, "");
    if (IPV4_MAPPED.check(bare, "ipv6") || NON_PUBLIC.check(bare, "ipv6")) return true;
    const v4 = embeddedIpv4(bare);
    return v4 !== null && NON_PUBLIC.check(v4, "ipv4");
  }
  return true;
}

/**
 * The one decision on which addresses outgoing federation may reach: the
 * safe fetch applies it to every connection, the delivery gate to every
 * inbox. Non-public addresses are refused unless the server runs on a test
 * network (`allowPrivateAddress`) or the address is trusted exactly.
 */
export function addressRefusal(
  options: Pick<SafeFetchOptions, "allowPrivateAddress" | "trustedAddresses">,
): (address: string) => boolean {
  const allowPrivate = options.allowPrivateAddress ?? false;
  const trusted = new Set(options.trustedAddresses ?? []);
  return (address) => !allowPrivate && !trusted.has(address) && isNonPublicAddress(address);
}

/** Every address the system resolver gives for `hostname` (the safe fetch's default `lookup`). */
export function systemLookup(hostname: string): Promise<readonly string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses.map((entry) => entry.address));
    });
  });
}

/** A `lookup` for node:http that resolves once, refuses non-public results, and connects to what it checked. */
export function guardedLookup(
  resolveHost: (hostname: string) => Promise<readonly string[]>,
  refuse: (address: string) => boolean,
): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        const refused = addresses.find(refuse);
        if (refused !== undefined || addresses.length === 0) {
          const error = new OutgoingFetchError(
            "private_address",
            addresses.length === 0 ? `${hostname} has no address` : `${hostname} resolves to a non-public address`,
          );
          callback(error as NodeJS.ErrnoException, "", 4);
          return;
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        const wanted = options.family === 4 || options.family === 6 ? entries.filter((entry) => entry.family === options.family) : entries;
        const list = wanted.length > 0 ? wanted : entries;
        if (options.all) (callback as unknown as (error: null, list: { address: string; family: number }[]) => void)(null, list);
        else callback(null, list[0]?.address ?? "", list[0]?.family ?? 4);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 4),
    );
  };
}

/** The host of a URL as a resolver or address check takes it (an IPv6 literal without its brackets). */
export function hostnameOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Uint8Array;
}

/** The headers of an answer node:http received, as a fetch Response has them. */
export function headersOf(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < message.rawHeaders.length; i += 2) {
    const name = message.rawHeaders[i];
    const value = message.rawHeaders[i + 1];
    if (name !== undefined && value !== undefined) headers.append(name, value);
  }
  return headers;
}

function exchange(
  url: URL,
  init: SafeFetchInit,
  options: Required<Omit<SafeFetchOptions, "lookup" | "trustedAddresses">> & Pick<SafeFetchOptions, "lookup">,
  refuse: (address: string) => boolean,
  signal: AbortSignal,
): Promise<RawResponse> {
  const host = hostnameOf(url);
  if (isIP(host) && refuse(host)) {
    return Promise.reject(new OutgoingFetchError("private_address", `${host} is not a public address`));
  }
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<RawResponse>((resolve, reject) => {
    const req = send(url, {
      method: init.method ?? "GET",
      headers,
      lookup: guardedLookup(options.lookup ?? systemLookup, refuse),
      signal,
      // A redirect target may be refused: each hop gets its own connection and check.
      agent: false,
    });
    req.on("error", (error) => reject(signal.aborted ? new OutgoingFetchError("timeout", `${url.origin} did not answer in time`) : error));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const declared = Number(res.headers["content-length"] ?? Number.NaN);
      if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
        res.destroy();
        reject(new OutgoingFetchError("body_too_large", `${url.origin} sent a body over ${options.maxBodyBytes} bytes`));
        return;
      }
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBodyBytes) {
          res.destroy();
          reject(new OutgoingFetchError("body_too_large", `${url.origin} sent a body over ${options.maxBodyBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on("error", (error) =>
        reject(signal.aborted ? new OutgoingFetchError("timeout", `${url.origin} did not answer in time`) : error),
      );
      res.on("end", () => resolve({ status: res.statusCode ?? 502, headers: headersOf(res), body: new Uint8Array(Buffer.concat(chunks)) }));
    });
    if (init.body !== undefined && init.body !== null) req.write(init.body);
    req.end();
  });
}

function toResponse(raw: RawResponse, url: URL): Response {
  const nullBody = raw.status === 204 || raw.status === 304 || (raw.status >= 100 && raw.status < 200);
  const response = new Response(nullBody ? null : Buffer.from(raw.body), { status: raw.status, headers: raw.headers });
  Object.defineProperty(response, "url", { value: url.href });
  return response;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "signature", "signature-input"];

function withoutCredentials(headers: HeadersInit | undefined): Headers {
  const copy = new Headers(headers);
  for (const name of CREDENTIAL_HEADERS) copy.delete(name);
  return copy;
}

/** Makes a fetch function with the limits above. */
export function createSafeFetch(options: SafeFetchOptions = {}): SafeFetch {
  const settings = {
    allowPrivateAddress: options.allowPrivateAddress ?? false,
    maxRedirects: options.maxRedirects ?? 5,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxBodyBytes: options.maxBodyBytes ?? 2_000_000,
    lookup: options.lookup,
  };
  const refuse = addressRefusal(options);
  return async (input, init = {}) => {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new OutgoingFetchError("bad_url", `Not a URL: ${String(input)}`);
    }
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let current = init;
    for (let hop = 0; ; hop++) {
      if (url.protocol !== "https:" && url.protocol !== "http:")
        throw new OutgoingFetchError("bad_url", `Unsupported scheme: ${url.protocol}`);
      if (url.username || url.password) throw new OutgoingFetchError("bad_url", "URLs with credentials are refused");
      const raw = await exchange(url, current, settings, refuse, signal);
      const location = raw.headers.get("location");
      if (!REDIRECTS.has(raw.status) || location === null || init.redirect === "manual") return toResponse(raw, url);
      if (hop >= settings.maxRedirects)
        throw new OutgoingFetchError("too_many_redirects", `More than ${settings.maxRedirects} redirects from ${String(input)}`);
      const next = new URL(location, url);
      // Credentials and signatures were made for the first origin only.
      if (next.origin !== url.origin) current = { ...current, headers: withoutCredentials(current.headers) };
      url = next;
      // As browsers do: 303 (and 301/302 after a POST) turn into a GET without a body.
      if (raw.status === 303 || ((raw.status === 301 || raw.status === 302) && (current.method ?? "GET") === "POST")) {
        current = { ...current, method: "GET", body: null };
      }
    }
  };
}
