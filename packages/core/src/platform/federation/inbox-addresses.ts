import { isIP } from "node:net";
import { BoundedMap } from "../../bounded-map.js";
import type { Clock } from "../../ports/clock.js";
import { withDeliveryFetch } from "./delivery-fetch.js";
import { InboxSender } from "./inbox-sender.js";
import { type SafeFetchOptions, addressRefusal, hostnameOf, systemLookup } from "./safe-fetch.js";

/** How long a host's verdict stands: a fan-out to many inboxes on one host resolves it once. */
const VERDICT_FOR_MS = 60_000;
/** Hosts remembered at most; the oldest goes first. */
const VERDICTS_MAX = 10_000;

export type InboxAddressOptions = Pick<SafeFetchOptions, "allowPrivateAddress" | "trustedAddresses" | "lookup"> & {
  readonly clock: Clock;
};

/**
 * Whether a delivery may be POSTed to an inbox URL, by the address it would
 * reach: the same decision as the safe fetch (`addressRefusal`), on an IP
 * literal as is, on a name on every address the resolver the safe fetch uses
 * returns for it (one non-public address refuses the host).
 *
 * `admits` is the early answer, from a verdict kept for a minute: a delivery
 * it refuses is dropped, not retried. It is not what keeps deliveries off
 * private addresses: a name may resolve to another address a moment later.
 * That is `guarded`, which makes every connection Fedify's deliveries open
 * check the address it connects to, and refuses redirects. A name that does
 * not resolve is let through here (not remembered): the send fails on its own
 * and is retried like any unreachable inbox.
 */
export class InboxAddresses {
  readonly #refuse: (address: string) => boolean;
  readonly #lookup: (hostname: string) => Promise<readonly string[]>;
  readonly #allowAll: boolean;
  readonly #clock: Clock;
  readonly #sender: InboxSender;
  /** Host name → whether it may be reached, and when that was decided. */
  readonly #verdicts = new BoundedMap<string, { readonly admitted: boolean; readonly at: number }>(VERDICTS_MAX);

  constructor(options: InboxAddressOptions) {
    this.#refuse = addressRefusal(options);
    this.#lookup = options.lookup ?? systemLookup;
    this.#allowAll = options.allowPrivateAddress ?? false;
    this.#clock = options.clock;
    this.#sender = new InboxSender(options);
  }

  /**
   * Runs `send` (Fedify delivering) with every request of the global fetch
   * in it sent by an inbox sender under the same address rule: the address
   * is checked when each connection is made, and no redirect is followed.
   */
  guarded<T>(send: () => Promise<T>): Promise<T> {
    return withDeliveryFetch((request) => this.#sender.send(request), send);
  }

  /** Whether `inbox` may be reached: its host is an admitted address, or a name resolving only to admitted ones. */
  async admits(inbox: URL): Promise<boolean> {
    if (this.#allowAll) return true;
    const host = hostnameOf(inbox);
    if (isIP(host)) return !this.#refuse(host);
    const now = this.#clock.now().getTime();
    const known = this.#verdicts.get(host);
    if (known && now - known.at < VERDICT_FOR_MS) return known.admitted;
    let addresses: readonly string[];
    try {
      addresses = await this.#lookup(host);
    } catch {
      return true;
    }
    if (addresses.length === 0) return true;
    const admitted = !addresses.some(this.#refuse);
    this.#verdicts.set(host, { admitted, at: now });
    return admitted;
  }
}
