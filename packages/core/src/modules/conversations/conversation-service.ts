import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import {
  type ConversationRecord,
  conversationsEndingWith,
  deleteConversation,
  findConversation,
  findConversationOf,
  insertConversation,
  latestDirectStatus,
  loadDirectStatus,
  mentionedAccounts,
  pageConversations,
  updateConversation,
} from "./conversations-store.js";
import { readersHiding } from "../timelines/fan-out-store.js";
import type { ServiceDeps } from "../service-deps.js";
import { streamChannels } from "../streaming/channels.js";

export type { ConversationRecord };

/**
 * Direct conversations: each local participant of a direct status has a row
 * per thread (Mastodon's AccountConversation) holding the other
 * participants, the last status and whether it is unread.
 */
export class ConversationService {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "pubsub">) {}

  /** A direct status was written: every local participant's conversation moves to it. */
  async onStatusCreated(statusId: string): Promise<void> {
    const db = this.deps.storage.db;
    const status = await loadDirectStatus(db, statusId);
    if (status?.visibility !== "direct") return;
    const mentioned = await mentionedAccounts(db, statusId);
    const everyone = [...new Set([status.accountId, ...mentioned.map((m) => m.accountId)])];
    const local = [...(status.authorLocal ? [status.accountId] : []), ...mentioned.filter((m) => m.local).map((m) => m.accountId)];
    const recipients = local.filter((id) => id !== status.accountId);
    const hiding = await readersHiding(db, recipients, [status.accountId], [], this.deps.clock.now().toISOString());
    const at = this.deps.clock.now().toISOString();
    for (const accountId of new Set(local)) {
      if (hiding.has(accountId)) continue;
      const others = everyone.filter((id) => id !== accountId);
      const unread = accountId !== status.accountId;
      const existing = await findConversationOf(db, accountId, status.conversationId);
      let id: string;
      if (existing) {
        id = existing.id;
        const participantIds = [...new Set([...existing.participantIds, ...others])];
        await updateConversation(db, { ...existing, participantIds, lastStatusId: status.id, unread: unread || existing.unread }, at);
      } else {
        id = this.deps.ids.next("accountConversation");
        await insertConversation(
          db,
          { id, accountId, conversationId: status.conversationId, participantIds: others, lastStatusId: status.id, unread },
          at,
        );
      }
      await this.deps.pubsub.publish(streamChannels.direct(accountId), { event: "conversation", conversationId: id });
    }
  }

  /** A direct status was deleted: conversations that ended with it fall back to the thread's previous direct status. */
  async onStatusDeleted(statusId: string): Promise<void> {
    const db = this.deps.storage.db;
    const at = this.deps.clock.now().toISOString();
    for (const conversation of await conversationsEndingWith(db, statusId)) {
      const previous = await latestDirectStatus(db, conversation.conversationId, statusId);
      if (previous === null) await deleteConversation(db, conversation.id);
      else await updateConversation(db, { ...conversation, lastStatusId: previous }, at);
    }
  }

  list(accountId: string, page: PageRequest): Promise<ConversationRecord[]> {
    return pageConversations(this.deps.storage.db, accountId, page);
  }

  /** The caller's conversation; 404 for anyone else's. */
  async get(accountId: string, id: string): Promise<ConversationRecord> {
    const conversation = await findConversation(this.deps.storage.db, id);
    if (!conversation || conversation.accountId !== accountId) throw new KithError("conversation.not_found");
    return conversation;
  }

  /** Removes the conversation from the caller's list (the statuses stay). */
  async remove(accountId: string, id: string): Promise<void> {
    await this.get(accountId, id);
    await deleteConversation(this.deps.storage.db, id);
  }

  async markRead(accountId: string, id: string): Promise<ConversationRecord> {
    return this.#setUnread(accountId, id, false);
  }

  async markUnread(accountId: string, id: string): Promise<ConversationRecord> {
    return this.#setUnread(accountId, id, true);
  }

  async #setUnread(accountId: string, id: string, unread: boolean): Promise<ConversationRecord> {
    const conversation = await this.get(accountId, id);
    const changed = { ...conversation, unread };
    await updateConversation(this.deps.storage.db, changed, this.deps.clock.now().toISOString());
    return changed;
  }
}
