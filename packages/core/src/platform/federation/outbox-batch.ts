import type { Message } from "@fedify/fedify";

/** Fedify's queued message for one delivery: one activity, signed by one sender, to one inbox. */
export type OutboxMessage = Extract<Message, { type: "outbox" }>;

/** What each inbox of a batch has of its own; the rest of its message is the batch's. */
export type BatchInbox = Pick<OutboxMessage, "id" | "inbox" | "sharedInbox" | "actorIds" | "headers">;

/** The part of an outbox message every inbox of one send shares (the activity, the sender's keys...). */
export type SharedOutboxPart = Omit<OutboxMessage, keyof BatchInbox | "orderingKey" | "circuitHeld" | "circuitHeldSince">;

export const OUTBOX_BATCH_TYPE = "kith.outbox-batch";

/**
 * One job for the deliveries of one activity to many inboxes, instead of a
 * job per inbox: the outbox messages Fedify hands the queue for one send,
 * with what they share stored once.
 */
export interface OutboxBatch {
  readonly type: typeof OUTBOX_BATCH_TYPE;
  readonly message: SharedOutboxPart;
  readonly inboxes: readonly BatchInbox[];
}

export function isOutboxBatch(payload: unknown): payload is OutboxBatch {
  if (typeof payload !== "object" || payload === null) return false;
  const { type, message, inboxes } = payload as { type?: unknown; message?: unknown; inboxes?: unknown };
  return type === OUTBOX_BATCH_TYPE && typeof message === "object" && message !== null && Array.isArray(inboxes);
}

function isFreshOutboxMessage(message: unknown): message is OutboxMessage {
  if (typeof message !== "object" || message === null) return false;
  const candidate = message as Partial<OutboxMessage>;
  return (
    candidate.type === "outbox" &&
    typeof candidate.inbox === "string" &&
    URL.canParse(candidate.inbox) &&
    candidate.attempt === 0 &&
    candidate.orderingKey === undefined &&
    candidate.circuitHeld === undefined
  );
}

function sharedPartOf(message: OutboxMessage): SharedOutboxPart {
  const { id, inbox, sharedInbox, actorIds, headers, orderingKey, circuitHeld, circuitHeldSince, ...shared } = message;
  return shared;
}

function inboxPartOf(message: OutboxMessage): BatchInbox {
  return {
    id: message.id,
    inbox: message.inbox,
    sharedInbox: message.sharedInbox,
    ...(message.actorIds !== undefined && { actorIds: message.actorIds }),
    headers: message.headers,
  };
}

/**
 * Whether two messages are of the same send: Fedify builds a send's messages
 * from the same objects. Their `started` times may differ by the
 * milliseconds the loop took (the batch keeps the first one's: it only
 * measures how long retries went on).
 */
function sameSend(a: SharedOutboxPart, b: SharedOutboxPart): boolean {
  return (
    a.activity === b.activity &&
    a.keys === b.keys &&
    a.activityId === b.activityId &&
    a.activityType === b.activityType &&
    a.baseUrl === b.baseUrl &&
    a.traceContext === b.traceContext
  );
}

/**
 * The messages as batches of at most `size` inboxes, or null when they are
 * not the first attempts of one send to several inboxes without an ordering
 * (those are queued one job per message, as Fedify made them).
 */
export function batchOutboxMessages(messages: readonly unknown[], size: number): OutboxBatch[] | null {
  const first = messages[0];
  if (messages.length < 2 || !isFreshOutboxMessage(first)) return null;
  const shared = sharedPartOf(first);
  const inboxes: BatchInbox[] = [];
  for (const message of messages) {
    if (!isFreshOutboxMessage(message) || !sameSend(shared, sharedPartOf(message))) return null;
    inboxes.push(inboxPartOf(message));
  }
  const batches: OutboxBatch[] = [];
  for (let start = 0; start < inboxes.length; start += size) {
    batches.push({ type: OUTBOX_BATCH_TYPE, message: shared, inboxes: inboxes.slice(start, start + size) });
  }
  return batches;
}

/** The outbox message Fedify made for each of these inboxes of the batch. */
export function outboxMessagesOf(batch: OutboxBatch, inboxes: readonly BatchInbox[]): OutboxMessage[] {
  return inboxes.map((inbox) => ({ ...batch.message, ...inbox }));
}
