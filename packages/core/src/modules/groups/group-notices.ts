import { isKithError } from "../../domain/errors.js";
import type { KithServices } from "../core-services.js";
import type { ExtendedRecord, NotificationExtension, NotificationType } from "../notifications/index.js";
import type { GroupRoles } from "../roles/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { GroupEntity } from "./group-entities.js";
import { groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { groupsOfNotifications, insertGroupNotifications } from "./notices-store.js";

/** Kith's notification types of groups (see the notifications service). */
export const GROUP_NOTIFICATION_TYPES: ReadonlySet<string> = new Set<NotificationType>([
  "group.join_request",
  "group.invitation",
  "group.join_approved",
  "group.join_rejected",
]);

/**
 * Tells people what concerns them in a group, through the notifications
 * API and streams: its managers (holders of GroupMembers.Manage through
 * the group's roles) of a join request, an invitee of an invitation, a
 * requester of the decision. Each notification records its group, which
 * its entity shows as `group`, rendered as the recipient sees it now.
 */
export class GroupNotices implements NotificationExtension {
  readonly types = GROUP_NOTIFICATION_TYPES;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly core: Pick<KithServices, "notifications">,
    private readonly roles: GroupRoles,
    private readonly views: GroupViews,
  ) {}

  async joinRequested(groupId: string, requesterId: string): Promise<void> {
    const managers = await this.roles.holdersOf(groupId, "GroupMembers.Manage");
    await this.#notify(groupId, managers, requesterId, "group.join_request");
  }

  async invited(groupId: string, inviteeId: string, inviterId: string): Promise<void> {
    await this.#notify(groupId, [inviteeId], inviterId, "group.invitation");
  }

  async joinDecided(groupId: string, requesterId: string, managerId: string, approved: boolean): Promise<void> {
    await this.#notify(groupId, [requesterId], managerId, approved ? "group.join_approved" : "group.join_rejected");
  }

  async #notify(groupId: string, recipientIds: readonly string[], fromId: string, type: NotificationType): Promise<void> {
    await this.core.notifications.notifyMany(recipientIds, fromId, type, null, {
      onWritten: (records) =>
        insertGroupNotifications(
          groupsDb(this.deps.storage.db),
          records.map((record) => record.id),
          groupId,
        ),
    });
  }

  /** The `group` of each notification: the group as its recipient sees it now, null when it may not see it any more. */
  async fields(records: readonly ExtendedRecord[], viewerId: string): Promise<ReadonlyMap<string, Readonly<Record<string, unknown>>>> {
    const groupOf = await groupsOfNotifications(
      groupsDb(this.deps.storage.db),
      records.map((record) => record.id),
    );
    const seen = new Map<string, GroupEntity | null>();
    for (const groupId of new Set(groupOf.values())) seen.set(groupId, await this.#asSeen(groupId, viewerId));
    return new Map(records.map((record) => [record.id, { group: seen.get(groupOf.get(record.id) ?? "") ?? null }]));
  }

  async #asSeen(groupId: string, viewerId: string): Promise<GroupEntity | null> {
    try {
      return await this.views.renderOne(await this.views.visible(groupId, viewerId), viewerId);
    } catch (error) {
      if (isKithError(error) && error.code === "group.not_found") return null;
      throw error;
    }
  }
}
