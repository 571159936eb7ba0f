import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { Grant } from "../../domain/permissions.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { KithServices } from "../core-services.js";
import type { GroupRoles } from "../roles/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { Admission } from "./admission.js";
import type { EntryService } from "./entry-service.js";
import type { GroupBanEntity, GroupEntity, GroupMemberEntity, JoinRequestEntity } from "./group-entities.js";
import type { GroupActionReportLink } from "./group-action-reports.js";
import { groupErrors } from "./group-errors.js";
import { assertOutranks } from "./group-outrank.js";
import { groupIds } from "./group-ids.js";
import type { GroupNotices } from "./group-notices.js";
import { type GroupsDb, type JoinRequestStatus, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { readIdPage } from "./id-page.js";
import { deletePendingInvitationsOf, findPendingInvitation } from "./invitations-store.js";
import {
  type JoinRequestRow,
  decideJoinRequest,
  deletePendingJoinRequest,
  findJoinRequest,
  insertJoinRequest,
  joinRequestsPage,
  settlePendingJoinRequest,
} from "./join-requests-store.js";
import { type BanRow, bansOf, deleteBan, findMember, groupsOfMember, insertBan, isBanned, membersPage } from "./members-store.js";

export interface JoinInput {
  /** A join token from answering the group's questions (QUESTIONS mode). */
  readonly token?: string;
  /** For the managers who decide a join request (APPROVAL mode). */
  readonly message?: string;
}

/** Bans listed at once: a group's bans are read whole, newest first, up to this many. */
const BANS_LISTED = 200;

/**
 * Joining and leaving, and a group's members, join requests and bans. The
 * join modes: OPEN joins at once; APPROVAL makes a join request that a
 * member holding GroupMembers.Manage approves or rejects; INVITE_ONLY needs
 * a pending invitation; QUESTIONS a join token from answering the group's
 * questions. A pending invitation lets its invitee in whatever the mode
 * (joining is then accepting it). A banned account is refused everything.
 */
export class MembershipService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">,
    private readonly core: Pick<KithServices, "accounts" | "accountViews" | "events">,
    private readonly roles: GroupRoles,
    private readonly views: GroupViews,
    private readonly admission: Admission,
    private readonly entry: EntryService,
    private readonly notices: GroupNotices,
    private readonly reports: GroupActionReportLink,
  ) {}

  #db(): GroupsDb {
    return groupsDb(this.deps.storage.db);
  }

  async join(groupId: string, accountId: string, input: JoinInput): Promise<GroupEntity> {
    const group = await this.views.visible(groupId, accountId);
    const outcome = await this.deps.storage.transaction(async (trx): Promise<"joined" | "requested" | "pending"> => {
      const db = groupsDb(trx);
      if (await findMember(db, groupId, accountId)) throw new KithError(groupErrors["group.already_member"]);
      if (await isBanned(db, groupId, accountId)) throw new KithError(groupErrors["group.banned"]);
      const invitation = await findPendingInvitation(db, groupId, accountId);
      if (invitation) {
        await this.admission.admit(trx, groupId, accountId, invitation.invited_by);
        return "joined";
      }
      switch (group.join_mode) {
        case "OPEN":
          await this.admission.admit(trx, groupId, accountId);
          return "joined";
        case "APPROVAL":
          return (await this.#request(db, groupId, accountId, input.message)) ? "requested" : "pending";
        case "INVITE_ONLY":
          throw new KithError(groupErrors["group.invitation_required"]);
        case "QUESTIONS":
          if (!input.token) throw new KithError(groupErrors["group.join_token_required"]);
          await this.entry.useToken(trx, groupId, accountId, input.token);
          await this.admission.admit(trx, groupId, accountId);
          return "joined";
      }
    });
    if (outcome === "requested") await this.notices.joinRequested(groupId, accountId);
    return this.views.renderOne(await this.views.current(groupId), accountId);
  }

  /** Records a join request; false when one is pending already (asking again changes nothing). */
  async #request(db: GroupsDb, groupId: string, accountId: string, message: string | undefined): Promise<boolean> {
    return insertJoinRequest(db, {
      id: this.deps.ids.next(groupIds.joinRequest),
      group_id: groupId,
      account_id: accountId,
      message: message?.trim() || null,
      status: "pending",
      decided_by: null,
      decided_at: null,
      created_at: this.deps.clock.now().toISOString(),
    });
  }

  /** Leaves the group, or withdraws a pending join request. The last owner cannot leave. */
  async leave(groupId: string, accountId: string): Promise<GroupEntity> {
    await this.views.visible(groupId, accountId);
    await this.deps.storage.transaction(async (trx) => {
      if (await this.admission.discharge(trx, groupId, accountId)) return;
      if (await deletePendingJoinRequest(groupsDb(trx), groupId, accountId)) return;
      throw new KithError(groupErrors["group.not_member"]);
    });
    return this.views.renderOne(await this.views.current(groupId), accountId);
  }

  /** Ends the memberships of an account about to be removed from the server, so that the groups count it no more. */
  async forgetAccount(accountId: string): Promise<void> {
    for (const groupId of await groupsOfMember(this.#db(), accountId)) {
      await this.deps.storage.transaction((trx) => this.admission.forget(trx, groupId, accountId));
    }
  }

  /** The members, in the order they joined (newest first), each with the group's roles they hold. */
  async members(groupId: string, viewerId: string | null, page: PageRequest): Promise<GroupMemberEntity[]> {
    await this.views.visible(groupId, viewerId);
    const rows = await readIdPage(page, (bounds) => membersPage(this.#db(), groupId, bounds));
    const accountIds = rows.map((row) => row.account_id);
    const [accounts, roles] = await Promise.all([this.core.accountViews.render(accountIds), this.roles.rolesOf(groupId, accountIds)]);
    return rows.flatMap((row) => {
      const account = accounts.get(row.account_id);
      return account ? [{ id: row.id, account, joined_at: row.joined_at, roles: roles.get(row.account_id) ?? [] }] : [];
    });
  }

  /**
   * Refuses to act on oneself, and on a member who holds in the group what
   * the actor does not (a moderator removing an admin, anyone an owner but
   * an owner): the actor's grants, global or the group's, must cover the
   * target's.
   */
  async #mayActOn(db: GroupsDb, groupId: string, actorId: string, actorGrants: readonly Grant[], targetId: string): Promise<void> {
    if (actorId === targetId) throw new KithError(groupErrors["group.cannot_target_self"]);
    await assertOutranks(this.roles, db, groupId, actorGrants, targetId);
  }

  /** Removes a member; with `reportId`, the group's report about them is resolved once they are out. */
  async removeMember(
    groupId: string,
    actorId: string,
    actorGrants: readonly Grant[],
    targetId: string,
    reportId: string | null = null,
  ): Promise<void> {
    await this.views.visible(groupId, actorId);
    await this.reports.assertAbout(reportId, groupId, targetId);
    await this.deps.storage.transaction(async (trx) => {
      await this.#mayActOn(groupsDb(trx), groupId, actorId, actorGrants, targetId);
      if (!(await this.admission.discharge(trx, groupId, targetId))) throw new KithError(groupErrors["group.member_not_found"]);
    });
    await this.#acted(actorId, "group.remove_member", groupId, targetId);
    await this.reports.resolve(reportId, groupId, actorId);
  }

  /**
   * Bans an account: it stops being a member, its join request is rejected,
   * its invitations withdrawn, and it cannot join again or be invited until
   * the ban is lifted. With `reportId`, the group's report about the
   * account is resolved once it is banned.
   */
  async ban(
    groupId: string,
    actorId: string,
    actorGrants: readonly Grant[],
    targetId: string,
    reason: string | null,
    reportId: string | null = null,
  ): Promise<GroupBanEntity> {
    await this.views.visible(groupId, actorId);
    await this.reports.assertAbout(reportId, groupId, targetId);
    await this.core.accounts.findById(targetId);
    const now = this.deps.clock.now().toISOString();
    const row: BanRow = { group_id: groupId, account_id: targetId, banned_by: actorId, reason, created_at: now };
    await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      await this.#mayActOn(db, groupId, actorId, actorGrants, targetId);
      if (!(await insertBan(db, row))) throw new KithError(groupErrors["group.already_banned"]);
      await this.admission.discharge(trx, groupId, targetId);
      await settlePendingJoinRequest(db, groupId, targetId, "rejected", actorId, now);
      await deletePendingInvitationsOf(db, groupId, targetId);
    });
    await this.#acted(actorId, "group.ban", groupId, targetId, reason);
    await this.reports.resolve(reportId, groupId, actorId);
    const [ban] = await this.#renderBans([row]);
    if (!ban) throw new KithError("account.not_found");
    return ban;
  }

  async unban(groupId: string, actorId: string, targetId: string): Promise<void> {
    await this.views.visible(groupId, actorId);
    if (!(await deleteBan(this.#db(), groupId, targetId))) throw new KithError(groupErrors["group.ban_not_found"]);
    await this.#acted(actorId, "group.unban", groupId, targetId);
  }

  /** Tells the group's audit log what a manager did to an account. */
  async #acted(actorId: string, action: string, groupId: string, targetId: string, text: string | null = null): Promise<void> {
    const entry = { actorId, action, resource: "GroupMembers", targetType: "account", targetId, groupId, text } as const;
    await this.core.events.emit({ type: "moderation.action", ...entry });
  }

  async bans(groupId: string, actorId: string): Promise<GroupBanEntity[]> {
    await this.views.visible(groupId, actorId);
    return this.#renderBans(await bansOf(this.#db(), groupId, BANS_LISTED));
  }

  async #renderBans(rows: readonly BanRow[]): Promise<GroupBanEntity[]> {
    const accounts = await this.core.accountViews.render(rows.map((row) => row.account_id));
    return rows.flatMap((row) => {
      const account = accounts.get(row.account_id);
      return account ? [{ account, reason: row.reason, created_at: row.created_at }] : [];
    });
  }

  async joinRequests(groupId: string, actorId: string, status: JoinRequestStatus, page: PageRequest): Promise<JoinRequestEntity[]> {
    await this.views.visible(groupId, actorId);
    const rows = await readIdPage(page, (bounds) => joinRequestsPage(this.#db(), groupId, status, bounds));
    return this.#renderRequests(rows);
  }

  /** Approves a pending request: the requester becomes a member. A request decided already is refused (409). */
  async approve(groupId: string, actorId: string, requestId: string): Promise<JoinRequestEntity> {
    return this.#decide(groupId, actorId, requestId, true);
  }

  async reject(groupId: string, actorId: string, requestId: string): Promise<JoinRequestEntity> {
    return this.#decide(groupId, actorId, requestId, false);
  }

  async #decide(groupId: string, actorId: string, requestId: string, approve: boolean): Promise<JoinRequestEntity> {
    await this.views.visible(groupId, actorId);
    const request = await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      const found = await findJoinRequest(db, groupId, requestId);
      if (!found) throw new KithError(groupErrors["group.join_request_not_found"]);
      const now = this.deps.clock.now().toISOString();
      if (!(await decideJoinRequest(db, requestId, approve ? "approved" : "rejected", actorId, now))) {
        throw new KithError(groupErrors["group.join_request_decided"]);
      }
      if (approve) await this.admission.admit(trx, groupId, found.account_id, actorId);
      return found;
    });
    await this.notices.joinDecided(groupId, request.account_id, actorId, approve);
    await this.#acted(actorId, approve ? "group.approve_join" : "group.reject_join", groupId, request.account_id);
    const decided = await findJoinRequest(this.#db(), groupId, requestId);
    const [entity] = await this.#renderRequests(decided ? [decided] : []);
    if (!entity) throw new KithError(groupErrors["group.join_request_not_found"]);
    return entity;
  }

  async #renderRequests(rows: readonly JoinRequestRow[]): Promise<JoinRequestEntity[]> {
    const accounts: Map<string, AccountEntity> = await this.core.accountViews.render(rows.map((row) => row.account_id));
    return rows.flatMap((row) => {
      const account = accounts.get(row.account_id);
      return account
        ? [{ id: row.id, account, message: row.message, status: row.status, created_at: row.created_at, decided_at: row.decided_at }]
        : [];
    });
  }
}
