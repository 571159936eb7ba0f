import { BoundedMap } from "../bounded-map.js";

/** How many requests signed with keys not yet fetched may come, per minute. */
export interface KeyFetchLimits {
  /** From one client address. @default 30 */
  readonly perSource?: number;
  /** Naming keys of one host no key of which verified yet. @default 10 */
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

/**
 * How many inbox requests may make Kith fetch a key (Fedify fetches the
 * key of a signature it has not seen before, from wherever its id points).
 *
 * Why: every POST naming a new key id costs an outgoing request, so 50
 * POSTs naming 50 key hosts made 50 fetches in about a second; anyone could
 * make the server fetch from any host, as fast as they could post. So the
 * requests that would fetch a key are counted, per client address and per
 * host of the key while no key of that host has verified in this process,
 * in windows of a minute; past a limit they are refused with 429 and a
 * Retry-After, which senders honour by trying again later. Keys already
 * fetched (the usual request) are not counted.
 */
export class KeyFetchBudget {
  readonly #perSource: number;
  readonly #perUnknownHost: number;
  readonly #sources = new BoundedMap<string, Window>(COUNTERS_MAX);
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
    const now = this.now();
    const windows: { readonly window: Window; readonly limit: number }[] = [];
    if (source !== null) windows.push({ window: this.#windowOf(this.#sources, source, now), limit: this.#perSource });
    if (this.#knownHosts.get(keyHost) === undefined) windows.push({ window: this.#windowOf(this.#hosts, keyHost, now), limit: this.#perUnknownHost });
    const full = windows.find(({ window, limit }) => window.count >= limit);
    if (full !== undefined) return Math.max(1, Math.ceil((full.window.start + WINDOW_MS - now) / 1000));
    for (const { window } of windows) window.count++;
    return null;
  }

  /** A key of `host` verified: its hosts' other keys are no longer counted per host. */
  vouch(host: string): void {
    if (this.#knownHosts.get(host) === undefined) this.#knownHosts.set(host, true);
  }

  #windowOf(windows: BoundedMap<string, Window>, key: string, now: number): Window {
    const current = windows.get(key);
    if (current !== undefined && now - current.start < WINDOW_MS) return current;
    const fresh = { start: now, count: 0 };
    windows.set(key, fresh);
    return fresh;
  }
}
