import type { Kysely } from "kysely";
import { isKithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { type Database, toBool } from "../../ports/storage-schema.js";
import type { GroupAccountsProvider, GroupStanding, GroupStatusesPage } from "../accounts/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { GroupTimeline } from "./group-timeline.js";
import { groupsDb } from "./group-tables-store.js";
import { groupsByIds } from "./groups-store.js";
import { pendingInvitationsIn } from "./invitations-store.js";
import { pendingRequestsIn } from "./join-requests-store.js";
import { membershipsIn } from "./members-store.js";
import type { MembershipService } from "./membership-service.js";

/**
 * Groups as accounts to Mastodon clients (the answers behind the core's
 * `GroupAccounts`): a group's account is seen by whoever sees the group (a
 * secret one by its members and invitees only), followed by its members,
 * and following it is joining it by its join mode: OPEN joins, APPROVAL
 * asks (a follow request), INVITE_ONLY and QUESTIONS refuse with the group's
 * own error unless an invitation waits. Unfollowing is leaving, which the
 * group's last owner cannot do.
 */
export class GroupAccountService implements GroupAccountsProvider {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly membership: MembershipService,
    private readonly timeline: GroupTimeline,
  ) {}

  async visible(db: Kysely<Database>, viewerId: string | null, accountIds: readonly string[]): Promise<ReadonlySet<string>> {
    const groups = groupsDb(db);
    const rows = await groupsByIds(groups, accountIds);
    const seen = new Set(rows.filter((row) => !toBool(row.secret)).map((row) => row.id));
    const secret = rows.filter((row) => toBool(row.secret)).map((row) => row.id);
    if (secret.length === 0 || viewerId === null) return seen;
    const [memberships, invited] = await Promise.all([
      membershipsIn(groups, viewerId, secret),
      pendingInvitationsIn(groups, viewerId, secret),
    ]);
    for (const id of secret) if (memberships.has(id) || invited.has(id)) seen.add(id);
    return seen;
  }

  async standings(viewerId: string, accountIds: readonly string[]): Promise<ReadonlyMap<string, GroupStanding>> {
    const db = groupsDb(this.deps.storage.db);
    const [memberships, requested] = await Promise.all([
      membershipsIn(db, viewerId, accountIds),
      pendingRequestsIn(db, viewerId, accountIds),
    ]);
    return new Map(accountIds.map((id) => [id, { member: memberships.has(id), requested: requested.has(id) }]));
  }

  async follow(viewerId: string, accountId: string): Promise<"following" | "requested"> {
    try {
      const group = await this.membership.join(accountId, viewerId, {});
      return group.membership?.member ? "following" : "requested";
    } catch (error) {
      // Following again is not an error to Mastodon clients.
      if (isKithError(error) && error.code === "group.already_member") return "following";
      throw error;
    }
  }

  async unfollow(viewerId: string, accountId: string): Promise<void> {
    try {
      await this.membership.leave(accountId, viewerId);
    } catch (error) {
      // Unfollowing twice is not an error to Mastodon clients either.
      if (isKithError(error) && error.code === "group.not_member") return;
      throw error;
    }
  }

  async statuses(accountId: string, viewerId: string | null, page: PageRequest): Promise<GroupStatusesPage> {
    return this.timeline.page({ group: accountId }, viewerId, page);
  }
}
