import type { InboxContext, Message, MessageQueue } from "@fedify/fedify";
import type { Activity } from "@fedify/fedify/vocab";

/**
 * Queues a verified incoming activity as Fedify queues one itself: an
 * "inbox" message, which the federation's queue workers hand to
 * `Federation.processQueuedTask`, running the inbox listeners again outside
 * any request (failures retried by the queue with its backoff).
 */
export function queueInboxActivity<TContextData>(
  queue: MessageQueue,
): (ctx: InboxContext<TContextData>, activity: Activity) => Promise<void> {
  return async (ctx, activity) => {
    const message: Message = {
      type: "inbox",
      id: crypto.randomUUID(),
      baseUrl: ctx.origin,
      // The activity as it was parsed (the vocabulary keeps the received document), without a signature.
      activity: await activity.toJsonLd({ contextLoader: ctx.contextLoader }),
      identifier: ctx.recipient,
      attempt: 0,
      started: new Date().toISOString(),
      traceContext: {},
    };
    await queue.enqueue(message);
  };
}
