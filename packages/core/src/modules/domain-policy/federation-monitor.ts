import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import {
  type DomainContent,
  clearUnreachableDomains,
  type DomainDeliveries,
  findDomainDeliveries,
  listConnectedDomains,
  listDomainDeliveries,
  listInboxDomains,
  listInboxMinutes,
  listUnreachableDomains,
  pruneDomainDeliveries,
  pruneInboxMinutes,
  recordDeliveryFailure,
  recordDeliverySuccesses,
  type InboxArrivals,
  recordInboxArrivals,
} from "./federation-monitoring-store.js";
import type { ServiceDeps } from "../service-deps.js";

export type { DomainDeliveries } from "./federation-monitoring-store.js";

/** While unreachable, deliveries are skipped, except one probe a day (a success clears the mark). */
const PROBE_EVERY_MS = 24 * 3_600_000;
const MINUTE_MS = 60_000;
/**
 * How long the delivery state of a domain is kept after its last delivery
 * (or attempt): a row is written for every host a delivery was tried to,
 * so hosts named once (by an actor made up to name them) would otherwise
 * stay forever. A domain still delivered to is probed daily even while
 * unreachable, so its row never gets this old.
 */
export const DELIVERY_STATE_KEPT_MS = 30 * 24 * 3_600_000;
/** How often a process prunes the delivery state, as it records failures (what adds rows of unknown hosts). */
const DELIVERY_PRUNE_EVERY_MS = 3_600_000;
/** The longest window of inbox metrics; older minutes are pruned. */
export const INBOX_WINDOW_MAX_MINUTES = 24 * 60;
/**
 * How long incoming activities are counted in memory before the counts are
 * written: one statement a second instead of one an activity. A process that
 * dies loses the counts of its last second, which a monitoring counter can.
 */
const INBOX_FLUSH_MS = 1_000;

const logger = getLogger(["federation", "monitoring"]);

/** A connected domain: what is known of it and how deliveries to it went. */
export interface ConnectedDomain extends DomainContent {
  readonly deliveries: DomainDeliveries | null;
}

export interface InboxMetrics {
  readonly since: string;
  readonly minutes: number;
  readonly domain: string | null;
  readonly total: number;
  /** Every minute of the window, oldest first, zero where nothing arrived. */
  readonly perMinute: readonly { readonly minute: string; readonly received: number }[];
  /** Domains that sent the most in the window (all domains only). */
  readonly topDomains: readonly { readonly domain: string; readonly received: number }[];
}

/** Domains are kept as accounts keep theirs: the host, with its port when it has one, lower-case. */
function domainOf(host: string): string {
  return host.trim().toLowerCase();
}

function startOfMinute(at: Date): Date {
  return new Date(Math.floor(at.getTime() / MINUTE_MS) * MINUTE_MS);
}

/**
 * Federation monitoring: outcomes of outbound deliveries per domain (and the
 * unreachable mark they lead to), incoming activities per domain and
 * minute, and what is known of each connected domain. Recording never
 * throws: monitoring must not break a delivery or an inbox.
 */
export class FederationMonitor {
  #prunedAt = 0;
  #deliveriesPrunedAt = 0;
  /** Domains incoming activities came from whose unreachable marks are not cleared in the database yet (with the next write of the counts). */
  readonly #heardFrom = new Set<string>();
  /** Incoming activities counted since the last write, by domain and minute. */
  #arrivals = new Map<string, InboxArrivals>();
  #flushTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "config">) {}

  /** Records the outcome of one delivery attempt to an inbox. */
  async recordDelivery(inbox: URL, outcome: "success" | "failure"): Promise<void> {
    if (outcome === "success") return this.recordSuccesses([inbox]);
    const domain = domainOf(inbox.host);
    const now = this.deps.clock.now();
    try {
      const state = await recordDeliveryFailure(this.deps.storage.db, domain, now, this.deps.config.unreachableAfterDays);
      if (state.unreachableSince === now.toISOString()) logger.warn("Marked {domain} unreachable", { domain });
    } catch (error) {
      logger.error("Could not record a delivery outcome for {domain}: {error}", { domain, error });
    }
    await this.#pruneDeliveries(now.getTime());
  }

  /** Removes the delivery state of domains not delivered to for DELIVERY_STATE_KEPT_MS, at most once per DELIVERY_PRUNE_EVERY_MS. */
  async #pruneDeliveries(now: number): Promise<void> {
    if (now - this.#deliveriesPrunedAt < DELIVERY_PRUNE_EVERY_MS) return;
    this.#deliveriesPrunedAt = now;
    try {
      const removed = await pruneDomainDeliveries(this.deps.storage.db, new Date(now - DELIVERY_STATE_KEPT_MS));
      if (removed > 0) logger.info("Removed the delivery state of {removed} domains not delivered to lately", { removed });
    } catch (error) {
      logger.error("Could not prune the delivery state of domains: {error}", { error });
    }
  }

  /** Records deliveries that reached these inboxes, in one write however many domains they are on. */
  async recordSuccesses(inboxes: readonly URL[]): Promise<void> {
    const successes = new Map<string, number>();
    for (const inbox of inboxes) {
      const domain = domainOf(inbox.host);
      successes.set(domain, (successes.get(domain) ?? 0) + 1);
    }
    try {
      await recordDeliverySuccesses(this.deps.storage.db, successes, this.deps.clock.now());
    } catch (error) {
      logger.error("Could not record delivery successes for {domains}: {error}", { domains: [...successes.keys()], error });
    }
  }

