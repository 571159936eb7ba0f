import { sql } from "kysely";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { StatusEditEntity, StatusEntity } from "../../mastodon/entities/status.js";
import { parseJsonArray } from "../../mastodon/serializers/status.js";
import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import { ancestorIds, descendantIds } from "./statuses-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { StatusInteractions } from "./status-interactions.js";
import type { StatusService } from "./status-service.js";
import type { AccountRenderer, StatusMediaRenderer, StatusViews } from "./status-views.js";
import { visibleTo } from "./visibility-store.js";
import { normalizeTag } from "./text-formatter.js";

/** Mastodon's limits on a thread: ancestors shown, descendants shown. */
export const MAX_ANCESTORS = 40;
export const MAX_DESCENDANTS = 4096;

/** One page of a list whose cursor ids are not the ids of what it lists (favourites, bookmarks, pins). */
export interface CursorPage<T> {
  readonly items: readonly T[];
  /** The ids of the rows the page was read from, newest first: what `Link` headers page by. */
  readonly cursors: readonly string[];
}

export interface ThreadIds {
  readonly ancestors: readonly string[];
  readonly descendants: readonly string[];
  readonly highlights: readonly string[];
}

export interface AccountStatusesQuery {
  readonly pinned?: boolean;
  readonly excludeReplies?: boolean;
  readonly excludeReblogs?: boolean;
  readonly onlyMedia?: boolean;
  readonly tagged?: string;
}

/** Fetches the replies of a remote status from its server in the background (bound by the federation). */
export interface RemoteRepliesFetcher {
  /** Queues the fetch unless the status is local or its replies were fetched a short while ago; never waits for it. */
  fetchLater(statusId: string): Promise<void>;
}

/**
 * Reading statuses: threads, who boosted and favourited, a reader's bookmarks
 * and favourites, an account's statuses, edit history and source. Visibility
 * is applied by StatusViews (or `visibleTo` in SQL) on every list.
 */
