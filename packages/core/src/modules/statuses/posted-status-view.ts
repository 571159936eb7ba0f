import type { StatusEntity } from "../../mastodon/entities/status.js";
import { shortcodesIn } from "../../mastodon/serializers/custom-emoji.js";
import { serializeMention, serializeTag } from "../../mastodon/serializers/status.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import { loadMentions } from "./status-view-loads-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { AccountViews } from "../accounts/account-views.js";
import type { Posted } from "./status-service.js";
import { type StatusViews, inTextOrder, statusEntityOf } from "./status-views.js";
import { quoteApprovalOf, quoteDecision } from "./quote-policy.js";

/**
 * The answer to a new status, rendered from what was just written instead of
 * read back: the status's and its author's rows came back from their writes,
 * its tags and application are known, and nobody can have favourited,
 * boosted, bookmarked or pinned it yet, nor muted its new conversation. The
 * entity is the one `StatusViews` renders for the same status (a test compares
 * them). Statuses with media, a poll, a parent (whose conversation the author
 * may have muted), a quote or a custom emoji's shortcode are rendered by
 * `StatusViews`: they are rarer, and each needs its reads anyway.
 */
export class PostedStatusView {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "config">,
    private readonly accounts: AccountViews,
    private readonly views: StatusViews,
  ) {}

  /** The status for its author; null when it is gone (an earlier status of an idempotency key may be). */
  async render(posted: Posted): Promise<StatusEntity | null> {
    const written = posted.written;
    const row = written?.row;
    const plain = written && row && !written.hasMedia && !written.hasPoll && row.in_reply_to_id === null && row.quote_uri === null;
    if (!written || !row || !plain || shortcodesIn([row.spoiler_text, row.text]).length > 0) {
      return this.views.renderOne(posted.id, posted.accountId);
    }
    const origin = this.deps.config.origin;
    const [accounts, mentions] = await Promise.all([
      this.accounts.renderLoaded([written.author]),
      written.mentionIds.length > 0 ? loadMentions(this.deps.storage.db, [row.id]) : Promise.resolve([]),
    ]);
    const account = accounts.get(written.author.id);
    if (!account) return null;
    return {
      ...statusEntityOf(row, account, origin, {
        media: [],
        application: written.application && readFlag(row.local) ? { ...written.application } : null,
        mentions: inTextOrder(row, mentions).map((mention) => serializeMention(origin, mention)),
        tags: written.tagNames.map((name) => serializeTag(origin, name)),
        poll: null,
        text: null,
        quoteApproval: quoteApprovalOf(row.quote_policy, quoteDecision({ ...row, local: true }, { accountId: row.account_id, follows: false })),
      }),
      favourited: false,
      reblogged: false,
      muted: false,
      bookmarked: false,
      pinned: false,
    };
  }
}
