import type { HttpMessageSignaturesSpec, KvKey, KvStore } from "@fedify/fedify";
import { getLogger } from "../logging.js";
import type { DeliveryGate } from "./delivery-gate.js";
import type { InboxSender } from "./inbox-sender.js";
import { type BatchInbox, type OutboxBatch, type OutboxMessage, outboxMessagesOf } from "./outbox-batch.js";
import { FIRST_KNOCK, SIGNATURE_SPEC_PREFIX } from "./signature-specs.js";

const logger = getLogger(["federation", "delivery"]);

/** Fedify's signing of requests (its `signRequest` and `importJwk`), loaded with Fedify when the first batch comes. */
export interface RequestSigning {
  importPrivateKey(jwk: JsonWebKey): Promise<CryptoKey>;
  /** The request signed in the given form, over `body` (the request itself is made without one). */
  sign(request: Request, privateKey: CryptoKey, keyId: URL, spec: HttpMessageSignaturesSpec, body: ArrayBuffer): Promise<Request>;
}

/** Fedify's own signing; this module imports Fedify only here, when a batch is first delivered. */
export async function fedifySigning(): Promise<RequestSigning> {
  const { importJwk, signRequest } = await import("@fedify/fedify/sig");
  return {
    importPrivateKey: (jwk) => importJwk(jwk, "private"),
    sign: (request, privateKey, keyId, spec, body) => signRequest(request, privateKey, keyId, { spec, body }),
  };
}

export interface BatchDeliveryOptions {
  readonly gate: Pick<DeliveryGate, "admits" | "recordSuccesses">;
  /** Where the signature form each server accepted is kept: the same entries Fedify reads and writes. */
  readonly kv: Pick<KvStore, "get" | "set">;
  readonly sender: Pick<InboxSender, "post">;
  readonly signing: () => Promise<RequestSigning>;
  /** Queues these messages a job each, delivered as Fedify delivers one (double-knock, redirects, retries with backoff). */
  readonly handBack: (messages: readonly OutboxMessage[]) => Promise<void>;
  readonly userAgent: string;
  /** POSTs of one batch in flight at once. @default 32 */
  readonly concurrency?: number;
}

interface SigningKey {
  readonly keyId: URL;
  readonly privateKey: CryptoKey;
}

/** What one batch sends: the same body, signed by the same key, to each inbox. */
interface Send {
  readonly key: SigningKey;
  readonly body: Uint8Array;
  /** The body again, as the signer takes it. */
  readonly bodyBuffer: ArrayBuffer;
  readonly headers: Readonly<Record<string, string>>;
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
 * server accepted before (Fedify's first knock otherwise) and POSTed over
 * pooled connections, many at once; the successes are recorded in one write.
 * Every delivery that does not succeed at once (any answer but 2xx, or
 * none) is handed back as Fedify's own message, a job of its own that
 * delivers it exactly as a single delivery is: the other signature form,
 * redirects, Accept-Signature, 404/410 not retried, Retry-After, retries with
 * the queue's backoff, and the failure counted for monitoring. So this path
 * adds one quick attempt in front of Fedify's, which stays the only one that
 * decides a failure.
 */
export class BatchDelivery {
  readonly #options: BatchDeliveryOptions;
  #signing: Promise<RequestSigning> | null = null;

  constructor(options: BatchDeliveryOptions) {
    this.#options = options;
  }

  async deliver(batch: OutboxBatch): Promise<void> {
    const key = await this.#signingKey(batch);
    if (!key) {
      // Without an RSA key Fedify sends unsigned (and says so): left to it.
      await this.#options.handBack(outboxMessagesOf(batch, batch.inboxes));
      return;
    }
    const body = new TextEncoder().encode(JSON.stringify(batch.message.activity));
    const bodyBuffer = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength);
    const send: Send = { key, body, bodyBuffer, headers: { "user-agent": this.#options.userAgent } };
    const reached: URL[] = [];
    const failed: BatchInbox[] = [];
    await eachLimited(batch.inboxes, this.#options.concurrency ?? 32, async (entry) => {
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
    try {
      const inbox = new URL(entry.inbox);
      if (!(await this.#options.gate.admits(inbox))) return "dropped";
      const specKey: KvKey = [...SIGNATURE_SPEC_PREFIX, inbox.origin];
      const spec = (await this.#options.kv.get<HttpMessageSignaturesSpec>(specKey)) ?? FIRST_KNOCK;
      // As Fedify sends one: the message's own headers (Collection-Synchronization) and the activity's content type.
      const unsigned = new Request(inbox, { method: "POST", headers: { ...entry.headers, "content-type": "application/activity+json" } });
      const signing = await this.#loadSigning();
      const signed = await signing.sign(unsigned, send.key.privateKey, send.key.keyId, spec, send.bodyBuffer);
      const headers: Record<string, string> = { ...send.headers };
      for (const [name, value] of signed.headers) headers[name] = value;
      const status = await this.#options.sender.post(inbox, headers, send.body);
      if (status < 200 || status >= 300) {
        logger.debug("{inbox} answered {status} to a batched delivery; it is delivered on its own", { inbox: entry.inbox, status });
        return "failed";
      }
      // Fedify writes the form after every delivery it accepted; the store skips a value it already holds.
      await this.#options.kv.set(specKey, spec);
      return "reached";
    } catch (error) {
      logger.debug("A batched delivery to {inbox} failed; it is delivered on its own: {error}", { inbox: entry.inbox, error });
      return "failed";
    }
  }

  #loadSigning(): Promise<RequestSigning> {
    this.#signing ??= this.#options.signing().catch((error: unknown) => {
      this.#signing = null;
      throw error;
    });
    return this.#signing;
  }

  /** The sender's first RSA key, which Fedify signs deliveries with; null when it has none. */
  async #signingKey(batch: OutboxBatch): Promise<SigningKey | null> {
    const signing = await this.#loadSigning();
    for (const { keyId, privateKey } of batch.message.keys) {
      if (privateKey.kty !== "RSA") continue;
      const key = await signing.importPrivateKey(privateKey);
      if (key.algorithm.name === "RSASSA-PKCS1-v1_5") return { keyId: new URL(keyId), privateKey: key };
    }
    return null;
  }
}