export class StatusQueries {
  #remoteReplies: RemoteRepliesFetcher | null = null;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly statuses: StatusService,
    private readonly interactions: StatusInteractions,
    private readonly views: StatusViews,
    private readonly accounts: AccountRenderer,
    private readonly media: StatusMediaRenderer,
  ) {}

  /** Lets a thread of a remote status have its replies fetched from its server. */
  useRemoteReplies(fetcher: RemoteRepliesFetcher): void {
    this.#remoteReplies = fetcher;
  }

  /**
   * A status's thread around it, for the viewer: ancestors oldest first, descendants depth first, the root's highlights.
   * The replies of a remote status are fetched in the background: a later call shows them.
   */
  async context(
    statusId: string,
    viewerId: string | null,
  ): Promise<{ ancestors: StatusEntity[]; descendants: StatusEntity[]; highlights: StatusEntity[] }> {
    const status = await this.statuses.findVisible(statusId, viewerId);
    const db = this.deps.storage.db;
    if (!readFlag(status.local)) await this.#remoteReplies?.fetchLater(status.id);
    const ids = await this.threadIds(status.id);
    let descendants = ids.descendants;
    if (viewerId !== null && descendants.length > 0) {
      // Replies by accounts the viewer mutes are left out of threads, as Mastodon does.
      const muted = await db
        .selectFrom("statuses")
        .innerJoin("mutes", (join) =>
          join.onRef("mutes.target_account_id", "=", "statuses.account_id").on("mutes.account_id", "=", viewerId),
        )
        .select("statuses.id")
        .where("statuses.id", "in", descendants)
        .where((eb) => eb.or([eb("mutes.expires_at", "is", null), eb("mutes.expires_at", ">", this.deps.clock.now().toISOString())]))
        .execute();
      const hidden = new Set(muted.map((row) => row.id));
      descendants = descendants.filter((id) => !hidden.has(id));
    }
    const rendered = await this.views.render([...ids.ancestors, ...descendants, ...ids.highlights], viewerId);
    const pick = (list: readonly string[]) => list.flatMap((id) => (rendered.has(id) ? [rendered.get(id) as StatusEntity] : []));
    return { ancestors: pick(ids.ancestors), descendants: pick(descendants), highlights: pick(ids.highlights) };
  }

  /** The ids around a status (no visibility applied). */
  async threadIds(statusId: string): Promise<ThreadIds> {
    const db = this.deps.storage.db;
    const [up, down] = await Promise.all([ancestorIds(db, statusId, MAX_ANCESTORS), descendantIds(db, statusId, MAX_DESCENDANTS)]);
    const rootId = up.length > 0 ? await this.interactions.rootOf(statusId) : statusId;
    const highlights = await db
      .selectFrom("status_highlights")
      .select("status_id")
      .where("root_status_id", "=", rootId)
      .orderBy("id")
      .execute();
    return { ancestors: [...up].reverse(), descendants: down, highlights: highlights.map((row) => row.status_id) };
  }

  /** Accounts that boosted a status, newest first, paged by the boosts' ids. */
  async rebloggedBy(statusId: string, viewerId: string | null, page: PageRequest): Promise<CursorPage<AccountEntity>> {
    const status = await this.statuses.findVisible(statusId, viewerId);
    const rows = await fetchIdPage(
      this.deps.storage.db
        .selectFrom("statuses")
        .select(["statuses.id", "statuses.account_id"])
        .where("statuses.reblog_of_id", "=", status.id)
        .where(visibleTo(viewerId, "statuses", this.deps.storage.db)),
      "statuses.id",
      page,
    );
    return this.#accountsPage(rows.map((row) => ({ cursor: row.id, accountId: row.account_id })));
  }

  /** Accounts that favourited a status, newest first, paged by the favourites' ids. */
  async favouritedBy(statusId: string, viewerId: string | null, page: PageRequest): Promise<CursorPage<AccountEntity>> {
    const status = await this.statuses.findVisible(statusId, viewerId);
    const rows = await fetchIdPage(
      this.deps.storage.db
        .selectFrom("favourites")
        .innerJoin("accounts", "accounts.id", "favourites.account_id")
        .select(["favourites.id", "favourites.account_id"])
        .where("favourites.status_id", "=", status.id)
        .where("accounts.suspended_at", "is", null),
      "favourites.id",
      page,
    );
    return this.#accountsPage(rows.map((row) => ({ cursor: row.id, accountId: row.account_id })));
  }

  async #accountsPage(rows: readonly { cursor: string; accountId: string }[]): Promise<CursorPage<AccountEntity>> {
    const accounts = await this.accounts.render(rows.map((row) => row.accountId));
    return {
      items: rows.flatMap((row) => {
        const account = accounts.get(row.accountId);
        return account ? [account] : [];
      }),
      cursors: rows.map((row) => row.cursor),
    };
  }

  async #statusesPage(viewerId: string, rows: readonly { cursor: string; statusId: string }[]): Promise<CursorPage<StatusEntity>> {
    const rendered = await this.views.render(
      rows.map((row) => row.statusId),
      viewerId,
    );
    return {
      items: rows.flatMap((row) => {
        const status = rendered.get(row.statusId);
        return status ? [status] : [];
      }),
      cursors: rows.map((row) => row.cursor),
    };
  }

  async bookmarks(accountId: string, page: PageRequest): Promise<CursorPage<StatusEntity>> {
    const rows = await fetchIdPage(
      this.deps.storage.db.selectFrom("bookmarks").select(["id", "status_id"]).where("account_id", "=", accountId),
      "id",
      page,
    );
    return this.#statusesPage(
      accountId,
      rows.map((row) => ({ cursor: row.id, statusId: row.status_id })),
    );
  }

  async favourites(accountId: string, page: PageRequest): Promise<CursorPage<StatusEntity>> {
    const rows = await fetchIdPage(
      this.deps.storage.db.selectFrom("favourites").select(["id", "status_id"]).where("account_id", "=", accountId),
      "id",
      page,
    );
    return this.#statusesPage(
      accountId,
      rows.map((row) => ({ cursor: row.id, statusId: row.status_id })),
    );
  }

  /** An account's statuses as the viewer may see them, with Mastodon's filters. */
  async accountStatuses(
    accountId: string,
    viewerId: string | null,
    query: AccountStatusesQuery,
    page: PageRequest,
  ): Promise<StatusEntity[]> {
    const db = this.deps.storage.db;
    const account = await db.selectFrom("accounts").select(["id", "suspended_at"]).where("id", "=", accountId).executeTakeFirst();
    if (!account || account.suspended_at !== null) throw new KithError("account.not_found");
    if (query.pinned) {
      const pins = await fetchIdPage(
        db
          .selectFrom("status_pins")
          .innerJoin("statuses", "statuses.id", "status_pins.status_id")
          .select(["status_pins.id", "status_pins.status_id"])
          .where("status_pins.account_id", "=", accountId)
          .where(visibleTo(viewerId, "statuses", db)),
        "status_pins.id",
        page,
      );
      return this.views.renderList(
        pins.map((pin) => pin.status_id),
        viewerId,
      );
    }
    let q = db
      .selectFrom("statuses")
      .select("statuses.id")
      .where("statuses.account_id", "=", accountId)
      .where(visibleTo(viewerId, "statuses", db));
    if (query.excludeReplies) {
      // Replies to oneself (threads) stay, as Mastodon keeps them.
      q = q.where((eb) => eb.or([eb("statuses.in_reply_to_id", "is", null), eb("statuses.in_reply_to_account_id", "=", accountId)]));
    }
    if (query.excludeReblogs || query.onlyMedia || query.tagged) q = q.where("statuses.reblog_of_id", "is", null);
    if (query.onlyMedia) {
      q = q.where(sql<boolean>`exists (select 1 from media_attachments ma where ma.status_id = statuses.id)`);
    }
    if (query.tagged) {
      const tag = normalizeTag(query.tagged.replace(/^#/, ""));
      q = q.where(
        sql<boolean>`exists (select 1 from status_tags st join tags t on t.id = st.tag_id where st.status_id = statuses.id and t.name = ${tag})`,
      );
    }
    const rows = await fetchIdPage(q, "statuses.id", page);
    return this.views.renderList(
      rows.map((row) => row.id),
      viewerId,
    );
  }

  /** Every version of a status, oldest first; a status never edited has one, itself. */
  async history(statusId: string, viewerId: string | null): Promise<StatusEditEntity[]> {
    const status = await this.statuses.findVisible(statusId, viewerId);
    if (status.reblog_of_id) throw new KithError("status.not_found");
    const db = this.deps.storage.db;
    const [edits, accounts, media] = await Promise.all([
      db.selectFrom("status_edits").selectAll().where("status_id", "=", status.id).orderBy("id").execute(),
      this.accounts.render([status.account_id]),
      this.media.renderForStatuses([status.id]),
    ]);
    const account = accounts.get(status.account_id);
    if (!account) throw new KithError("status.not_found");
    const poll = await db.selectFrom("polls").select("options").where("status_id", "=", status.id).executeTakeFirst();
    const mediaById = new Map((media.get(status.id) ?? []).map((item) => [item.id, item]));
    const versions =
      edits.length > 0
        ? edits.map((edit) => ({
            content: edit.content,
            spoiler_text: edit.spoiler_text,
            sensitive: readFlag(edit.sensitive),
            created_at: edit.created_at,
            mediaIds: parseJsonArray<string>(edit.media_ids),
            pollOptions: edit.poll_options === null ? null : parseJsonArray<string>(edit.poll_options),
          }))
        : [
            {
              content: status.content,
              spoiler_text: status.spoiler_text,
              sensitive: readFlag(status.sensitive),
              created_at: status.created_at,
              mediaIds: [...mediaById.keys()],
              pollOptions: poll ? parseJsonArray<string>(poll.options) : null,
            },
          ];
    return versions.map((version) => ({
      content: version.content,
      spoiler_text: version.spoiler_text,
      sensitive: version.sensitive,
      created_at: version.created_at,
      account,
      poll: version.pollOptions ? { options: version.pollOptions.map((title) => ({ title })) } : null,
      media_attachments: version.mediaIds.flatMap((id) => {
        const item = mediaById.get(id);
        return item ? [item] : [];
      }),
      emojis: [],
      quote: null,
    }));
  }

  /** The plain-text source of a status, for its edit form. */
  async source(statusId: string, viewerId: string): Promise<{ id: string; text: string; spoiler_text: string }> {
    const status = await this.statuses.findVisible(statusId, viewerId);
    // Only the author edits, so only the author reads the source; others get 404 as on Mastodon.
    if (status.account_id !== viewerId || status.reblog_of_id !== null) throw new KithError("status.not_found");
    return { id: status.id, text: status.text, spoiler_text: status.spoiler_text };
  }
}