  /**
   * Whether a delivery to this host should be skipped: the domain is marked
   * unreachable and was tried less than a day ago (the daily attempt is a
   * probe that clears the mark when it succeeds), and has not sent an
   * activity since.
   */
  async skipsDeliveryTo(host: string): Promise<boolean> {
    // Heard from a moment ago, its mark not cleared yet: it answers.
    if (this.#heardFrom.has(domainOf(host))) return false;
    const state = await findDomainDeliveries(this.deps.storage.db, domainOf(host));
    if (!state?.unreachableSince) return false;
    const lastTry = Math.max(Date.parse(state.lastFailureAt ?? state.unreachableSince), Date.parse(state.lastSuccessAt ?? "1970-01-01T00:00:00Z"));
    return this.deps.clock.now().getTime() - lastTry < PROBE_EVERY_MS;
  }

  /** Counts one accepted incoming activity from a host (written within a second; see INBOX_FLUSH_MS). */
  async recordInbox(host: string): Promise<void> {
    this.#count({ domain: domainOf(host), minute: startOfMinute(this.deps.clock.now()).toISOString(), received: 1 });
    this.#flushTimer ??= setTimeout(() => void this.flushInbox(), INBOX_FLUSH_MS).unref();
  }

  #count(arrivals: InboxArrivals): void {
    this.#heardFrom.add(arrivals.domain);
    const key = `${arrivals.domain} ${arrivals.minute}`;
    const counted = this.#arrivals.get(key);
    this.#arrivals.set(key, counted ? { ...counted, received: counted.received + arrivals.received } : arrivals);
  }

  /** Writes the incoming activities counted so far (`inboxMetrics` and closing the server do it first). */
  async flushInbox(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    const arrivals = [...this.#arrivals.values()];
    if (arrivals.length === 0) return;
    this.#arrivals = new Map();
    try {
      await recordInboxArrivals(this.deps.storage.db, arrivals);
    } catch (error) {
      logger.error("Could not record {count} counts of incoming activities: {error}", { count: arrivals.length, error });
      // Written with the next ones, so a passing failure loses nothing.
      for (const counted of arrivals) this.#count(counted);
      this.#flushTimer ??= setTimeout(() => void this.flushInbox(), INBOX_FLUSH_MS).unref();
      return;
    }
    await this.#answeredAgain(arrivals);
    // Their marks are cleared in the database now; those heard from again meanwhile stay until the next write.
    const heardAgain = new Set([...this.#arrivals.values()].map((counted) => counted.domain));
    for (const { domain } of arrivals) if (!heardAgain.has(domain)) this.#heardFrom.delete(domain);
    const now = this.deps.clock.now().getTime();
    if (now - this.#prunedAt < MINUTE_MS * 10) return;
    this.#prunedAt = now;
    try {
      await pruneInboxMinutes(this.deps.storage.db, new Date(now - INBOX_WINDOW_MAX_MINUTES * MINUTE_MS));
    } catch (error) {
      logger.error("Could not prune the counts of incoming activities: {error}", { error });
    }
  }

  /**
   * Domains that sent activities are reachable again: their unreachable marks go, and deliveries to them resume. One
   * statement for every domain counted, which writes nothing unless one is marked.
   */
  async #answeredAgain(arrivals: readonly InboxArrivals[]): Promise<void> {
    const domains = [...new Set(arrivals.map((counted) => counted.domain))];
    try {
      const cleared = await clearUnreachableDomains(this.deps.storage.db, domains);
      if (cleared > 0) logger.info("{count} domain(s) marked unreachable sent activities again; deliveries to them resume", { count: cleared });
    } catch (error) {
      logger.error("Could not clear the unreachable marks of domains that sent activities: {error}", { error });
    }
  }

  /** Activities received per minute over the last `minutes` minutes (the current one included). */
  async inboxMetrics(minutes: number, domain: string | null): Promise<InboxMetrics> {
    await this.flushInbox();
    const now = startOfMinute(this.deps.clock.now());
    const since = new Date(now.getTime() - (minutes - 1) * MINUTE_MS);
    const normalized = domain === null ? null : domainOf(domain);
    const rows = await listInboxMinutes(this.deps.storage.db, since, normalized);
    const byMinute = new Map(rows.map((row) => [row.minute, row.received]));
    const perMinute = Array.from({ length: minutes }, (_, index) => {
      const minute = new Date(since.getTime() + index * MINUTE_MS).toISOString();
      return { minute, received: byMinute.get(minute) ?? 0 };
    });
    return {
      since: since.toISOString(),
      minutes,
      domain: normalized,
      total: perMinute.reduce((sum, row) => sum + row.received, 0),
      perMinute,
      topDomains: normalized === null ? await listInboxDomains(this.deps.storage.db, since, 20) : [],
    };
  }

  /** Remote domains with known accounts, with account and status counts and delivery outcomes. */
  async connectedDomains(page: { limit: number; offset: number }): Promise<{ rows: ConnectedDomain[]; total: number }> {
    const { rows, total } = await listConnectedDomains(this.deps.storage.db, page);
    const deliveries = new Map(
      (
        await listDomainDeliveries(
          this.deps.storage.db,
          rows.map((row) => row.domain),
        )
      ).map((row) => [row.domain, row]),
    );
    return { rows: rows.map((row) => ({ ...row, deliveries: deliveries.get(row.domain) ?? null })), total };
  }

  /** Delivery outcomes of every domain delivered to. */
  deliveries(): Promise<DomainDeliveries[]> {
    return listDomainDeliveries(this.deps.storage.db);
  }

  unreachableDomains(): Promise<DomainDeliveries[]> {
    return listUnreachableDomains(this.deps.storage.db);
  }

  /** An administrator clears the mark (the domain is back): deliveries resume at once. */
  async clearUnreachable(domain: string): Promise<void> {
    if ((await clearUnreachableDomains(this.deps.storage.db, [domainOf(domain)])) === 0) throw new KithError("federation.domain_not_unreachable");
  }
}
