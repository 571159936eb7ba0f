import type { MessageQueue, MessageQueueDepth, MessageQueueEnqueueOptions, MessageQueueListenOptions } from "@fedify/fedify";
import { getLogger } from "../../logging.js";
import { jobNotReady } from "../queue/not-ready.js";
import type { BackoffOptions, EnqueueOptions, Queue } from "../../ports/queue.js";
import { type OutboxBatch, batchOutboxMessages, isOutboxBatch, outboxMessagesOf } from "./outbox-batch.js";
import { type PrivateKeyResolver, sealPrivateKeys, unsealPrivateKeys } from "./sealed-keys.js";

const logger = getLogger(["federation", "queue"]);

/** What Fedify's `Temporal.Duration` offers that the bridge needs. */
interface DurationLike {
  total(unit: "millisecond"): number;
}

export interface FedifyMessageQueueOptions {
  /** The queue of the port the messages become jobs on; the jobs API shows them there. @default "federation" */
  readonly queueName?: string;
  /**
   * True: a message whose handler throws is retried by the queue port, with
   * its backoff and the queue's max retries, and ends as a failed job the jobs
   * API can retry. False: Fedify re-enqueues it by its own retry policy.
   * @default true
   */
  readonly nativeRetrial?: boolean;
  /** Backoff of retries when `nativeRetrial`. @default { baseMs: 4_000, maxMs: 43_200_000 } (about Fedify's own policy) */
  readonly backoff?: BackoffOptions;
  /**
   * Messages handled at once in one process, until an administrator changes it. Most wait on another server
   * (a delivery, a fetch), so many run at once. @default 16
   */
  readonly concurrency?: number;
  /** Retries after the first attempt, until an administrator changes it. @default 9 (ten attempts, as Fedify's policy) */
  readonly maxRetries?: number;
  /**
   * How a delivery to one inbox (an "outbox" message) is retried when `nativeRetrial`: its attempts and backoff,
   * for days as other servers expect, instead of the queue's. @default the queue's, as any other message
   */
  readonly deliveryRetries?: { readonly maxAttempts: number; readonly backoff: BackoffOptions };
  /**
   * Makes this process ready to work messages (loads the federation, which sets the private keys' resolver); awaited
   * before a message is worked while there is no resolver or no listener yet. A message that finds the process not
   * ready waits without its attempt counting (`jobNotReady`).
   */
  readonly prepare?: () => Promise<void>;
  /** Runs around the handling of each message (`handle` calls Fedify's listener): where deliveries are filtered and their outcomes recorded. */
  readonly around?: (message: unknown, handle: () => Promise<void>) => Promise<void>;
  /**
   * The deliveries of one send to several inboxes queued as batches of up to
   * `size` inboxes, a job each, which `deliver` works (outbox-batch.ts);
   * without it, a job per inbox as Fedify made them.
   */
  readonly batches?: {
    readonly size: number;
    readonly deliver: (batch: OutboxBatch) => Promise<void>;
  };
}

type Listener = (message: unknown) => Promise<void> | void;

const DEFAULT_BACKOFF: Required<BackoffOptions> = { baseMs: 4_000, maxMs: 12 * 3_600_000 };

/** A delivery of an activity to one inbox, as Fedify queues it. */
function isDelivery(message: unknown): boolean {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "outbox";
}

/** Milliseconds of a Fedify delay; never negative. */
function delayMs(delay: DurationLike | undefined): number {
  if (delay === undefined || delay === null) return 0;
  const ms = delay.total("millisecond");
  return Number.isFinite(ms) ? Math.max(0, Math.round(ms)) : 0;
}

/**
 * Fedify's `MessageQueue` on Kith's queue port: every message (an activity to
 * deliver, an incoming activity to process, a fan-out) is a job on one queue
 * of the port, so it is as durable as that queue, is worked by the job
 * workers (`kith serve --role=worker`), and shows in the jobs API where an
 * administrator can retry, delete or pause it.
 *
 * `listen` sets the handler; the port's queue must be started (`Kith.start()`)
 * for messages to be worked. A job that arrives while this process cannot
 * work it yet (nothing listens, the private keys cannot be read) waits and
 * runs again, its attempt uncounted.
 */
export class FedifyMessageQueue implements MessageQueue {
  readonly nativeRetrial: boolean;
  readonly queueName: string;
  readonly #queue: Queue;
  readonly #backoff: BackoffOptions;
  readonly #concurrency: number;
  readonly #maxRetries: number;
  readonly #around: FedifyMessageQueueOptions["around"];
  readonly #prepare: FedifyMessageQueueOptions["prepare"];
  readonly #deliveryRetries: FedifyMessageQueueOptions["deliveryRetries"];
  readonly #batches: FedifyMessageQueueOptions["batches"];
  #listener: Listener | null = null;
  #registered = false;
  #privateKeys: PrivateKeyResolver | null = null;

  constructor(queue: Queue, options: FedifyMessageQueueOptions = {}) {
    this.#queue = queue;
    this.queueName = options.queueName ?? "federation";
    this.nativeRetrial = options.nativeRetrial ?? true;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.#concurrency = options.concurrency ?? 16;
    this.#maxRetries = options.maxRetries ?? 9;
    this.#around = options.around;
    this.#prepare = options.prepare;
    this.#deliveryRetries = options.deliveryRetries;
    this.#batches = options.batches;
  }

