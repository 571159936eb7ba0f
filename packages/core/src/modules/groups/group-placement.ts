import type { Kysely } from "kysely";
import { BoundedMap } from "../../bounded-map.js";
import { KithError } from "../../domain/errors.js";
import { type Database, toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { Placement, PlacementRequest, StatusPlacement } from "../statuses/index.js";
import { groupErrors } from "./group-errors.js";
import { channelErrors } from "./channel-errors.js";
import type { PrimaryChannels } from "./channel-primary.js";
import { findChannel } from "./channel-store.js";
import {
  countChannelStatuses,
  countOnPrimaryChannel,
  deleteGroupStatus,
  groupOfStatus,
  insertGroupStatus,
  membersAmong,
  placeOfStatus,
} from "./group-statuses-store.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import type { GroupPostingRules } from "./group-settings-posting.js";
import { type GroupRow, findGroup } from "./groups-store.js";
import { findMember, isBanned } from "./members-store.js";

/** Where a status was placed: its group, and its channel there. */
export interface StatusPlace {
  readonly groupId: string;
  readonly channelId: string;
}

/** Where a status is to go: its group, and its channel (null for the group's primary channel, decided as it is written). */
interface Target {
  readonly groupId: string;
  readonly channelId: string | null;
}

/**
 * Posting in a group (`POST /api/v1/statuses` with `group_id`, and
 * `channel_id` for one of its channels, else its primary channel). Only
 * members post; a reply stays in the group and channel of the status it
 * replies to, named or not. A secret group's statuses are posted `direct`
 * to the group's closed audience (its members, kept with each membership),
 * which the one visibility rule of statuses lets see them beside the author
 * and those mentioned; they may mention members only. No read route shows
 * them to a non-member, nor to a member once removed. The group's settings may
 * keep posting to its managers, and send its statuses to its members only
 * (`GroupPostingRules`).
 */
export class GroupPlacement implements StatusPlacement {
  /**
   * The place of each status this process placed lately, for the reactions
   * to its creation: a status in no group (nearly all) costs them no read.
   */
  readonly #placed = new BoundedMap<string, StatusPlace>(1_000);

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly views: GroupViews,
    private readonly posting: GroupPostingRules,
    private readonly primaries: PrimaryChannels,
  ) {}

  /** Where a status this process has just placed went; undefined for a status in no group. */
  placedIn(statusId: string): StatusPlace | undefined {
    return this.#placed.get(statusId);
  }

  async place(request: PlacementRequest): Promise<Placement | null> {
    const target = await this.#targetOf(request);
    if (target === null) return null;
    const { groupId } = target;
    const db = groupsDb(this.deps.storage.db);
    const group = await this.views.visible(groupId, request.accountId, db);
    if (await isBanned(db, groupId, request.accountId)) throw new KithError(groupErrors["group.banned"]);
    if (!(await findMember(db, groupId, request.accountId))) throw new KithError(groupErrors["group.members_only_posting"]);
    if (request.parentId === null && target.channelId !== null) {
      const channel = await findChannel(db, target.channelId);
      if (channel?.group_id !== groupId) throw new KithError(channelErrors["group.channel_outside_group"]);
    }
    const { membersOnly } = await this.posting.check(groupId, request.accountId);
    const secret = toBool(group.secret);
    const createdAt = this.deps.clock.now().toISOString();
    return {
      ...((secret || membersOnly) && { visibility: "direct" as const, audienceId: groupId }),
      record: async (trx: Kysely<Database>, statusId: string, mentionIds: readonly string[]): Promise<void> => {
        const tx = groupsDb(trx);
        // Checked again in the status's transaction: a member removed meanwhile statuses nothing.
        if (!(await findMember(tx, groupId, request.accountId))) throw new KithError(groupErrors["group.members_only_posting"]);
        if (secret) await this.#assertMentionsMembers(tx, groupId, mentionIds);
        const channelId = await this.#countInChannel(tx, group, target.channelId);
        await insertGroupStatus(tx, {
          status_id: statusId,
          group_id: groupId,
          channel_id: channelId,
          account_id: request.accountId,
          created_at: createdAt,
        });
        this.#placed.set(statusId, { groupId, channelId });
      },
    };
  }

  /**
   * Counts the status on its channel and names it: the primary channel's
   * count is moved and its id read in one statement, so that a status posted
   * without a channel costs one more than before channels. A group made
   * before channels gets its primary channel here, once.
   */
  async #countInChannel(db: GroupsDb, group: GroupRow, channelId: string | null): Promise<string> {
    if (channelId !== null) {
      // The channel deleted since the status was allowed.
      if (!(await countChannelStatuses(db, channelId, 1))) throw new KithError(channelErrors["group.channel_outside_group"]);
      return channelId;
    }
    const primaryId = await countOnPrimaryChannel(db, group.id);
    if (primaryId !== undefined) return primaryId;
    const primary = await this.primaries.make(db, group);
    await countChannelStatuses(db, primary.id, 1);
    return primary.id;
  }

  /** An edit of a secret group's status may mention its members only, as the status could. */
  async edited(trx: Kysely<Database>, statusId: string, mentionIds: readonly string[]): Promise<void> {
    if (mentionIds.length === 0) return;
    const tx = groupsDb(trx);
    const groupId = await groupOfStatus(tx, statusId);
    if (groupId === null) return;
    await this.#assertMentionsMembers(tx, groupId, mentionIds);
  }

  async #assertMentionsMembers(db: GroupsDb, groupId: string, mentionIds: readonly string[]): Promise<void> {
    const group = await findGroup(db, groupId);
    if (!group || !toBool(group.secret)) return;
    const members = await membersAmong(db, groupId, mentionIds);
    // The group's own account (its id) is no member, and may be mentioned in it.
    if (mentionIds.some((id) => id !== groupId && !members.has(id))) throw new KithError(groupErrors["group.mention_outside_secret_group"]);
  }

  /** Forgets a deleted status's place in its group. */
  async forgetStatus(statusId: string): Promise<void> {
    await deleteGroupStatus(groupsDb(this.deps.storage.db), statusId);
  }

  /**
   * Where a status goes: its parent's group and channel, which a named group
   * and channel must match, or the named ones for a status that replies to
   * none. A channel is named with its group.
   */
  async #targetOf(request: PlacementRequest): Promise<Target | null> {
    if (request.parentId === null) {
      if (request.groupId === null) {
        if (request.channelId !== null) throw new KithError(channelErrors["group.channel_needs_group"]);
        return null;
      }
      return { groupId: request.groupId, channelId: request.channelId };
    }
    const parent = await placeOfStatus(groupsDb(this.deps.storage.db), request.parentId);
    if (request.groupId !== null && request.groupId !== (parent?.group_id ?? null)) {
      throw new KithError(groupErrors["group.reply_outside_group"]);
    }
    if (request.channelId !== null && request.channelId !== (parent?.channel_id ?? null)) {
      throw new KithError(channelErrors["group.reply_outside_channel"]);
    }
    return parent ? { groupId: parent.group_id, channelId: parent.channel_id } : null;
  }
}
