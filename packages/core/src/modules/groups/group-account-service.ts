import type { Kysely } from "kysely";
import { isChannelAccountId } from "../../domain/accounts.js";
import { KithError, isKithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import { type Database, toBool } from "../../ports/storage-schema.js";
import type { GroupAccountsProvider, GroupStanding, GroupStatusesPage } from "../accounts/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { channelErrors } from "./channel-errors.js";
import type { ChannelService } from "./channel-service.js";
import { groupsOfChannels, subscribedAmong } from "./channel-store.js";
import type { GroupTimeline } from "./group-timeline.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import { groupsByIds } from "./groups-store.js";
import { pendingInvitationsIn } from "./invitations-store.js";
import { pendingRequestsIn } from "./join-requests-store.js";
import { membershipsIn } from "./members-store.js";
import type { MembershipService } from "./membership-service.js";

/**
 * Groups and their channels as accounts to Mastodon clients (the answers
 * behind the core's `GroupAccounts`).
 *
 * A group's account is seen by whoever sees the group (a secret one by its
 * members and invitees only), followed by its members, and following it is
 * joining it by its join mode: OPEN joins, APPROVAL asks (a follow
 * request), INVITE_ONLY and QUESTIONS refuse with the group's own error
 * unless an invitation waits. Unfollowing is leaving, which the group's
 * last owner cannot do.
 *
 * A channel's account is seen by whoever sees its group; following it is
 * subscribing to it (members only), unfollowing unsubscribing.
 */
export class GroupAccountService implements GroupAccountsProvider {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly membership: MembershipService,
    private readonly timeline: GroupTimeline,
    private readonly channels: ChannelService,
  ) {}

  async visible(db: Kysely<Database>, viewerId: string | null, accountIds: readonly string[]): Promise<ReadonlySet<string>> {
    const groups = groupsDb(db);
    const channelGroups = await groupsOfChannels(groups, accountIds.filter(isChannelAccountId));
    const groupIds = [...accountIds.filter((id) => !isChannelAccountId(id)), ...channelGroups.values()];
    const seenGroups = await this.#visibleGroups(groups, viewerId, groupIds);
    return new Set(
      accountIds.filter((id) => {
        const groupId = isChannelAccountId(id) ? channelGroups.get(id) : id;
        return groupId !== undefined && seenGroups.has(groupId);
      }),
    );
  }

  async #visibleGroups(db: GroupsDb, viewerId: string | null, groupIds: readonly string[]): Promise<ReadonlySet<string>> {
    const rows = await groupsByIds(db, groupIds);
    const seen = new Set(rows.filter((row) => !toBool(row.secret)).map((row) => row.id));
    const secret = rows.filter((row) => toBool(row.secret)).map((row) => row.id);
    if (secret.length === 0 || viewerId === null) return seen;
    const [memberships, invited] = await Promise.all([membershipsIn(db, viewerId, secret), pendingInvitationsIn(db, viewerId, secret)]);
    for (const id of secret) if (memberships.has(id) || invited.has(id)) seen.add(id);
    return seen;
  }

  async standings(viewerId: string, accountIds: readonly string[]): Promise<ReadonlyMap<string, GroupStanding>> {
    const db = groupsDb(this.deps.storage.db);
    const groupIds = accountIds.filter((id) => !isChannelAccountId(id));
    const [memberships, requested, subscribed] = await Promise.all([
      membershipsIn(db, viewerId, groupIds),
      pendingRequestsIn(db, viewerId, groupIds),
      subscribedAmong(db, viewerId, accountIds.filter(isChannelAccountId)),
    ]);
    return new Map(
      accountIds.map((id) => [
        id,
        isChannelAccountId(id)
          ? { member: subscribed.has(id), requested: false }
          : { member: memberships.has(id), requested: requested.has(id) },
      ]),
    );
  }

  async follow(viewerId: string, accountId: string): Promise<"following" | "requested"> {
    if (isChannelAccountId(accountId)) {
      await this.channels.subscribe(await this.#groupOf(accountId), accountId, viewerId);
      return "following";
    }
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
    if (isChannelAccountId(accountId)) {
      await this.channels.unsubscribe(await this.#groupOf(accountId), accountId, viewerId);
      return;
    }
    try {
      await this.membership.leave(accountId, viewerId);
    } catch (error) {
      // Unfollowing twice is not an error to Mastodon clients either.
      if (isKithError(error) && error.code === "group.not_member") return;
      throw error;
    }
  }

  async statuses(accountId: string, viewerId: string | null, page: PageRequest): Promise<GroupStatusesPage> {
    return this.timeline.page(isChannelAccountId(accountId) ? { channel: accountId } : { group: accountId }, viewerId, page);
  }

  /** The channel's group; a channel that is gone is refused as the channel routes refuse it. */
  async #groupOf(channelId: string): Promise<string> {
    const groupId = (await groupsOfChannels(groupsDb(this.deps.storage.db), [channelId])).get(channelId);
    if (groupId === undefined) throw new KithError(channelErrors["group.channel_not_found"]);
    return groupId;
  }
}
