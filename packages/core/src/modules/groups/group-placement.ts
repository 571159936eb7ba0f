import type { Kysely } from "kysely";
import { BoundedMap } from "../../bounded-map.js";
import { KithError } from "../../domain/errors.js";
import { type Database, toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { Placement, PlacementRequest, StatusPlacement } from "../statuses/index.js";
import { groupErrors } from "./group-errors.js";
import { deleteGroupStatus, groupOfStatus, insertGroupStatus, membersAmong } from "./group-statuses-store.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { findMember, isBanned } from "./members-store.js";

/**
 * Posting in a group (`POST /api/v1/statuses` with `group_id`). Only members
 * post; a reply stays in the group of the status it replies to, named or
 * not. A secret group's statuses are posted `direct` to the group's closed
 * audience (its members, kept with each membership), which the one
 * visibility rule of statuses lets see them beside the author and those
 * mentioned; they may mention members only. No read route shows them to a
 * non-member, nor to a member once removed.
 */
export class GroupPlacement implements StatusPlacement {
  /**
   * The group of each status this process placed lately, for the reactions
   * to its creation: a status in no group (nearly all) costs them no read.
   */
  readonly #placed = new BoundedMap<string, string>(1_000);

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly views: GroupViews,
  ) {}

  /** The group a status this process has just placed went to; undefined for a status in no group. */
  placedIn(statusId: string): string | undefined {
    return this.#placed.get(statusId);
  }

  async place(request: PlacementRequest): Promise<Placement | null> {
    const groupId = await this.#groupOf(request);
    if (groupId === null) return null;
    const db = groupsDb(this.deps.storage.db);
    const group = await this.views.visible(groupId, request.accountId, db);
    if (await isBanned(db, groupId, request.accountId)) throw new KithError(groupErrors["group.banned"]);
    if (!(await findMember(db, groupId, request.accountId))) throw new KithError(groupErrors["group.members_only_posting"]);
    const secret = toBool(group.secret);
    const createdAt = this.deps.clock.now().toISOString();
    return {
      ...(secret && { visibility: "direct" as const, audienceId: groupId }),
      record: async (trx: Kysely<Database>, statusId: string, mentionIds: readonly string[]): Promise<void> => {
        const tx = groupsDb(trx);
        // Checked again in the post's transaction: a member removed meanwhile posts nothing.
        if (!(await findMember(tx, groupId, request.accountId))) throw new KithError(groupErrors["group.members_only_posting"]);
        if (secret) await this.#assertMentionsMembers(tx, groupId, mentionIds);
        await insertGroupStatus(tx, { status_id: statusId, group_id: groupId, account_id: request.accountId, created_at: createdAt });
        this.#placed.set(statusId, groupId);
      },
    };
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
    const group = await db.selectFrom("groups").select("secret").where("id", "=", groupId).executeTakeFirst();
    if (!group || !toBool(group.secret)) return;
    const members = await membersAmong(db, groupId, mentionIds);
    // The group's own account (its id) is no member, and may be mentioned in it.
    if (mentionIds.some((id) => id !== groupId && !members.has(id))) throw new KithError(groupErrors["group.mention_outside_secret_group"]);
  }

  /** Forgets a deleted status's place in its group. */
  async forgetStatus(statusId: string): Promise<void> {
    await deleteGroupStatus(groupsDb(this.deps.storage.db), statusId);
  }

  /** The group a post goes to: its parent's, which a named group must match, or the named one for a post that replies to none. */
  async #groupOf(request: PlacementRequest): Promise<string | null> {
    if (request.parentId === null) return request.groupId;
    const parentGroup = await groupOfStatus(groupsDb(this.deps.storage.db), request.parentId);
    if (request.groupId !== null && request.groupId !== parentGroup) throw new KithError(groupErrors["group.reply_outside_group"]);
    return parentGroup;
  }
}
