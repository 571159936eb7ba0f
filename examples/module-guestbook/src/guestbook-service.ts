import { type AccountEntity, KithError, type KithServices, type PageRequest, type ServiceDeps } from "@kith/core";
import { guestbookErrors, guestbookIds } from "./guestbook-ids.js";
import type { GuestbookEntryRow, GuestbookStore } from "./guestbook-store.js";

/** A guestbook entry as clients get it. */
export interface GuestbookEntryEntity {
  readonly id: string;
  readonly text: string;
  readonly created_at: string;
  /** The author, rendered as Mastodon's Account entity. */
  readonly account: AccountEntity;
}

export interface GuestbookOptions {
  /** Entries older than this are pruned by the module's daily job. @default 365 */
  readonly retentionDays?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Signing, reading and deleting guestbook entries of local accounts. */
export class GuestbookService {
  readonly retentionDays: number;

  constructor(
    private readonly deps: Pick<ServiceDeps, "ids" | "clock">,
    private readonly core: Pick<KithServices, "accounts" | "accountViews" | "relationships">,
    private readonly store: GuestbookStore,
    options: GuestbookOptions = {},
  ) {
    this.retentionDays = options.retentionDays ?? 365;
  }

  async sign(authorAccountId: string, ownerAccountId: string, text: string): Promise<GuestbookEntryEntity> {
    // Only local accounts have a guestbook: an unknown or remote owner is not found.
    await this.core.accounts.findById(ownerAccountId);
    if (ownerAccountId === authorAccountId) throw new KithError(guestbookErrors["guestbook.own_guestbook"]);
    const relationship = await this.core.relationships.relationship(authorAccountId, ownerAccountId);
    if (relationship.blocked_by) throw new KithError(guestbookErrors["guestbook.blocked"]);
    const row: GuestbookEntryRow = {
      id: this.deps.ids.next(guestbookIds.guestbookEntry),
      owner_account_id: ownerAccountId,
      author_account_id: authorAccountId,
      text,
      created_at: this.deps.clock.now().toISOString(),
    };
    await this.store.insert(row);
    const [entry] = await this.render([row]);
    if (!entry) throw new KithError("account.not_found");
    return entry;
  }

  async list(ownerAccountId: string, page: PageRequest): Promise<GuestbookEntryEntity[]> {
    await this.core.accounts.findById(ownerAccountId);
    return this.render(await this.store.page(ownerAccountId, page.limit, page.maxId));
  }

  /** Deletes an entry; its author and the guestbook's owner may. */
  async remove(callerAccountId: string, entryId: string): Promise<void> {
    const entry = await this.store.find(entryId);
    if (!entry) throw new KithError(guestbookErrors["guestbook.entry_not_found"]);
    if (callerAccountId !== entry.author_account_id && callerAccountId !== entry.owner_account_id) {
      throw new KithError(guestbookErrors["guestbook.not_yours"]);
    }
    await this.store.delete(entryId);
  }

  /** What a blocked account wrote in its blocker's guestbook goes with the block. */
  async forgetBlocked(ownerAccountId: string, blockedAccountId: string): Promise<number> {
    return this.store.deleteByAuthor(ownerAccountId, blockedAccountId);
  }

  /** Deletes entries past the retention; how many. */
  async prune(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - this.retentionDays * DAY_MS).toISOString();
    return this.store.deleteOlderThan(before);
  }

  /** Entries with their authors, rendered in one batch; an entry whose author is gone is left out. */
  private async render(rows: readonly GuestbookEntryRow[]): Promise<GuestbookEntryEntity[]> {
    const accounts = await this.core.accountViews.render([...new Set(rows.map((row) => row.author_account_id))]);
    return rows.flatMap((row) => {
      const account = accounts.get(row.author_account_id);
      return account ? [{ id: row.id, text: row.text, created_at: row.created_at, account }] : [];
    });
  }
}
