import { AsyncLocalStorage } from "node:async_hooks";
import type { Context, SendActivityOptions } from "@fedify/fedify";
import type { Activity, Recipient } from "@fedify/fedify/vocab";
import { BoundedMap } from "../../bounded-map.js";
import { getLogger } from "../../logging.js";
import type { Clock } from "../../ports/clock.js";
import type { FederationTraffic, HostPolicies } from "./remote-host-gates.js";
import type { InboxAddresses } from "./inbox-addresses.js";

const logger = getLogger(["federation", "delivery"]);

/**
 * How long a success this process saw stands for a domain being reachable:
 * a success clears the unreachable mark, and the mark takes failures on
 * three distinct days after it, so within the hour the gate need not read
 * the domain's delivery state again.
 */
const REACHED_FOR_MS = 3_600_000;
/** Domains remembered as reached at most; the oldest goes first. */
const REACHED_MAX = 10_000;

/** The part of Fedify's queued outbox message the gate reads. */
interface OutboxMessageLike {
  readonly type: "outbox";
  readonly inbox: string;
  readonly activityId?: string;
}

function outboxMessageOf(message: unknown): OutboxMessageLike | null {
  if (typeof message !== "object" || message === null) return null;
  const { type, inbox } = message as { type?: unknown; inbox?: unknown };
  if (type !== "outbox" || typeof inbox !== "string" || !URL.canParse(inbox)) return null;
  return message as OutboxMessageLike;
}

/**
 * The one place outgoing deliveries pass: every activity Fedify sends
 * through the queue becomes one "outbox" message per inbox, and the queue
 * bridge hands each to `around` (a batch of them asks `admits` for each
 * inbox and reports its successes to `recordSuccesses`, see
 * batch-delivery.ts). There a delivery to a domain that may not
 * federate (SUSPEND, or not on the allowlist in allowlist mode) is dropped,
 * one to an unreachable domain is skipped (except the daily probe), one to an
 * inbox at a non-public address (outside test networks) is dropped, and the
 * outcome of the others is recorded for monitoring. A dropped delivery is
 * done, not failed: it is not retried.
 *
 * Fedify reports failures through `onOutboxError`, called while the message
 * is handled (in its async context), also for failures it does not rethrow:
 * permanent ones (404, 410) and those it re-enqueues itself (Retry-After).
 */
export class DeliveryGate {
  readonly #attempt = new AsyncLocalStorage<{ failed: boolean }>();
  /** Hosts a delivery from this process succeeded to, and when (see REACHED_FOR_MS). */
  readonly #reachedAt = new BoundedMap<string, number>(REACHED_MAX);

  constructor(
    private readonly deps: {
      readonly domainPolicy: HostPolicies;
      readonly monitor: FederationTraffic;
      readonly clock: Clock;
      /** Fedify POSTs with the global fetch: the address rule of its inboxes, and the guard of its connections (`guarded`). */
      readonly inboxAddresses: InboxAddresses;
    },
  ) {}

  /** Wraps the handling of one queued Fedify message. */
  readonly around = async (message: unknown, handle: () => Promise<void>): Promise<void> => {
    const outbox = outboxMessageOf(message);
    if (!outbox) return handle();
    const inbox = new URL(outbox.inbox);
    if (!(await this.admits(inbox))) return;
    const attempt = { failed: false };
    try {
      await this.#attempt.run(attempt, () => this.deps.inboxAddresses.guarded(handle));
    } catch (error) {
      this.#reachedAt.delete(inbox.host);
      await this.deps.monitor.recordDelivery(inbox, "failure");
      throw error;
    }
    if (attempt.failed) this.#reachedAt.delete(inbox.host);
    else this.#reached(inbox.host);
    await this.deps.monitor.recordDelivery(inbox, attempt.failed ? "failure" : "success");
  };

