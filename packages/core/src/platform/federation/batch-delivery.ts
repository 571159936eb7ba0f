import type { KvKey, KvStore } from "@fedify/fedify";
import { getLogger } from "../../logging.js";
import type { DeliveryGate } from "./delivery-gate.js";
import {
  type SignatureKey,
  type SignatureSpec,
  type SignedBody,
  rsaSignatureKey,
  signedBody,
  signedPostHeaders,
} from "./http-signatures.js";
import type { InboxSender } from "./inbox-sender.js";
import { type BatchInbox, type OutboxBatch, type OutboxMessage, outboxMessagesOf } from "./outbox-batch.js";
import { FIRST_KNOCK, SIGNATURE_SPEC_PREFIX } from "./signature-specs.js";

const logger = getLogger(["federation", "delivery"]);

export interface BatchDeliveryOptions {
  readonly gate: Pick<DeliveryGate, "admits" | "recordSuccesses">;
  /** Where the signature form each server accepted is kept: the same entries Fedify reads and writes. */
  readonly kv: Pick<KvStore, "get" | "set">;
  readonly sender: Pick<InboxSender, "post">;
  /** Queues these messages a job each, delivered as Fedify delivers one (double-knock, retries with backoff; no redirect is followed). */
  readonly handBack: (messages: readonly OutboxMessage[]) => Promise<void>;
  readonly userAgent: string;
  /**
   * POSTs of one batch in flight at once. By default all of them: the sender's pool of a few connections per origin
   * is what keeps any one server from many at a time. With 32 at once each worker waited for a server's answer
   * before its next POST, and a post to 100 servers took longer (bench/HISTORY.md).
   */
  readonly concurrency?: number;
}

/** What one batch sends: the same body, signed by the same key, to each inbox. */
interface Send {
  readonly key: SignatureKey;
  readonly body: SignedBody;
}

/** Runs `work` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Delivers a batch of one activity's deliveries (outbox-batch.ts) in one
 * job: each inbox passes the delivery gate, is signed for in the form its
 * server accepted before (Fedify's first knock otherwise; http-signatures.ts
 * signs as Fedify does, off the main thread) and POSTed over pooled
 * connections, many at once; the successes are recorded in one write.
 * Every delivery that does not succeed at once (any answer but 2xx, or
 * none) is handed back as Fedify's own message, a job of its own that
 * delivers it exactly as a single delivery is: the other signature form,
 * Accept-Signature, 404/410 not retried, Retry-After, retries with the
 * delivery schedule's backoff, and the failure counted for monitoring (a
 * redirect is a failure: deliveries follow none, see delivery-fetch.ts). So this path
 * adds one quick attempt in front of Fedify's, which stays the only one that
 * decides a failure.
 */
export class BatchDelivery {
  readonly #options: BatchDeliveryOptions;

  constructor(options: BatchDeliveryOptions) {
    this.#options = options;
  }

  async deliver(batch: OutboxBatch): Promise<void> {
    const key = signingKeyOf(batch);
    if (!key) {
      // Without a usable RSA key Fedify sends unsigned, or fails, and says so: left to it.
      await this.#options.handBack(outboxMessagesOf(batch, batch.inboxes));
      return;
    }
    const send: Send = { key, body: signedBody(new TextEncoder().encode(JSON.stringify(batch.message.activity))) };
    const reached: URL[] = [];
    const failed: BatchInbox[] = [];
    await eachLimited(batch.inboxes, this.#options.concurrency ?? batch.inboxes.length, async (entry) => {
      const outcome = await this.#deliverOne(send, entry);
      if (outcome === "reached") reached.push(new URL(entry.inbox));
      else if (outcome === "failed") failed.push(entry);
    });
    await this.#options.gate.recordSuccesses(reached);
    if (failed.length > 0) await this.#options.handBack(outboxMessagesOf(batch, failed));
    logger.debug("Delivered {activityId} to {reached} of {count} inboxes; {failed} left to single deliveries", {
      activityId: batch.message.activityId,
      reached: reached.length,
      count: batch.inboxes.length,
      failed: failed.length,
    });
  }

  async #deliverOne(send: Send, entry: BatchInbox): Promise<"reached" | "dropped" | "failed"> {
    const inbox = new URL(entry.inbox);
    const specKey: KvKey = [...SIGNATURE_SPEC_PREFIX, inbox.origin];
    let spec: SignatureSpec;
    try {
      if (!(await this.#options.gate.admits(inbox))) return "dropped";
      spec = (await this.#options.kv.get<SignatureSpec>(specKey)) ?? FIRST_KNOCK;
      // As Fedify sends one: the message's own headers (Collection-Synchronization) and the activity's content type,
      // signed at the real time (not the clock port's) since the receiving server checks it against its own.
      const covered = { ...entry.headers, "content-type": "application/activity+json" };
      const headers = await signedPostHeaders(inbox, covered, send.body, send.key, spec, new Date());
      headers["user-agent"] = this.#options.userAgent;
      const status = await this.#options.sender.post(inbox, headers, send.body.bytes);
      if (status < 200 || status >= 300) {
        logger.debug("{inbox} answered {status} to a batched delivery; it is delivered on its own", { inbox: entry.inbox, status });
        return "failed";
      }
    } catch (error) {
      logger.debug("A batched delivery to {inbox} failed; it is delivered on its own: {error}", { inbox: entry.inbox, error });
      return "failed";
    }
    // Fedify writes the form after every delivery it accepted; the store skips a value it already holds. The
    // delivery is done even if this write fails: it is not sent again for it.
    await this.#options.kv.set(specKey, spec).catch((error: unknown) => {
      logger.warn("Could not remember the signature form {inbox} accepted: {error}", { inbox: entry.inbox, error });
    });
    return "reached";
  }
}

/** The sender's first RSA key, which Fedify signs deliveries with; null when it has none (or it does not import). */
function signingKeyOf(batch: OutboxBatch): SignatureKey | null {
  try {
    for (const { keyId, privateKey } of batch.message.keys) {
      const key = rsaSignatureKey(keyId, privateKey);
      if (key) return key;
    }
  } catch (error) {
    logger.warn("The sender's key of {activityId} does not import; its deliveries go one by one: {error}", {
      activityId: batch.message.activityId,
      error,
    });
  }
  return null;
}
