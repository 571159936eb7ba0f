import { KithError } from "../../domain/errors.js";
import type { GroupRoles } from "../roles/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { AudienceMembership } from "../statuses/index.js";
import { deleteSubscriptionsIn, subscribeToAutoChannels } from "./channel-store.js";
import { groupErrors } from "./group-errors.js";
import { groupIds } from "./group-ids.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import { countMembers } from "./groups-store.js";
import { acceptPendingInvitation } from "./invitations-store.js";
import { settlePendingJoinRequest } from "./join-requests-store.js";
import { forgetSecretMentions } from "./group-statuses-store.js";
import { deleteMember, findMember, insertMember, isBanned } from "./members-store.js";
import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/**
 * Becoming and ceasing to be a member, whichever way: the membership row,
 * the member count, the group's Member role, and what the change settles (a
 * pending request is approved, a pending invitation accepted; the group's
 * auto-subscribe channels are subscribed to, and a member who goes loses its
 * subscriptions). Each runs in the caller's transaction, so a membership
 * and its roles change together.
 */
export class Admission {
  constructor(
    private readonly deps: Pick<ServiceDeps, "ids" | "clock">,
    private readonly roles: GroupRoles,
    /** The group's audience (its id): the members who see its secret statuses, kept with the membership. */
    private readonly audiences: AudienceMembership,
  ) {}

  /** Makes the account a member. Refused for a banned account, and for one that is a member already. */
  async admit(trx: Kysely<Database>, groupId: string, accountId: string, decidedBy: string | null = null): Promise<void> {
    const db: GroupsDb = groupsDb(trx);
    if (await isBanned(db, groupId, accountId)) throw new KithError(groupErrors["group.banned"]);
    const now = this.deps.clock.now().toISOString();
    const joined = await insertMember(db, {
      id: this.deps.ids.next(groupIds.groupMember),
      group_id: groupId,
      account_id: accountId,
      joined_at: now,
    });
    if (!joined) throw new KithError(groupErrors["group.already_member"]);
    await countMembers(db, groupId, 1);
    await this.roles.addMember(trx, groupId, accountId);
    await this.audiences.add(trx, groupId, accountId);
    await subscribeToAutoChannels(db, groupId, accountId, now);
    await settlePendingJoinRequest(db, groupId, accountId, "approved", decidedBy, now);
    await acceptPendingInvitation(db, groupId, accountId, now);
  }

  /** Refuses a group's role to a non-member: a group's roles are held by its members only. */
  async assertMember(trx: Kysely<Database>, groupId: string, accountId: string): Promise<void> {
    if (!(await findMember(groupsDb(trx), groupId, accountId))) throw new KithError(groupErrors["group.role_needs_membership"]);
  }

  /**
   * Ends the membership of an account that is going away, whatever its
   * roles: a group whose last owner it was is left to the server's admins.
   */
  async forget(trx: Kysely<Database>, groupId: string, accountId: string): Promise<void> {
    const db = groupsDb(trx);
    if (!(await deleteMember(db, groupId, accountId))) return;
    await countMembers(db, groupId, -1);
    await this.audiences.remove(trx, groupId, accountId);
    await forgetSecretMentions(db, groupId, accountId);
    await deleteSubscriptionsIn(db, groupId, accountId);
    await this.roles.removeMember(trx, groupId, accountId);
  }

  /**
   * Ends a membership: the row, the count, every role of the group. The
   * group's last owner cannot go (it would be left with nobody who may run
   * it): `group.last_owner`. False when the account was not a member.
   */
  async discharge(trx: Kysely<Database>, groupId: string, accountId: string): Promise<boolean> {
    const db = groupsDb(trx);
    if (!(await deleteMember(db, groupId, accountId))) return false;
    // Counting first also locks the group's row (PostgreSQL) until the commit: two last owners leaving at once
    // are checked one after the other, the second seeing the first gone.
    await countMembers(db, groupId, -1);
    if ((await this.roles.isOwner(trx, groupId, accountId)) && (await this.roles.ownerCount(trx, groupId)) <= 1) {
      throw new KithError(groupErrors["group.last_owner"]);
    }
    await this.roles.removeMember(trx, groupId, accountId);
    await this.audiences.remove(trx, groupId, accountId);
    await forgetSecretMentions(db, groupId, accountId);
    await deleteSubscriptionsIn(db, groupId, accountId);
    return true;
  }
}
