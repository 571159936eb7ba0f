import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";

/** An account as an export names it. */
export interface ListedAccount {
  readonly id: string;
  readonly username: string;
  /** Null for a local account. */
  readonly domain: string | null;
}

export interface ListedFollow extends ListedAccount {
  readonly showReblogs: boolean;
  readonly notify: boolean;
  readonly languages: readonly string[] | null;
}

export interface ListedMute extends ListedAccount {
  readonly hideNotifications: boolean;
}

export interface ListedBookmark {
  readonly statusId: string;
  readonly uri: string | null;
  readonly local: boolean;
  readonly authorUsername: string;
}

export interface ListedList {
  readonly id: string;
  readonly title: string;
  readonly members: readonly ListedAccount[];
}

function languagesOf(value: string | null): string[] | null {
  if (value === null) return null;
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) && parsed.length > 0 ? parsed.map(String) : null;
}

/**
 * What an account has made of its relationships, read whole and in
 * Mastodon's export order: what the exports write and what an overwriting
 * import compares the file with.
 */
export class RelationshipListingsStore {
  constructor(private readonly db: () => Kysely<Database>) {}

  /** Follows, newest first. */
  async following(accountId: string): Promise<ListedFollow[]> {
    const rows = await this.db()
      .selectFrom("follows")
      .innerJoin("accounts", "accounts.id", "follows.target_account_id")
      .select(["accounts.id", "accounts.username", "accounts.domain", "follows.show_reblogs", "follows.notify", "follows.languages"])
      .where("follows.account_id", "=", accountId)
      .orderBy("follows.id", "desc")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      username: row.username,
      domain: row.domain,
      showReblogs: readFlag(row.show_reblogs),
      notify: readFlag(row.notify),
      languages: languagesOf(row.languages),
    }));
  }

  /** Accounts asked to be followed, not yet answered. */
  requested(accountId: string): Promise<ListedAccount[]> {
    return this.db()
      .selectFrom("follow_requests")
      .innerJoin("accounts", "accounts.id", "follow_requests.target_account_id")
      .select(["accounts.id", "accounts.username", "accounts.domain"])
      .where("follow_requests.account_id", "=", accountId)
      .orderBy("follow_requests.id", "desc")
      .execute();
  }

  /** Blocks, newest first. */
  blocked(accountId: string): Promise<ListedAccount[]> {
    return this.db()
      .selectFrom("blocks")
      .innerJoin("accounts", "accounts.id", "blocks.target_account_id")
      .select(["accounts.id", "accounts.username", "accounts.domain"])
      .where("blocks.account_id", "=", accountId)
      .orderBy("blocks.id", "desc")
      .execute();
  }

  /** Mutes in force at `now`, newest first. */
  async muted(accountId: string, now: string): Promise<ListedMute[]> {
    const rows = await this.db()
      .selectFrom("mutes")
      .innerJoin("accounts", "accounts.id", "mutes.target_account_id")
      .select(["accounts.id", "accounts.username", "accounts.domain", "mutes.hide_notifications"])
      .where("mutes.account_id", "=", accountId)
      .where((eb) => eb.or([eb("mutes.expires_at", "is", null), eb("mutes.expires_at", ">", now)]))
      .orderBy("mutes.id", "desc")
      .execute();
    return rows.map((row) => ({
      id: row.id,
      username: row.username,
      domain: row.domain,
      hideNotifications: readFlag(row.hide_notifications),
    }));
  }

  /** Blocked domains, oldest block first. */
  async blockedDomains(accountId: string): Promise<string[]> {
    const rows = await this.db()
      .selectFrom("account_domain_blocks")
      .select("domain")
      .where("account_id", "=", accountId)
      .orderBy("id")
      .execute();
    return rows.map((row) => row.domain);
  }

  /** Bookmarks, newest first, with what their ActivityPub ids are made of. */
  async bookmarks(accountId: string): Promise<ListedBookmark[]> {
    const rows = await this.db()
      .selectFrom("bookmarks")
      .innerJoin("statuses", "statuses.id", "bookmarks.status_id")
      .innerJoin("accounts", "accounts.id", "statuses.account_id")
      .select(["statuses.id", "statuses.uri", "statuses.local", "accounts.username"])
      .where("bookmarks.account_id", "=", accountId)
      .orderBy("bookmarks.id", "desc")
      .execute();
    return rows.map((row) => ({ statusId: row.id, uri: row.uri, local: readFlag(row.local), authorUsername: row.username }));
  }

  /** Lists, oldest first, each with its members in the order they were added. */
  async lists(accountId: string): Promise<ListedList[]> {
    const lists = await this.db().selectFrom("lists").select(["id", "title"]).where("account_id", "=", accountId).orderBy("id").execute();
    if (lists.length === 0) return [];
    const members = await this.db()
      .selectFrom("list_accounts")
      .innerJoin("accounts", "accounts.id", "list_accounts.account_id")
      .select(["list_accounts.list_id", "accounts.id", "accounts.username", "accounts.domain"])
      .where(
        "list_accounts.list_id",
        "in",
        lists.map((list) => list.id),
      )
      .orderBy("list_accounts.created_at")
      .orderBy("accounts.id")
      .execute();
    return lists.map((list) => ({
      id: list.id,
      title: list.title,
      members: members.filter((member) => member.list_id === list.id).map(({ id, username, domain }) => ({ id, username, domain })),
    }));
  }
}
