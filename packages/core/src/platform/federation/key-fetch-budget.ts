import { BoundedMap } from "../../bounded-map.js";

/** How many requests signed with keys not yet fetched may come, per minute. */
export interface KeyFetchLimits {
  /** Hosts no key of which verified yet, named by the requests of one client address. @default 30 */
  readonly perSource?: number;
  /** Requests naming keys of one host no key of which verified yet. @default 10 */
  readonly perUnknownHost?: number;
}

/** Counters kept at most, per kind; the oldest go first. */
const COUNTERS_MAX = 10_000;
/** Hosts remembered as known at most. */
const KNOWN_HOSTS_MAX = 10_000;
const WINDOW_MS = 60_000;

interface Window {
  readonly start: number;
  count: number;
}

/** The unknown hosts one client address named in a window. */
interface HostsWindow {
  readonly start: number;
  readonly hosts: Set<string>;
}

/**
 * How many inbox requests may make Kith fetch a key (Fedify fetches the
 * key of a signature it has not seen before, from wherever its id points).
 *
 * Why: every POST naming a new key id costs an outgoing request, so 50
 * POSTs naming 50 key hosts made 50 fetches in about a second; anyone could
 * make the server fetch from any host, as fast as they could status. So the
 * requests that would fetch a key of a host no key of which has verified in
 * this process yet are counted, in windows of a minute: per host, and, per
 * client address, the distinct such hosts it names (a server sends its own
 * users' activities, a relay a few servers'; one address naming many new
 * hosts is the abuse). Past a limit they are refused with 429 and a
 * Retry-After, which senders honour by trying again later. Keys already
 * fetched (the usual request), and new keys of hosts known to sign (a large
 * server's users met for the first time, which may come by the hundred from
 * one address), are not counted.
 */
export class KeyFetchBudget {
  readonly #perSource: number;
  readonly #perUnknownHost: number;
  readonly #sources = new BoundedMap<string, HostsWindow>(COUNTERS_MAX);
  readonly #hosts = new BoundedMap<string, Window>(COUNTERS_MAX);
  readonly #knownHosts = new BoundedMap<string, true>(KNOWN_HOSTS_MAX);

  constructor(
    limits: KeyFetchLimits = {},
    private readonly now: () => number = Date.now,
  ) {
    this.#perSource = limits.perSource ?? 30;
    this.#perUnknownHost = limits.perUnknownHost ?? 10;
  }

  /**
   * Counts a request that would fetch a key of `keyHost`, from `source` (the
   * client's address, when known). Null when it may; otherwise the seconds
   * until it may, and it is not counted.
   */
  take(keyHost: string, source: string | null): number | null {
    // A host a key of which verified is a server that signs: its other keys (a big server's many users, seen for the
    // first time) are fetched without counting, whoever brings them.
    if (this.#knownHosts.get(keyHost) !== undefined) return null;
    const now = this.now();
    const host = this.#windowOf(this.#hosts, keyHost, now, () => ({ start: now, count: 0 }));
    if (host.count >= this.#perUnknownHost) return this.#secondsLeft(host.start, now);
    if (source !== null) {
      const named = this.#windowOf(this.#sources, source, now, () => ({ start: now, hosts: new Set<string>() }));
      if (!named.hosts.has(keyHost) && named.hosts.size >= this.#perSource) return this.#secondsLeft(named.start, now);
      named.hosts.add(keyHost);
    }
    host.count++;
    return null;
  }

  /** A key of `host` verified: its hosts' other keys are no longer counted per host. */
  vouch(host: string): void {
    if (this.#knownHosts.get(host) === undefined) this.#knownHosts.set(host, true);
  }

  #windowOf<W extends { readonly start: number }>(windows: BoundedMap<string, W>, key: string, now: number, fresh: () => W): W {
    const current = windows.get(key);
    if (current !== undefined && now - current.start < WINDOW_MS) return current;
    const made = fresh();
    windows.set(key, made);
    return made;
  }

  #secondsLeft(start: number, now: number): number {
    return Math.max(1, Math.ceil((start + WINDOW_MS - now) / 1000));
  }
}
