import type { ServiceDeps } from "../service-deps.js";
import { bookmarkUri } from "./bookmark-uri.js";
import { csvDocument } from "./mastodon-csv.js";
import type { ListedAccount, RelationshipListingsStore } from "./relationship-listings-store.js";

/** The files Mastodon's settings offer, by the names it gives them. */
export const EXPORT_FILES = [
  "following_accounts.csv",
  "blocked_accounts.csv",
  "muted_accounts.csv",
  "blocked_domains.csv",
  "bookmarks.csv",
  "lists.csv",
] as const;
export type ExportFile = (typeof EXPORT_FILES)[number];

/**
 * An account's relationships as the CSV files Mastodon writes, byte for byte
 * (its headers, order, and Ruby's CSV quoting), so that they import on Kith
 * and on Mastodon alike. An account is named `user@host`, a local one with
 * this server's host.
 */
export class ExportService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "config" | "clock">,
    private readonly listings: RelationshipListingsStore,
  ) {}

  #acct(account: Pick<ListedAccount, "username" | "domain">): string {
    return `${account.username}@${account.domain ?? new URL(this.deps.config.origin).host}`;
  }

  async file(accountId: string, name: ExportFile): Promise<string> {
    switch (name) {
      case "following_accounts.csv": {
        const follows = await this.listings.following(accountId);
        return csvDocument(
          ["Account address", "Show boosts", "Notify on new posts", "Languages"],
          follows.map((follow) => [this.#acct(follow), follow.showReblogs, follow.notify, follow.languages?.join(", ") ?? null]),
        );
      }
      case "blocked_accounts.csv":
        return csvDocument(
          null,
          (await this.listings.blocked(accountId)).map((account) => [this.#acct(account)]),
        );
      case "muted_accounts.csv": {
        const mutes = await this.listings.muted(accountId, this.deps.clock.now().toISOString());
        return csvDocument(
          ["Account address", "Hide notifications"],
          mutes.map((mute) => [this.#acct(mute), mute.hideNotifications]),
        );
      }
      case "blocked_domains.csv":
        return csvDocument(
          null,
          (await this.listings.blockedDomains(accountId)).map((domain) => [domain]),
        );
      case "bookmarks.csv": {
        const bookmarks = await this.listings.bookmarks(accountId);
        return csvDocument(
          null,
          bookmarks.map((bookmark) => [bookmarkUri(this.deps.config.origin, bookmark)]),
        );
      }
      case "lists.csv": {
        const lists = await this.listings.lists(accountId);
        return csvDocument(
          null,
          lists.flatMap((list) => list.members.map((member) => [list.title, this.#acct(member)])),
        );
      }
    }
  }
}
