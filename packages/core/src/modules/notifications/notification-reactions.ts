import {
  ancestorIds,
  loadNotifiedStatus,
  rebloggersOf,
  notifiedMentions,
  pollAudience,
  readersWhoMaySee,
  subscribedFollowers,
  subscribersOf,
  type NotifiedStatus,
} from "./notification-audiences-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents, NewPost } from "../../platform/events/domain-events.js";
import { firstLocalFollowers } from "../timelines/new-status-followers.js";
import type { NotificationService } from "./notification-service.js";
import { localQuotesOf } from "../statuses/quotes-store.js";

/** How far up a thread a new reply looks for subscriptions. */
const SUBSCRIPTION_DEPTH = 64;

/** Writes notifications in reaction to domain events. */
export function reactForNotifications(events: DomainEvents, notifications: NotificationService, deps: Pick<ServiceDeps, "storage">): void {
  const db = deps.storage.db;

  async function onStatusCreated(statusId: string, accountId: string, post: NewPost | undefined): Promise<void> {
    const status = post ? notifiedStatusOf(statusId, accountId, post) : await loadNotifiedStatus(db, statusId);
    if (!status) return;
    if (status.reblogOfId !== null) {
      if (status.reblogAuthorId) {
        await notifications.notify({
          recipientId: status.reblogAuthorId,
          fromAccountId: status.accountId,
          type: "reblog",
          statusId: status.reblogOfId,
        });
      }
      return;
    }
    // A status that mentions nobody has no mentions to read.
    if (!post || post.mentionedAccountIds.length > 0) {
      await notifications.notifyMany(await notifiedMentions(db, status.id), status.accountId, "mention", status.id);
    }
    await notifySubscribers(status, post);
  }

  /** Local followers of the author with `notify`: from the followers fan-out reads too, when those were all of them. */
  async function followersNotified(authorId: string, post: NewPost | undefined): Promise<readonly string[]> {
    const first = await firstLocalFollowers(db, authorId, post);
    if (!first.complete) return subscribedFollowers(db, authorId);
    return first.followers.filter((follower) => follower.notify).map((follower) => follower.accountId);
  }

  /** Followers with `notify` hear of top-level statuses and self-replies; thread subscribers hear of replies under the statuses they follow. */
  async function notifySubscribers(status: NotifiedStatus, post: NewPost | undefined): Promise<void> {
    const recipients = new Set<string>();
    const replyToOther = status.inReplyToAccountId !== null && status.inReplyToAccountId !== status.accountId;
    if (status.visibility !== "direct" && !replyToOther)
      for (const id of await followersNotified(status.accountId, post)) recipients.add(id);
    if (status.inReplyToId !== null) {
      for (const id of await subscribersOf(db, await ancestorIds(db, status.inReplyToId, SUBSCRIPTION_DEPTH))) recipients.add(id);
    }
    const allowed = await readersWhoMaySee(db, status, [...recipients]);
    await notifications.notifyMany(
      [...recipients].filter((id) => allowed.has(id)),
      status.accountId,
      "status",
      status.id,
    );
  }

  events.on("status.created", (event) => onStatusCreated(event.statusId, event.accountId, event.post ?? event.remoteStatus));
  events.on("status.updated", async (event) => {
    await notifications.notifyMany(await rebloggersOf(db, event.statusId), event.accountId, "update", event.statusId);
    // Those whose statuses quote it hear of the edit, each about their own quote (Mastodon 4.5's `quoted_update`).
    for (const quote of await localQuotesOf(db, event.statusId)) {
      await notifications.notify({ recipientId: quote.account_id, fromAccountId: event.accountId, type: "quoted_update", statusId: quote.id });
    }
  });
  events.on("quote.created", async (event) => {
    if (event.state !== "accepted") return;
    await notifications.notify({ recipientId: event.quotedAccountId, fromAccountId: event.accountId, type: "quote", statusId: event.statusId });
  });
  events.on("favourite.created", async (event) => {
    // The statement that stored the favourite wrote its author's notification, where it reached them.
    if (event.notificationId !== undefined && event.statusAccountId !== undefined) {
      if (event.notificationId !== null) await notifications.announce(event.statusAccountId, event.notificationId);
      return;
    }
    const recipientId = event.statusAccountId ?? (await loadNotifiedStatus(db, event.statusId))?.accountId;
    if (!recipientId) return;
    await notifications.notify({ recipientId, fromAccountId: event.accountId, type: "favourite", statusId: event.statusId });
  });
  events.on("follow.created", async (event) => {
    if (await notifications.settleFollowRequest(event.targetAccountId, event.accountId)) return;
    await notifications.notify({ recipientId: event.targetAccountId, fromAccountId: event.accountId, type: "follow" });
  });
  events.on("follow.rejected", async (event) => {
    await notifications.settleFollowRequest(event.targetAccountId, event.accountId);
  });
  // A follow or request taken back takes its notification in the transaction that takes it (`deleteFollowNotifications`).
  events.on("follow.requested", async (event) => {
    await notifications.notify({ recipientId: event.targetAccountId, fromAccountId: event.accountId, type: "follow_request" });
  });
  events.on("poll.closed", async (event) => {
    const { authorId, voters } = await pollAudience(db, event.pollId);
    if (authorId === null) return;
    await notifications.notifyMany(voters, authorId, "poll", event.statusId);
    await notifications.notify(
      { recipientId: authorId, fromAccountId: authorId, type: "poll", statusId: event.statusId },
      { allowSelf: true },
    );
  });
}

function notifiedStatusOf(statusId: string, accountId: string, post: NewPost): NotifiedStatus {
  return {
    id: statusId,
    accountId,
    visibility: post.visibility,
    inReplyToId: post.inReplyToId,
    inReplyToAccountId: post.inReplyToAccountId,
    reblogOfId: null,
    reblogAuthorId: null,
  };
}
