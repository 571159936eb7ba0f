import type { ConversationService } from "../conversations/conversation-service.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";
import type { ListService } from "../lists/list-service.js";
import type { HomeFeedWriter } from "./home-feed.js";

/**
 * Keeps home feeds, lists and conversations in step with what happens:
 * statuses fan out and are withdrawn, and unfollows, blocks, mutes and domain
 * blocks take the hidden account's statuses out of the reader's feed.
 */
export function reactForTimelines(
  events: DomainEvents,
  feed: HomeFeedWriter,
  lists: ListService,
  conversations: ConversationService,
): void {
  events.on("status.created", async (event) => {
    await feed.onStatusCreated(event.statusId, event.accountId, event.post, event.remoteStatus);
    // Only direct statuses make conversations; a known visibility spares reading the post again.
    const known = event.post ?? event.remoteStatus;
    if (!known || known.visibility === "direct") await conversations.onStatusCreated(event.statusId);
  });
  events.on("status.updated", (event) => feed.onStatusUpdated(event.statusId));
  events.on("status.deleted", async (event) => {
    await feed.onStatusDeleted(event.statusId);
    if (event.visibility === "direct") await conversations.onStatusDeleted(event.statusId);
  });
  events.on("follow.created", (event) => feed.onFollowCreated(event.accountId, event.targetAccountId));
  events.on("follow.removed", async (event) => {
    await feed.removeAuthor(event.accountId, event.targetAccountId);
    await lists.dropFromOwnersLists(event.accountId, event.targetAccountId);
  });
  events.on("block.created", async (event) => {
    await feed.removeAuthor(event.accountId, event.targetAccountId);
    await feed.removeAuthor(event.targetAccountId, event.accountId);
    await lists.dropFromOwnersLists(event.accountId, event.targetAccountId);
    await lists.dropFromOwnersLists(event.targetAccountId, event.accountId);
  });
  events.on("mute.created", (event) => feed.removeAuthor(event.accountId, event.targetAccountId));
  events.on("domain_block.created", (event) => feed.removeDomain(event.accountId, event.domain));
}
