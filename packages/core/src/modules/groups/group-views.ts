import { KithError } from "../../domain/errors.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { AccountViews } from "../accounts/index.js";
import { toBool } from "../../ports/storage-schema.js";
import type { GroupRoles } from "../roles/index.js";
import type { GroupEntity, GroupMembershipEntity } from "./group-entities.js";
import { groupErrors } from "./group-errors.js";
import type { GroupsDb } from "./group-tables-store.js";
import { type GroupRow, findGroup } from "./groups-store.js";
import { findPendingInvitation, pendingInvitationsIn } from "./invitations-store.js";
import { pendingRequestsIn } from "./join-requests-store.js";
import { findMember, membershipsIn } from "./members-store.js";

/**
 * Who sees a group, and how it is shown to them. A non-secret group is seen
 * by anyone; a secret one by its members and by those it invited, and by
 * nobody else: to them it does not exist (`group.not_found`), whatever
 * route they ask. Membership is read on every request, so a member removed
 * loses sight of a secret group at once.
 */
export class GroupViews {
  constructor(
    private readonly db: () => GroupsDb,
    private readonly roles: GroupRoles,
    /** Renders the groups' accounts, whose avatars and headers are the groups'. */
    private readonly accounts: Pick<AccountViews, "render">,
  ) {}

  /** The group, if the viewer may see it; `group.not_found` otherwise. */
  async visible(groupId: string, viewerId: string | null, db: GroupsDb = this.db()): Promise<GroupRow> {
    const group = await findGroup(db, groupId);
    if (!group || !(await this.#sees(db, group, viewerId))) throw new KithError(groupErrors["group.not_found"]);
    return group;
  }

  /** The group as it is now, whoever asks (after a change the caller made, which may have been to leave it). */
  async current(groupId: string): Promise<GroupRow> {
    const group = await findGroup(this.db(), groupId);
    if (!group) throw new KithError(groupErrors["group.not_found"]);
    return group;
  }

  async #sees(db: GroupsDb, group: GroupRow, viewerId: string | null): Promise<boolean> {
    if (!toBool(group.secret)) return true;
    if (viewerId === null) return false;
    if (await findMember(db, group.id, viewerId)) return true;
    return (await findPendingInvitation(db, group.id, viewerId)) !== undefined;
  }

  /** The groups as the viewer sees them, with the viewer's standing in each. */
  async render(groups: readonly GroupRow[], viewerId: string | null): Promise<GroupEntity[]> {
    const [standing, accounts] = await Promise.all([
      this.#standing(groups, viewerId),
      this.accounts.render(groups.map((group) => group.id)),
    ]);
    return groups.map((group) => ({
      id: group.id,
      name: group.name,
      display_name: group.display_name,
      note: group.note,
      join_mode: group.join_mode,
      secret: toBool(group.secret),
      discoverable: toBool(group.discoverable),
      members_count: Number(group.members_count),
      statuses_count: Number(group.statuses_count),
      created_at: group.created_at,
      ...imagesOf(accounts.get(group.id)),
      membership: standing?.(group.id) ?? null,
    }));
  }

  async renderOne(group: GroupRow, viewerId: string | null): Promise<GroupEntity> {
    const [entity] = await this.render([group], viewerId);
    if (!entity) throw new KithError(groupErrors["group.not_found"]);
    return entity;
  }

  /** The viewer's standing in each group, read in a fixed number of queries; null for a guest. */
  async #standing(groups: readonly GroupRow[], viewerId: string | null): Promise<((groupId: string) => GroupMembershipEntity) | null> {
    if (viewerId === null) return null;
    const db = this.db();
    const ids = groups.map((group) => group.id);
    const [memberships, requested, invited] = await Promise.all([
      membershipsIn(db, viewerId, ids),
      pendingRequestsIn(db, viewerId, ids),
      pendingInvitationsIn(db, viewerId, ids),
    ]);
    const roles = await this.roles.rolesIn(viewerId, [...memberships.keys()]);
    return (groupId) => {
      const membership = memberships.get(groupId);
      return {
        member: membership !== undefined,
        joined_at: membership?.joined_at ?? null,
        roles: roles.get(groupId) ?? [],
        requested: requested.has(groupId),
        invited: invited.has(groupId),
      };
    };
  }
}

/** A group left without an account (its name was an account's when groups became accounts) has no images to show. */
const NO_IMAGE = "";

/** The images of a group's account: the server's default images until the group is given its own. */
function imagesOf(account: AccountEntity | undefined): Pick<GroupEntity, "avatar" | "avatar_static" | "header" | "header_static"> {
  return {
    avatar: account?.avatar ?? NO_IMAGE,
    avatar_static: account?.avatar_static ?? NO_IMAGE,
    header: account?.header ?? NO_IMAGE,
    header_static: account?.header_static ?? NO_IMAGE,
  };
}
