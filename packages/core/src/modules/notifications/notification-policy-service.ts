import { KithError } from "../../domain/errors.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { ServiceDeps } from "../service-deps.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import {
  type NotificationPolicyValues,
  type NotificationRequestRow,
  acceptRequests,
  dismissRequests,
  pageRequests,
  pendingCounts,
  readPolicy,
  sendersWithRequests,
  writePolicy,
} from "./notification-requests-store.js";
import type { NotificationViews } from "./notification-views.js";

export type { NotificationPolicyValues };

/** A notification policy with its summary: Mastodon's NotificationPolicy (v2). */
export interface NotificationPolicyView extends NotificationPolicyValues {
  readonly summary: { readonly pending_requests_count: number; readonly pending_notifications_count: number };
}

/** Mastodon's NotificationRequest: the notifications held back from one account, named by that account's id. */
export interface NotificationRequestEntity {
  readonly id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly account: AccountEntity;
  /** A string, as Mastodon gives it. */
  readonly notifications_count: string;
  readonly last_status?: StatusEntity;
}

/** A page of requests, with the ids it pages by (those of their newest notifications) for the `Link` header. */
export interface NotificationRequestPage {
  readonly requests: readonly NotificationRequestEntity[];
  readonly pageIds: readonly string[];
}

/** Most senders one bulk accept or dismiss takes. */
export const MAX_BULK_REQUESTS = 100;

/**
 * Notification policies and requests (Mastodon 4.3): each account's policy
 * (see notification-policy.ts) is applied where a notification's recipients
 * are found; what it filters waits here, one request per sender, until the
 * recipient accepts it (the sender's notifications come through from then
 * on) or dismisses it (they are forgotten).
 */
export class NotificationPolicyService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly views: NotificationViews,
  ) {}

  async policy(accountId: string): Promise<NotificationPolicyView> {
    const db = this.deps.storage.db;
    const [values, counts] = await Promise.all([readPolicy(db, accountId), pendingCounts(db, accountId)]);
    return { ...values, summary: { pending_requests_count: counts.requests, pending_notifications_count: counts.notifications } };
  }

  /** Changes the values given; the others stay. */
  async changePolicy(accountId: string, change: Partial<NotificationPolicyValues>): Promise<NotificationPolicyView> {
    const db = this.deps.storage.db;
    const current = await readPolicy(db, accountId);
    const next: NotificationPolicyValues = { ...current };
    for (const [column, value] of Object.entries(change)) if (value !== undefined) Object.assign(next, { [column]: value });
    await writePolicy(db, accountId, next, this.deps.clock.now().toISOString());
    return this.policy(accountId);
  }

  async requests(
    accountId: string,
    page: { limit: number; maxId?: string | undefined; sinceId?: string | undefined },
  ): Promise<NotificationRequestPage> {
    const rows = await pageRequests(this.deps.storage.db, accountId, page);
    return { requests: await this.#render(rows, accountId), pageIds: rows.map((row) => row.last.id) };
  }

  async request(accountId: string, fromAccountId: string): Promise<NotificationRequestEntity> {
    const rows = await pageRequests(this.deps.storage.db, accountId, { limit: 1, fromAccountId });
    const [entity] = await this.#render(rows, accountId);
    if (!entity) throw new KithError("notification_request.not_found");
    return entity;
  }

  async accept(accountId: string, fromAccountId: string): Promise<void> {
    await this.#mustHave(accountId, fromAccountId);
    await acceptRequests(this.deps.storage.db, accountId, [fromAccountId], this.deps.clock.now().toISOString());
  }

  async dismiss(accountId: string, fromAccountId: string): Promise<void> {
    await this.#mustHave(accountId, fromAccountId);
    await dismissRequests(this.deps.storage.db, accountId, [fromAccountId]);
  }

  /** Accepts those of the requests named that there are; the others are passed over, as in Mastodon. */
  async acceptMany(accountId: string, fromAccountIds: readonly string[]): Promise<void> {
    const db = this.deps.storage.db;
    const present = [...(await sendersWithRequests(db, accountId, [...new Set(fromAccountIds)]))];
    await acceptRequests(db, accountId, present, this.deps.clock.now().toISOString());
  }

  async dismissMany(accountId: string, fromAccountIds: readonly string[]): Promise<void> {
    await dismissRequests(this.deps.storage.db, accountId, [...new Set(fromAccountIds)]);
  }

  async #mustHave(accountId: string, fromAccountId: string): Promise<void> {
    const present = await sendersWithRequests(this.deps.storage.db, accountId, [fromAccountId]);
    if (!present.has(fromAccountId)) throw new KithError("notification_request.not_found");
  }

  async #render(rows: readonly NotificationRequestRow[], viewerId: string): Promise<NotificationRequestEntity[]> {
    const rendered = await this.views.render(
      rows.map((row) => row.last),
      viewerId,
    );
    const byId = new Map(rendered.map((entity) => [entity.id, entity]));
    return rows.flatMap((row): NotificationRequestEntity[] => {
      const last = byId.get(row.last.id);
      if (!last) return [];
      return [
        {
          id: row.fromAccountId,
          created_at: row.firstAt,
          updated_at: row.lastAt,
          account: last.account,
          notifications_count: String(row.count),
          ...(last.status && { last_status: last.status }),
        },
      ];
    });
  }
}
