import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { ConversationEntity } from "../../mastodon/entities/conversation.js";
import type { AccountRenderer, StatusViews } from "../statuses/status-views.js";
import type { ConversationRecord } from "./conversation-service.js";

/** Renders conversations in batches: one account render and one status render per page. */
export class ConversationViews {
  constructor(
    private readonly statusViews: StatusViews,
    private readonly accounts: AccountRenderer,
  ) {}

  async render(records: readonly ConversationRecord[], viewerId: string): Promise<ConversationEntity[]> {
    const [accounts, statuses] = await Promise.all([
      this.accounts.render([...new Set(records.flatMap((r) => r.participantIds))]),
      this.statusViews.render(
        records.flatMap((r) => (r.lastStatusId ? [r.lastStatusId] : [])),
        viewerId,
      ),
    ]);
    return records.map((record) => ({
      id: record.id,
      unread: record.unread,
      accounts: record.participantIds.flatMap((id): AccountEntity[] => {
        const account = accounts.get(id);
        return account ? [account] : [];
      }),
      last_status: record.lastStatusId ? (statuses.get(record.lastStatusId) ?? null) : null,
    }));
  }
}