  /**
   * Whether a delivery to `inbox` may go: not to a domain that may not
   * federate, nor to an unreachable one (but for the daily probe), nor to a
   * non-public address. What it refuses is dropped, not retried.
   */
  async admits(inbox: URL): Promise<boolean> {
    return (await this.#admits(inbox.host)) && (await this.#reachable(inbox));
  }

  /** Deliveries made outside `around` (a batch's) reached these inboxes: recorded in one write. */
  async recordSuccesses(inboxes: readonly URL[]): Promise<void> {
    for (const inbox of inboxes) this.#reached(inbox.host);
    await this.deps.monitor.recordSuccesses(inboxes);
  }

  #reached(host: string): void {
    this.#reachedAt.set(host, this.deps.clock.now().getTime());
  }

  #recentlyReached(host: string): boolean {
    const at = this.#reachedAt.get(host);
    return at !== undefined && this.deps.clock.now().getTime() - at < REACHED_FOR_MS;
  }

  /** Whether a delivery to `host` may go: not when its domain may not federate, nor while it is unreachable (but for the probe). */
  async #admits(host: string): Promise<boolean> {
    const policy = await this.deps.domainPolicy.policyFor(host);
    if (policy.blocked) {
      logger.info("Dropped a delivery to {host}: {reason}", { host, reason: policy.reason });
      return false;
    }
    if (!this.#recentlyReached(host) && (await this.deps.monitor.skipsDeliveryTo(host))) {
      logger.info("Skipped a delivery to unreachable {host}", { host });
      return false;
    }
    return true;
  }

  /** Whether `inbox` is at an address deliveries may reach (see InboxAddresses). */
  async #reachable(inbox: URL): Promise<boolean> {
    if (await this.deps.inboxAddresses.admits(inbox)) return true;
    logger.warn("Dropped a delivery to {host}: its inbox is not at a public address", { host: inbox.host });
    return false;
  }

  /**
   * The context with its `sendActivity` gated too when it sends `immediate`ly:
   * such a send skips the queue, and so `around`, so the recipients the gate
   * would drop are dropped before it (by the hosts of their id and of the
   * inbox the send would use). An immediate send to all followers goes
   * through the queue instead, where each inbox is gated.
   */
  gate<T extends Context<D>, D>(ctx: T): T {
    // Fedify's overloads (followers, or recipients) as one signature: the wrapper hands each call back unchanged in kind.
    const original = ctx.sendActivity.bind(ctx) as (
      sender: unknown,
      recipients: "followers" | Recipient | Recipient[],
      activity: Activity,
      options?: SendActivityOptions,
    ) => Promise<void>;
    const send = async (
      sender: unknown,
      recipients: "followers" | Recipient | Recipient[],
      activity: Activity,
      options?: SendActivityOptions,
    ): Promise<void> => {
      if (!options?.immediate) return original(sender, recipients, activity, options);
      if (recipients === "followers") return original(sender, recipients, activity, { ...options, immediate: false });
      const admitted: Recipient[] = [];
      for (const recipient of Array.isArray(recipients) ? recipients : [recipients]) {
        const inbox = options.preferSharedInbox ? (recipient.endpoints?.sharedInbox ?? recipient.inboxId) : recipient.inboxId;
        const hosts = new Set([recipient.id?.host, inbox?.host].filter((host): host is string => host !== undefined));
        let admits = true;
        for (const host of hosts) admits = admits && (await this.#admits(host));
        if (admits && inbox) admits = await this.#reachable(inbox);
        if (admits) admitted.push(recipient);
      }
      if (admitted.length > 0) await this.deps.inboxAddresses.guarded(() => original(sender, admitted, activity, options));
    };
    return new Proxy(ctx, {
      get(target, property) {
        if (property === "sendActivity") return send;
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  /** Fedify's `onOutboxError`: marks the attempt being handled as failed. */
  readonly onOutboxError = (): void => {
    const attempt = this.#attempt.getStore();
    if (attempt) attempt.failed = true;
  };
}
