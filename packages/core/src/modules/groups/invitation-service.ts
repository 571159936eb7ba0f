import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { KithServices } from "../core-services.js";
import type { ServiceDeps } from "../service-deps.js";
import type { Admission } from "./admission.js";
import type { GroupEntity, GroupInvitationEntity } from "./group-entities.js";
import { groupErrors } from "./group-errors.js";
import { groupIds } from "./group-ids.js";
import type { GroupNotices } from "./group-notices.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { groupsByIds } from "./groups-store.js";
import { readIdPage } from "./id-page.js";
import {
  type InvitationRow,
  answerInvitation,
  deletePendingInvitation,
  findInvitation,
  groupInvitationsPage,
  insertInvitation,
  inviteePage,
} from "./invitations-store.js";
import { findMember, isBanned } from "./members-store.js";

/**
 * Invitations: a member holding GroupMembers.Invite invites an account of
 * this server; the invitee sees the group (a secret one too) while the
 * invitation waits, and accepts it (joining, whatever the join mode) or
 * declines it. Only the invitee may answer: to anyone else the invitation
 * does not exist.
 */
export class InvitationService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">,
    private readonly core: Pick<KithServices, "accounts" | "accountViews">,
    private readonly views: GroupViews,
    private readonly admission: Admission,
    private readonly notices: GroupNotices,
  ) {}

  #db(): GroupsDb {
    return groupsDb(this.deps.storage.db);
  }

  async invite(groupId: string, inviterId: string, inviteeId: string): Promise<GroupInvitationEntity> {
    await this.views.visible(groupId, inviterId);
    await this.core.accounts.findById(inviteeId);
    const row: InvitationRow = {
      id: this.deps.ids.next(groupIds.groupInvitation),
      group_id: groupId,
      account_id: inviteeId,
      invited_by: inviterId,
      status: "pending",
      created_at: this.deps.clock.now().toISOString(),
      answered_at: null,
    };
    await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      if (await isBanned(db, groupId, inviteeId)) throw new KithError(groupErrors["group.invitee_banned"]);
      if (await findMember(db, groupId, inviteeId)) throw new KithError(groupErrors["group.already_member"]);
      if (!(await insertInvitation(db, row))) throw new KithError(groupErrors["group.already_invited"]);
    });
    await this.notices.invited(groupId, inviteeId, inviterId);
    return this.#renderOne(row, inviteeId);
  }

  /** The group's invitations waiting for an answer, newest first. */
  async ofGroup(groupId: string, actorId: string, page: PageRequest): Promise<GroupInvitationEntity[]> {
    await this.views.visible(groupId, actorId);
    const rows = await readIdPage(page, (bounds) => groupInvitationsPage(this.#db(), groupId, bounds));
    return this.#render(rows, actorId);
  }

  async revoke(groupId: string, actorId: string, invitationId: string): Promise<void> {
    await this.views.visible(groupId, actorId);
    if (!(await deletePendingInvitation(this.#db(), groupId, invitationId))) throw new KithError(groupErrors["group.invitation_not_found"]);
  }

  /** The invitations waiting for the account's answer, newest first. */
  async mine(accountId: string, page: PageRequest): Promise<GroupInvitationEntity[]> {
    const rows = await readIdPage(page, (bounds) => inviteePage(this.#db(), accountId, bounds));
    return this.#render(rows, accountId);
  }

  /** Accepts an invitation: the invitee joins the group. Anyone but the invitee is told it does not exist. */
  async accept(accountId: string, invitationId: string): Promise<GroupEntity> {
    const invitation = await this.#own(accountId, invitationId);
    await this.deps.storage.transaction(async (trx) => {
      if (!(await answerInvitation(groupsDb(trx), invitationId, "accepted", this.deps.clock.now().toISOString()))) {
        throw new KithError(groupErrors["group.invitation_answered"]);
      }
      await this.admission.admit(trx, invitation.group_id, accountId, invitation.invited_by);
    });
    return this.views.renderOne(await this.views.current(invitation.group_id), accountId);
  }

  async decline(accountId: string, invitationId: string): Promise<void> {
    await this.#own(accountId, invitationId);
    if (!(await answerInvitation(this.#db(), invitationId, "declined", this.deps.clock.now().toISOString()))) {
      throw new KithError(groupErrors["group.invitation_answered"]);
    }
  }

  async #own(accountId: string, invitationId: string): Promise<InvitationRow> {
    const invitation = await findInvitation(this.#db(), invitationId);
    if (!invitation || invitation.account_id !== accountId) throw new KithError(groupErrors["group.invitation_not_found"]);
    if (invitation.status !== "pending") throw new KithError(groupErrors["group.invitation_answered"]);
    return invitation;
  }

  async #renderOne(row: InvitationRow, viewerId: string): Promise<GroupInvitationEntity> {
    const [entity] = await this.#render([row], viewerId);
    if (!entity) throw new KithError(groupErrors["group.invitation_not_found"]);
    return entity;
  }

  /** Invitations with their groups as the viewer sees them, and their invitees and inviters. */
  async #render(rows: readonly InvitationRow[], viewerId: string): Promise<GroupInvitationEntity[]> {
    const accountIds = rows.flatMap((row) => (row.invited_by ? [row.account_id, row.invited_by] : [row.account_id]));
    const [accounts, groups] = await Promise.all([
      this.core.accountViews.render(accountIds),
      groupsByIds(this.#db(), rows.map((row) => row.group_id)).then((found) => this.views.render(found, viewerId)),
    ]);
    const groupsById = new Map(groups.map((group) => [group.id, group]));
    return rows.flatMap((row) => {
      const account = accounts.get(row.account_id);
      const group = groupsById.get(row.group_id);
      if (!account || !group) return [];
      return [
        {
          id: row.id,
          group,
          account,
          invited_by: row.invited_by ? (accounts.get(row.invited_by) ?? null) : null,
          status: row.status,
          created_at: row.created_at,
          answered_at: row.answered_at,
        },
      ];
    });
  }
}
