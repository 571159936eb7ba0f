import type { StatusEntity } from "../../api/entities/status.js";
import { localStatusUrls, serializeMention, serializeTag } from "../../api/serializers/status.js";
import { readFlag } from "../../storage/repositories/status-columns.js";
import { loadMentions } from "../../storage/repositories/status-view-loads.js";
import type { Visibility } from "../../storage/schema.js";
import type { ServiceDeps } from "../deps.js";
import type { AccountViews } from "../profiles/account-views.js";
import type { Posted } from "./status-service.js";
import { type StatusViews, inTextOrder } from "./status-views.js";

/**
 * The answer to a new post, rendered from what was just written instead of
 * read back: the post's and its author's rows came back from their writes,
 * its tags and application are known, and nobody can have favourited,
 * boosted, bookmarked or pinned it yet, nor muted its new conversation. The
 * entity is the one `StatusViews` renders for the same post (a test compares
 * them). Posts with media, a poll or a parent (whose conversation the author
 * may have muted) are rendered by `StatusViews`: they are rarer, and each
 * needs its reads anyway.
 */
export class PostedStatusView {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "config">,
    private readonly accounts: AccountViews,
    private readonly views: StatusViews,
  ) {}

  /** The post for its author; null when it is gone (an earlier post of an idempotency key may be). */
  async render(posted: Posted): Promise<StatusEntity | null> {
    const written = posted.written;
    const row = written?.row;
    if (!written || !row || written.hasMedia || written.hasPoll || row.in_reply_to_id !== null) {
      return this.views.renderOne(posted.id, posted.accountId);
    }
    const origin = this.deps.config.origin;
    const [accounts, mentions] = await Promise.all([
      this.accounts.renderLoaded([written.author]),
      written.mentionIds.length > 0 ? loadMentions(this.deps.storage.db, [row.id]) : Promise.resolve([]),
    ]);
    const account = accounts.get(written.author.id);
    if (!account) return null;
    const urls = localStatusUrls(origin, account.username, row.id);
    return {
      id: row.id,
      uri: row.uri ?? urls.uri,
      url: row.url ?? urls.url,
      created_at: row.created_at,
      account,
      content: row.content,
      visibility: row.visibility as Visibility,
      sensitive: readFlag(row.sensitive),
      spoiler_text: row.spoiler_text,
      media_attachments: [],
      application: written.application && readFlag(row.local) ? { ...written.application } : null,
      mentions: inTextOrder(row, mentions).map((mention) => serializeMention(origin, mention)),
      tags: written.tagNames.map((name) => serializeTag(origin, name)),
      emojis: [],
      reblogs_count: row.reblogs_count,
      favourites_count: row.favourites_count,
      replies_count: row.replies_count,
      quotes_count: 0,
      in_reply_to_id: row.in_reply_to_id,
      in_reply_to_account_id: row.in_reply_to_account_id,
      reblog: null,
      poll: null,
      card: null,
      language: row.language,
      text: null,
      edited_at: row.edited_at,
      quote: null,
      quote_approval: { automatic: [], manual: [], current_user: "denied" },
      filtered: [],
      favourited: false,
      reblogged: false,
      muted: false,
      bookmarked: false,
      pinned: false,
    };
  }
}
