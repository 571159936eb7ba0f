import type { Kysely } from "kysely";
import type { PubSub } from "../../ports/pubsub.js";
import type { Database } from "../../ports/storage-schema.js";
import type { DomainEvents, NewPost } from "../../platform/events/domain-events.js";
import { type StreamMessage, streamChannels } from "./channels.js";
import { publicStreamFacts } from "./stream-audience-store.js";

/**
 * Feeds the public and hashtag streams from domain events: a new or edited
 * public status (not a boost, as Mastodon's public timelines leave boosts out)
 * goes to `public` and to each of its hashtags. Deletions are published by
 * the timelines, once for every stream.
 */
export function publishPublicStreams(
  events: DomainEvents,
  deps: { readonly storage: { readonly db: Kysely<Database> }; readonly pubsub: PubSub },
): void {
  const load = async (statusId: string): Promise<{ visibility: string; boost: boolean; tagNames: readonly string[] } | null> => {
    const status = await publicStreamFacts(deps.storage.db, statusId);
    if (!status) return null;
    return { visibility: status.visibility, boost: status.reblogOfId !== null, tagNames: status.tagNames };
  };
  const publish = async (statusId: string, event: "update" | "status.update", post?: NewPost) => {
    const status = post ? { visibility: post.visibility, boost: false, tagNames: post.tagNames } : await load(statusId);
    if (status?.visibility !== "public" || status.boost) return;
    const message: StreamMessage = { event, statusId };
    await deps.pubsub.publish(streamChannels.public(), message);
    for (const name of status.tagNames) await deps.pubsub.publish(streamChannels.hashtag(name), message);
  };
  events.on("status.created", (event) => publish(event.statusId, "update", event.post ?? event.remoteStatus));
  events.on("status.updated", (event) => publish(event.statusId, "status.update"));
}