  /**
   * Where the private keys of queued messages come from when their jobs run: messages are stored without them
   * (sealed-keys.ts). Set once the federation is built; a job that needs a key before then is retried.
   */
  resolvePrivateKeysWith(resolver: PrivateKeyResolver): void {
    this.#privateKeys = resolver;
  }

  async enqueue(message: unknown, options: MessageQueueEnqueueOptions = {}): Promise<void> {
    await this.#queue.enqueue(this.queueName, await this.#seal(message), this.#jobOptions(options, [message]));
  }

  async enqueueMany(messages: readonly unknown[], options: MessageQueueEnqueueOptions = {}): Promise<void> {
    const jobs = (this.#batches && batchOutboxMessages(messages, this.#batches.size)) ?? messages;
    await this.#enqueueJobs(jobs, this.#jobOptions(options, jobs));
  }

  /** Queues each message as a job of its own, never batched (the deliveries a batch hands back). */
  async enqueueEach(messages: readonly unknown[]): Promise<void> {
    await this.#enqueueJobs(messages, this.#jobOptions({}, messages));
  }

  async #enqueueJobs(messages: readonly unknown[], jobOptions: EnqueueOptions): Promise<void> {
    // The messages of one send share their keys: each is looked up once.
    const resolver = this.#privateKeys;
    const found = new Map<string, Promise<JsonWebKey | null>>();
    const once: PrivateKeyResolver | null =
      resolver &&
      ((keyId) => {
        let key = found.get(keyId);
        if (key === undefined) {
          key = resolver(keyId);
          found.set(keyId, key);
        }
        return key;
      });
    const payloads: unknown[] = [];
    for (const message of messages) payloads.push(await this.#seal(message, once));
    // A fan-out's deliveries, written together where the port can (one statement instead of one per inbox).
    if (this.#queue.enqueueMany) {
      await this.#queue.enqueueMany(this.queueName, payloads, jobOptions);
      return;
    }
    // One at a time: jobs with an ordering key must be stored in the order given.
    for (const payload of payloads) await this.#queue.enqueue(this.queueName, payload, jobOptions);
  }

  /** Handles the messages of the queue until `signal` aborts; resolves then, never rejects. */
  listen(handler: Listener, options: MessageQueueListenOptions = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.resolve();
    this.#listener = handler;
    this.#register();
    return new Promise<void>((resolve) => {
      signal?.addEventListener(
        "abort",
        () => {
          if (this.#listener === handler) this.#listener = null;
          resolve();
        },
        { once: true },
      );
    });
  }

  /** Messages waiting: ready ones are submitted jobs; delayed ones are scheduled or waiting to be retried. */
  async getDepth(): Promise<MessageQueueDepth> {
    const counts = await this.#queue.counts(this.queueName);
    const delayed = counts.schedule + counts.retries;
    return { queued: counts.submitted + delayed, ready: counts.submitted, delayed };
  }

  /** The options of the jobs of `messages`: deliveries to single inboxes (all of them, as one send makes them) retry by the delivery schedule. */
  #jobOptions(options: MessageQueueEnqueueOptions, messages: readonly unknown[]): EnqueueOptions {
    const delay = delayMs(options.delay as DurationLike | undefined);
    const deliveries = this.#deliveryRetries && messages.length > 0 && messages.every(isDelivery) ? this.#deliveryRetries : null;
    return {
      ...(delay > 0 && { delayMs: delay }),
      ...(options.orderingKey !== undefined && { orderingKey: options.orderingKey }),
      // Without native retrial Fedify re-enqueues a failed message itself: one attempt per job then.
      ...(!this.nativeRetrial ? { maxAttempts: 1 } : deliveries ? deliveries : { backoff: this.#backoff }),
    };
  }

  /** A batch job: delivered by the batch handler, or (should there be none in this process) split into a job per inbox. */
  async #deliverBatch(batch: OutboxBatch): Promise<void> {
    if (this.#batches) await this.#batches.deliver(batch);
    else await this.enqueueEach(outboxMessagesOf(batch, batch.inboxes));
  }

  /** The payload to store: without the private keys that can be read again when it runs (none before a resolver is set). */
  #seal(message: unknown, resolver = this.#privateKeys): Promise<unknown> {
    return resolver ? sealPrivateKeys(message, resolver) : Promise.resolve(message);
  }

  /** The stored payload with its private keys again; null when none of its keys exists any more. */
  async #unseal(payload: unknown): Promise<unknown | null> {
    const resolver = this.#privateKeys;
    return unsealPrivateKeys(payload, async (keyId) => {
      if (!resolver) throw jobNotReady("The private keys of queued messages cannot be read in this process yet");
      return resolver(keyId);
    });
  }

  #register(): void {
    if (this.#registered) return;
    this.#registered = true;
    this.#queue.handle(
      this.queueName,
      async (payload) => {
        if ((this.#privateKeys === null || this.#listener === null) && this.#prepare) await this.#prepare();
        const message = await this.#unseal(payload);
        if (message === null) {
          // Its sender's keys are gone (the account was deleted since): it can never be signed.
          logger.info("Dropped a queued federation message whose sender has no key any more");
          return;
        }
        if (isOutboxBatch(message)) return this.#deliverBatch(message);
        const listener = this.#listener;
        if (!listener) throw jobNotReady("No Fedify listener in this process yet");
        if (this.#around) await this.#around(message, async () => await listener(message));
        else await listener(message);
      },
      {
        concurrency: this.#concurrency,
        maxRetries: this.#maxRetries,
        description: "ActivityPub: deliveries to other servers, incoming activities and fan-out (Fedify)",
      },
    );
  }
}
