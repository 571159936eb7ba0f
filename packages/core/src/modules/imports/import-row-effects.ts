import { isKithError } from "../../domain/errors.js";
import type { KithServices } from "../core-services.js";
import { bookmarkUri } from "./bookmark-uri.js";
import { type ImportKind, type ImportRowData, readBoolean, readLanguages } from "./import-kinds.js";
import type { ListedAccount, RelationshipListingsStore } from "./relationship-listings-store.js";

/** The core's services a row is applied with: those a client's calls go through. */
export type RowServices = Pick<
  KithServices,
  "remoteAccounts" | "follows" | "blocksMutes" | "userDomainBlocks" | "search" | "statusInteractions" | "lists" | "events"
>;

/** What applying one row came to; `reason` says why for a row not imported. */
export type RowResult = { readonly outcome: "imported" } | { readonly outcome: "skipped" | "failed"; readonly reason: string };

type FollowOptions = NonNullable<Parameters<KithServices["follows"]["follow"]>[2]>;

const IMPORTED: RowResult = { outcome: "imported" };

function failed(reason: string): RowResult {
  return { outcome: "failed", reason };
}

/** `user@host` in lower case, the form two rows and an account are compared in. */
export function acctKey(acct: string, ownHost: string): string {
  const [username = "", host = ownHost] = acct.toLowerCase().split("@");
  return `${username}@${host}`;
}

/** The remote host a row reaches out to, if any: what the per-host pace is kept by. */
export function hostOfRow(kind: ImportKind, data: ImportRowData, ownHost: string): string | null {
  let host: string | null = null;
  if (kind === "bookmarks" && data.uri && URL.canParse(data.uri)) host = new URL(data.uri).host.toLowerCase();
  else if (data.acct?.includes("@")) host = data.acct.split("@")[1]?.toLowerCase() ?? null;
  return host === ownHost.toLowerCase() ? null : host;
}

/**
 * Applies rows of an import for an account, each through the service a
 * client's call would use: a follow of a remote account resolves it by
 * WebFinger and sends the Follow, a block ends follows both ways, and so on.
 * Every effect is idempotent (following, blocking, muting, bookmarking or
 * adding to a list again changes nothing), so a row applied again after a
 * crash, before its outcome was written, leaves things as once.
 */
export class ImportRowEffects {
  constructor(
    private readonly core: RowServices,
    private readonly listings: RelationshipListingsStore,
    private readonly origin: string,
    private readonly now: () => string,
  ) {
    this.ownHost = new URL(origin).host.toLowerCase();
  }

  readonly ownHost: string;

