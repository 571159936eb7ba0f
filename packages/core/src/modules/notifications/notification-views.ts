import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { GroupedNotificationsEntity, NotificationEntity, NotificationGroupEntity } from "../../mastodon/entities/notification.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import { type JsonPieces, type JsonText, type JsonTexts, appendText } from "../../platform/http/json-text.js";
import type { FilterService } from "../filters/filter-service.js";
import type { AccountRenderer, StatusViews } from "../statuses/status-views.js";
import { renderFiltered } from "../timelines/apply-filters.js";
import type { NotificationGroup } from "./notification-groups.js";
import type { AccountVersionRow } from "../accounts/accounts-store.js";
import type { NotificationRecord } from "./notification-service.js";

/**
 * More fields for the notifications of some types, from the module that
 * makes them (the group of a `group.*` notification): by notification id,
 * what to add to each entity.
 */
/** What an extension is told of a notification: which one, and its type (a v2 group's most recent notification stands for the group). */
export type ExtendedRecord = Pick<NotificationRecord, "id" | "type">;

export interface NotificationExtension {
  readonly types: ReadonlySet<string>;
  fields(records: readonly ExtendedRecord[], viewerId: string): Promise<ReadonlyMap<string, Readonly<Record<string, unknown>>>>;
}

/**
 * Renders notifications for their recipient in batches: one account render
 * and one status render per page, beside the recipient's `notifications`
 * filters. A notification about a post the recipient may no longer see, or
 * that a `hide` filter matches, is left out.
 */
export class NotificationViews {
  readonly #extensions: NotificationExtension[] = [];

  /** Adds the fields an extension gives to the notifications of its types. */
  extend(extension: NotificationExtension): void {
    this.#extensions.push(extension);
  }

  /** Each extended notification's added fields, one call per extension that has records on the page. */
  async #extraFields(records: readonly ExtendedRecord[], viewerId: string): Promise<Map<string, Readonly<Record<string, unknown>>>> {
    const extra = new Map<string, Readonly<Record<string, unknown>>>();
    for (const extension of this.#extensions) {
      const own = records.filter((record) => extension.types.has(record.type));
      if (own.length === 0) continue;
      for (const [id, fields] of await extension.fields(own, viewerId)) extra.set(id, { ...extra.get(id), ...fields });
    }
    return extra;
  }

  constructor(
    private readonly statusViews: StatusViews,
    private readonly accounts: AccountRenderer,
    private readonly filters: FilterService,
  ) {}

  async #statuses(statusIds: readonly string[], viewerId: string, texts?: JsonTexts): Promise<Map<string, StatusEntity>> {
    const ids = [...new Set(statusIds)];
    if (ids.length === 0) return new Map();
    const kept = await renderFiltered(this.filters, viewerId, "notifications", () =>
      this.statusViews.renderList(ids, viewerId, texts ? { texts } : {}),
    );
    return new Map(kept.map((status) => [status.id, status]));
  }

  /** The senders of `records`, from the versions read with them when every record has its sender's. */
  #senders(records: readonly NotificationRecord[], texts?: JsonTexts): Promise<Map<string, AccountEntity>> {
    const versions = new Map<string, AccountVersionRow>();
    for (const record of records) {
      if (record.fromAccount === undefined) return this.accounts.render([...new Set(records.map((r) => r.fromAccountId))], texts);
      versions.set(record.fromAccountId, record.fromAccount);
    }
    return this.accounts.renderVersions([...versions.values()], texts);
  }

  /** With `texts`, the JSON text of each notification returned is put there too (see json-text.ts). */
  async render(records: readonly NotificationRecord[], viewerId: string, texts?: JsonTexts): Promise<NotificationEntity[]> {
    const [accounts, statuses, extra] = await Promise.all([
      this.#senders(records, texts),
      this.#statuses(
        records.flatMap((r) => (r.statusId ? [r.statusId] : [])),
        viewerId,
        texts,
      ),
      this.#extraFields(records, viewerId),
    ]);
    return records.flatMap((record) => {
      const account = accounts.get(record.fromAccountId);
      const status = record.statusId ? statuses.get(record.statusId) : null;
      if (!account || status === undefined) return [];
      const entity: NotificationEntity = {
        id: record.id,
        type: record.type,
        group_key: record.groupKey,
        created_at: record.createdAt,
        account,
        status,
        report: null,
        read_at: record.readAt,
      };
      const fields = extra.get(record.id);
      // An extended notification is written out whole, not pieced from kept texts.
      if (fields) return [{ ...entity, ...fields }];
      const accountText = texts?.get(account);
      const statusText = status === null ? "null" : texts?.get(status);
      if (texts && accountText !== undefined && statusText !== undefined)
        texts.set(entity, notificationText(entity, accountText, statusText));
      return [entity];
    });
  }

  async renderGroups(groups: readonly NotificationGroup[], viewerId: string): Promise<GroupedNotificationsEntity> {
    const accountIds = [...new Set(groups.flatMap((g) => g.sampleAccountIds))];
    const [accounts, statuses, extra] = await Promise.all([
      this.accounts.render(accountIds),
      this.#statuses(
        groups.flatMap((g) => (g.statusId ? [g.statusId] : [])),
        viewerId,
      ),
      // As v1 shows them on each notification, a group shows an extension's fields, its most recent notification's.
      this.#extraFields(
        groups.map((g) => ({ id: g.mostRecentNotificationId, type: g.type })),
        viewerId,
      ),
    ]);
    const kept = groups.filter(
      (g) => (g.statusId === null || statuses.has(g.statusId)) && g.sampleAccountIds.some((id) => accounts.has(id)),
    );
    const usedAccounts = new Set(kept.flatMap((g) => g.sampleAccountIds));
    return {
      accounts: [...usedAccounts].flatMap((id): AccountEntity[] => {
        const account = accounts.get(id);
        return account ? [account] : [];
      }),
      statuses: [...new Set(kept.flatMap((g) => (g.statusId ? [g.statusId] : [])))].flatMap((id): StatusEntity[] => {
        const status = statuses.get(id);
        return status ? [status] : [];
      }),
      notification_groups: kept.map(
        (g): NotificationGroupEntity => ({
          group_key: g.groupKey,
          notifications_count: g.notificationsCount,
          type: g.type,
          most_recent_notification_id: g.mostRecentNotificationId,
          page_min_id: g.pageMinId,
          page_max_id: g.pageMaxId,
          latest_page_notification_at: g.latestPageNotificationAt,
          sample_account_ids: g.sampleAccountIds.filter((id) => accounts.has(id)),
          status_id: g.statusId,
          report: null,
          ...extra.get(g.mostRecentNotificationId),
        }),
      ),
    };
  }
}

/** A notification's JSON text from its account's and status's texts, in the entity's key order. */
function notificationText(entity: NotificationEntity, accountText: JsonText, statusText: JsonText): JsonPieces {
  const { id, type, group_key, created_at, report, read_at } = entity;
  const before = JSON.stringify({ id, type, group_key, created_at });
  const after = JSON.stringify({ report, read_at });
  const pieces: (string | Uint8Array)[] = [`${before.slice(0, -1)},"account":`];
  appendText(pieces, accountText);
  pieces.push(',"status":');
  appendText(pieces, statusText);
  pieces.push(`,${after.slice(1)}`);
  return pieces;
}
