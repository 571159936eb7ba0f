import { AsyncLocalStorage } from "node:async_hooks";
import { getLogger } from "../logging.js";
import type { DomainPolicyService } from "../services/domain-policy/domain-policy-service.js";
import type { FederationMonitor } from "../services/federation-monitoring/federation-monitor.js";

const logger = getLogger(["federation", "delivery"]);

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
 * bridge hands each to `around`. There a delivery to a domain that may not
 * federate (SUSPEND, or not on the allowlist in allowlist mode) is dropped,
 * one to an unreachable domain is skipped (except the daily probe), and the
 * outcome of the others is recorded for monitoring.
 *
 * Fedify reports failures through `onOutboxError`, called while the message
 * is handled (in its async context), also for failures it does not rethrow:
 * permanent ones (404, 410) and those it re-enqueues itself (Retry-After).
 */
export class DeliveryGate {
  readonly #attempt = new AsyncLocalStorage<{ failed: boolean }>();

  constructor(private readonly deps: { readonly domainPolicy: DomainPolicyService; readonly monitor: FederationMonitor }) {}

  /** Wraps the handling of one queued Fedify message. */
  readonly around = async (message: unknown, handle: () => Promise<void>): Promise<void> => {
    const outbox = outboxMessageOf(message);
    if (!outbox) return handle();
    const inbox = new URL(outbox.inbox);
    const policy = await this.deps.domainPolicy.policyFor(inbox.host);
    if (policy.blocked) {
      logger.info("Dropped a delivery to {host}: {reason}", { host: inbox.host, reason: policy.reason });
      return;
    }
    if (await this.deps.monitor.skipsDeliveryTo(inbox.host)) {
      logger.info("Skipped a delivery to unreachable {host}", { host: inbox.host });
      return;
    }
    const attempt = { failed: false };
    try {
      await this.#attempt.run(attempt, handle);
    } catch (error) {
      await this.deps.monitor.recordDelivery(inbox, "failure");
      throw error;
    }
    await this.deps.monitor.recordDelivery(inbox, attempt.failed ? "failure" : "success");
  };

  /** Fedify's `onOutboxError`: marks the attempt being handled as failed. */
  readonly onOutboxError = (): void => {
    const attempt = this.#attempt.getStore();
    if (attempt) attempt.failed = true;
  };
}
