import { isGroupAccountId } from "../../domain/accounts.js";
import type { Kysely } from "kysely";
import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { Database } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";

/**
 * A local group is also an account to Mastodon clients (`group: true`): a
 * row of `accounts` with actor type Group and no user, whose id is the
 * group's own (`gr_…`). The same id for both means a client holding either
 * opens the other, and that the prefix alone tells a group's account apart,
 * so that the paths that meet only people's accounts (posting, the home
 * timeline) pay nothing for groups.
 */
export { isGroupAccountId };

/** The viewer's standing in a group, as a Relationship shows it: a member follows the group, a pending join request is a follow request. */
export interface GroupStanding {
  readonly member: boolean;
  readonly requested: boolean;
}

export interface GroupStatusesPage {
  /** Every id read, for the `Link` header. */
  readonly ids: readonly string[];
  readonly statuses: readonly StatusEntity[];
}

/** What the groups module answers about groups' accounts. */
export interface GroupAccountsProvider {
  /** Of these groups' accounts, those the viewer may see: a secret group's by its members and invitees only. */
  visible(db: Kysely<Database>, viewerId: string | null, accountIds: readonly string[]): Promise<ReadonlySet<string>>;
  standings(viewerId: string, accountIds: readonly string[]): Promise<ReadonlyMap<string, GroupStanding>>;
  /** Joins the group (or asks to) as its join mode allows; following is joining. */
  follow(viewerId: string, accountId: string): Promise<"following" | "requested">;
  /** Leaves the group, or withdraws a pending join request; a no-op for one who is neither. */
  unfollow(viewerId: string, accountId: string): Promise<void>;
  /** The statuses posted in the group, as its timeline shows them to the viewer. */
  statuses(accountId: string, viewerId: string | null, page: PageRequest): Promise<GroupStatusesPage>;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Where the core's account routes and services meet groups' accounts: the
 * groups module provides the answers (`use`). Without it, a group's account
 * is hidden from everyone, as its group would be.
 */
export class GroupAccounts {
  #provider: GroupAccountsProvider | null = null;

  constructor(private readonly deps: Pick<ServiceDeps, "storage">) {}

  use(provider: GroupAccountsProvider): void {
    this.#provider = provider;
  }

  /** Those of `ids` that are groups' accounts the viewer may not see; no query when none is a group's. */
  async hidden(viewerId: string | null, ids: readonly string[], db: Kysely<Database> = this.deps.storage.db): Promise<ReadonlySet<string>> {
    const groups = ids.filter(isGroupAccountId);
    if (groups.length === 0) return NONE;
    if (this.#provider === null) return new Set(groups);
    const visible = await this.#provider.visible(db, viewerId, groups);
    return new Set(groups.filter((id) => !visible.has(id)));
  }

  /** `account.not_found` for a group's account the viewer may not see, as for an account that does not exist. */
  async assertVisible(viewerId: string | null, id: string): Promise<void> {
    if ((await this.hidden(viewerId, [id])).size > 0) throw new KithError("account.not_found");
  }

  /** The groups module's answers; `account.not_found` when it is not composed (a group's account is then hidden). */
  provider(): GroupAccountsProvider {
    if (this.#provider === null) throw new KithError("account.not_found");
    return this.#provider;
  }
}
