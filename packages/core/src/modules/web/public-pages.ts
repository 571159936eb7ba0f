import { acctKey, isGroupAccountId } from "../../domain/accounts.js";
import { isKithError, statusOf } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { Storage } from "../../ports/storage.js";
import type { KithServices } from "../core-services.js";
import type { InstanceSettings } from "../../domain/instance-settings.js";
import { unindexedLocalUsernames } from "./web-store.js";

/** How many posts a profile or tag page shows at once. */
export const PAGE_POSTS = 20;

export interface AboutPage {
  readonly domain: string;
  readonly settings: InstanceSettings;
  readonly extendedDescription: string;
  readonly userCount: number;
}

export interface ProfilePage {
  readonly account: AccountEntity;
  /** `user@this.host` or `user@other.host`: the handle to show. */
  readonly handle: string;
  readonly local: boolean;
  readonly pinned: readonly StatusEntity[];
  readonly statuses: readonly StatusEntity[];
}

export interface ThreadPage {
  readonly status: StatusEntity;
  readonly ancestors: readonly StatusEntity[];
  readonly descendants: readonly StatusEntity[];
}

export interface TagPage {
  readonly name: string;
  readonly statuses: readonly StatusEntity[];
}

/** Not found, as a page says it: what the API answers 404 (or 403 for a hidden group) is one "not here" for a guest. */
function isMissing(error: unknown): boolean {
  return isKithError(error) && (statusOf(error.code) === 404 || statusOf(error.code) === 403 || statusOf(error.code) === 410);
}

/** Runs a read, turning "not visible" in any of its forms into null. */
async function orNull<T>(read: () => Promise<T | null>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * What the public pages show, read through the same services as the API's
 * routes with no reader (a guest): the API's visibility rules decide, and
 * this adds none of its own, except that a suspended account has no page.
 */
export class PublicPages {
  constructor(
    private readonly core: KithServices,
    private readonly storage: Storage,
    private readonly origin: string,
  ) {}

  get host(): string {
    return new URL(this.origin).host;
  }

  /** The server's name, as its instance document gives it. */
  siteName(): Promise<string> {
    return this.core.settings.get("title");
  }

  async about(): Promise<AboutPage> {
    const [overview, extended] = await Promise.all([this.core.instance.overview(), this.core.instancePublications.extendedDescription()]);
    return { domain: overview.domain, settings: overview.settings, extendedDescription: extended.html, userCount: overview.userCount };
  }

  /** `user`, `user@this.host` or `user@other.host` to the account a guest may see, or null. */
  async account(acct: string): Promise<AccountEntity | null> {
    const [username = "", domain = null, ...rest] = acct.replace(/^@/, "").split("@");
    if (username === "" || rest.length > 0 || domain === "") return null;
    const local = domain === null || domain.toLowerCase() === this.host.toLowerCase();
    const id = await this.core.profiles.idByAcctKey(acctKey(username, local ? null : domain));
    if (!id) return null;
    return orNull(async () => {
      await this.core.groupAccounts.assertVisible(null, id);
      const account = await this.core.accountViews.renderOne(id);
      return account && !account.suspended ? account : null;
    });
  }

  async profile(acct: string, page: PageRequest): Promise<ProfilePage | null> {
    const account = await this.account(acct);
    if (!account) return null;
    const local = !account.acct.includes("@");
    const handle = local ? `${account.acct}@${this.host}` : account.acct;
    if (account.group) {
      const statuses = await orNull(async () => (await this.core.groupAccounts.provider().statuses(account.id, null, page)).statuses);
      return { account, handle, local, pinned: [], statuses: statuses ?? [] };
    }
    const [pinned, statuses] = await Promise.all([
      page.maxId ? [] : this.core.statusQueries.accountStatuses(account.id, null, { pinned: true }, { limit: PAGE_POSTS }),
      this.core.statusQueries.accountStatuses(account.id, null, { excludeReplies: true }, page),
    ]);
    return { account, handle, local, pinned, statuses };
  }

  /** A local or known remote account's public posts, with replies, for its feeds. */
  async feedOf(acct: string): Promise<{ account: AccountEntity; statuses: readonly StatusEntity[] } | null> {
    const account = await this.account(acct);
    if (!account || account.acct.includes("@")) return null;
    const statuses = isGroupAccountId(account.id)
      ? ((await orNull(
          async () => (await this.core.groupAccounts.provider().statuses(account.id, null, { limit: PAGE_POSTS })).statuses,
        )) ?? [])
      : await this.core.statusQueries.accountStatuses(account.id, null, { excludeReblogs: true }, { limit: PAGE_POSTS });
    return { account, statuses };
  }

  /** A status a guest may see, posted by the account the path names (not a boost), with its thread. */
  async thread(acct: string, statusId: string): Promise<ThreadPage | null> {
    const status = await this.status(acct, statusId);
    if (!status) return null;
    const context = await this.core.statusQueries.context(status.id, null);
    return { status, ancestors: context.ancestors, descendants: context.descendants };
  }

  async status(acct: string, statusId: string): Promise<StatusEntity | null> {
    const account = await this.account(acct);
    if (!account) return null;
    const status = await orNull(() => this.core.statusViews.renderOne(statusId, null));
    if (!status || status.reblog !== null || status.account.id !== account.id) return null;
    return status;
  }

  async tag(name: string, page: PageRequest): Promise<TagPage> {
    const timeline = await this.core.timelines.tag(
      null,
      { tag: name, any: [], all: [], none: [], local: false, remote: false, onlyMedia: false },
      page,
    );
    return { name, statuses: timeline.statuses };
  }

  /** The usernames whose pages robots.txt asks search engines to leave out. */
  unindexedUsernames(): Promise<string[]> {
    return unindexedLocalUsernames(this.storage);
  }
}