  /**
   * Applies a row; `resumed` when an earlier applying of it was cut short by
   * a crash, whose effect may be written without what follows the commit (a
   * Follow's delivery): that is done again.
   */
  async apply(accountId: string, kind: ImportKind, data: ImportRowData, options: { resumed: boolean }): Promise<RowResult> {
    try {
      const result = await this.#apply(accountId, kind, data, options.resumed);
      // What follows the change's commit (a Follow's or Block's delivery queued) is done before the row counts as done.
      await this.core.events.settled();
      return result;
    } catch (error) {
      if (isKithError(error)) return failed(error.message);
      return failed(`Could not be applied: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async #account(accountId: string, acct: string | undefined): Promise<{ id: string } | RowResult> {
    if (!acct) return failed("No account address");
    const id = await this.core.remoteAccounts.resolve(acct);
    if (id === null) return failed("Account not found");
    if (id === accountId) return { outcome: "skipped", reason: "That is the importing account itself" };
    return { id };
  }

  async #apply(accountId: string, kind: ImportKind, data: ImportRowData, resumed: boolean): Promise<RowResult> {
    if (kind === "domain_blocking") {
      if (!data.domain) return failed("No domain");
      await this.core.userDomainBlocks.block(accountId, data.domain);
      return IMPORTED;
    }
    if (kind === "bookmarks") {
      if (!data.uri) return failed("No status URI");
      const found = await this.core.search.search(accountId, { q: data.uri, type: "statuses", resolve: true, limit: 1, offset: 0 });
      const status = found.statuses[0];
      if (!status) return failed("Status not found");
      await this.core.statusInteractions.bookmark(accountId, status.id);
      return IMPORTED;
    }
    const target = await this.#account(accountId, data.acct);
    if (!("id" in target)) return target;
    switch (kind) {
      case "followers":
      case "following":
        await this.#follow(accountId, target.id, resumed, {
          reblogs: readBoolean(data.show_reblogs, true),
          notify: readBoolean(data.notify, false),
          languages: readLanguages(data.languages),
        });
        return IMPORTED;
      case "blocks":
        await this.core.blocksMutes.block(accountId, target.id);
        return IMPORTED;
      case "mutes":
        await this.core.blocksMutes.mute(accountId, target.id, { notifications: readBoolean(data.hide_notifications, true) });
        return IMPORTED;
      case "lists":
        return this.#addToList(accountId, data.list_name ?? "", target.id, resumed);
    }
  }

  /**
   * Follows. A request found waiting by an applying that a crash cut short
   * is told again (its event, which sends the Follow under the same id), since
   * the event follows the request's commit and may have been lost with the
   * process; the other server takes the same Follow twice as once.
   */
  async #follow(accountId: string, targetId: string, resumed: boolean, options: FollowOptions = {}): Promise<void> {
    const outcome = await this.core.follows.follow(accountId, targetId, options);
    if (resumed && outcome === "requested") {
      await this.core.events.emit({ type: "follow.requested", accountId, targetAccountId: targetId });
    }
  }

  /**
   * Tells again of the account's follow requests to other servers still
   * waiting: each sends its Follow again under the same id, which a server
   * that had it takes as once, and one that never had it answers now.
   */
  async resendWaitingFollows(accountId: string): Promise<void> {
    for (const account of await this.listings.requested(accountId)) {
      if (account.domain !== null) await this.core.events.emit({ type: "follow.requested", accountId, targetAccountId: account.id });
    }
    await this.core.events.settled();
  }

  /** As Mastodon: the list is made if there is none of that name, and its member followed if not yet. */
  async #addToList(accountId: string, title: string, targetId: string, resumed: boolean): Promise<RowResult> {
    if (title.trim() === "") return failed("No list name");
    const lists = await this.core.lists.list(accountId);
    const list = lists.find((one) => one.title === title.trim()) ?? (await this.core.lists.create(accountId, { title }));
    const following = await this.listings.following(accountId);
    const requested = await this.listings.requested(accountId);
    if (resumed || ![...following, ...requested].some((account) => account.id === targetId))
      await this.#follow(accountId, targetId, resumed);
    await this.core.lists.addMembers(accountId, list.id, [targetId]);
    return IMPORTED;
  }

  /**
   * An overwrite's first step: what the account has of the kind and the file
   * does not hold is undone. Run again after a crash, it undoes nothing more.
   */
  async prune(accountId: string, kind: ImportKind, rows: readonly ImportRowData[]): Promise<void> {
    const accts = new Set(rows.flatMap((row) => (row.acct ? [acctKey(row.acct, this.ownHost)] : [])));
    const absent = (account: ListedAccount) => !accts.has(acctKey(`${account.username}@${account.domain ?? this.ownHost}`, this.ownHost));
    switch (kind) {
      case "followers":
      case "following": {
        const followed = [...(await this.listings.following(accountId)), ...(await this.listings.requested(accountId))];
        for (const account of followed.filter(absent)) await this.core.follows.unfollow(accountId, account.id);
        return;
      }
      case "blocks":
        for (const account of (await this.listings.blocked(accountId)).filter(absent))
          await this.core.blocksMutes.unblock(accountId, account.id);
        return;
      case "mutes":
        for (const account of (await this.listings.muted(accountId, this.now())).filter(absent))
          await this.core.blocksMutes.unmute(accountId, account.id);
        return;
      case "domain_blocking": {
        const domains = new Set(rows.map((row) => row.domain));
        for (const domain of await this.listings.blockedDomains(accountId)) {
          if (!domains.has(domain)) await this.core.userDomainBlocks.unblock(accountId, domain, { strict: false });
        }
        return;
      }
      case "bookmarks": {
        const uris = new Set(rows.map((row) => row.uri));
        for (const bookmark of await this.listings.bookmarks(accountId)) {
          if (!uris.has(bookmarkUri(this.origin, bookmark))) await this.core.statusInteractions.unbookmark(accountId, bookmark.statusId);
        }
        return;
      }
      case "lists": {
        // As Mastodon: lists the file does not name go; those it names are emptied, and filled again by the rows.
        const titles = new Set(rows.map((row) => row.list_name?.trim()));
        for (const list of await this.listings.lists(accountId)) {
          if (!titles.has(list.title)) await this.core.lists.remove(accountId, list.id);
          else if (list.members.length > 0)
            await this.core.lists.removeMembers(
              accountId,
              list.id,
              list.members.map((member) => member.id),
            );
        }
        return;
      }
    }
  }
}
