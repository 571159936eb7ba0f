import { KithError } from "../../domain/errors.js";
import { usernameTaken } from "../accounts/index.js";
import type { PageRequest } from "../../domain/page.js";
import type { KithServices } from "../core-services.js";
import type { GroupRoles } from "../roles/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { toBool } from "../../ports/storage-schema.js";
import type { PrimaryChannels } from "./channel-primary.js";
import { handlesTaken } from "./channel-store.js";
import type { GroupEntity } from "./group-entities.js";
import { groupErrors } from "./group-errors.js";
import { groupIds } from "./group-ids.js";
import { type GroupsDb, type JoinMode, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { type GroupImages, groupImagesMedia } from "./group-account-images.js";
import { insertGroupAccount, retireGroupAccount, updateGroupAccount } from "./group-account-store.js";
import { listChannelAccounts, retireChannelAccounts } from "./channel-account-store.js";
import { type GroupChanges, type GroupRow, deleteGroupRow, directoryPage, findGroup, insertGroup, updateGroup } from "./groups-store.js";
import { readIdPage } from "./id-page.js";
import { insertMember } from "./members-store.js";

export interface NewGroup {
  readonly name: string;
  readonly displayName?: string;
  readonly note?: string;
  readonly joinMode?: JoinMode;
  readonly secret?: boolean;
  readonly discoverable?: boolean;
}

export interface DirectoryRequest {
  readonly q?: string;
  readonly mineOnly?: boolean;
}

/**
 * Groups themselves: making one (with its roles, its maker its owner),
 * reading it, the directory, changing and deleting it. Who may change or
 * delete a group is the route's permission rule, evaluated in the group's
 * scope; the service adds what a rule cannot say (a secret group is
 * `group.not_found` to whoever may not see it).
 */
export class GroupService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">,
    private readonly core: Pick<KithServices, "statuses" | "media" | "events">,
    private readonly roles: GroupRoles,
    private readonly views: GroupViews,
    private readonly primaries: PrimaryChannels,
  ) {}

  #db(): GroupsDb {
    return groupsDb(this.deps.storage.db);
  }

  async create(ownerId: string, input: NewGroup): Promise<GroupEntity> {
    const nameKey = input.name.toLowerCase();
    const id = this.deps.ids.next(groupIds.group);
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      // A group's handle shares the server's namespace with its accounts' (a group is also an account to clients)
      // and its channels' global usernames.
      if ((await handlesTaken(db, [nameKey])).size > 0 || (await usernameTaken(trx, input.name))) {
        throw new KithError(groupErrors["group.name_taken"]);
      }
      const group: GroupRow = {
        id,
        name: input.name,
        name_key: nameKey,
        display_name: input.displayName ?? input.name,
        note: input.note ?? "",
        join_mode: input.joinMode ?? "OPEN",
        secret: input.secret ?? false,
        discoverable: input.discoverable ?? true,
        members_count: 1,
        statuses_count: 0,
        created_at: now,
        updated_at: now,
      };
      await insertGroup(db, group);
      await insertGroupAccount(db, group);
      await insertMember(db, { id: this.deps.ids.next(groupIds.groupMember), group_id: id, account_id: ownerId, joined_at: now });
      await this.roles.createFor(trx, id, ownerId);
      await this.core.statuses.audiences.add(trx, id, ownerId);
      await this.primaries.make(db, { id, name: input.name });
    });
    return this.get(id, ownerId);
  }

  async get(groupId: string, viewerId: string | null): Promise<GroupEntity> {
    return this.views.renderOne(await this.views.visible(groupId, viewerId), viewerId);
  }

  /** Throws `group.not_found` when the viewer may not see the group: what a refused caller is told instead of 403. */
  async conceal(groupId: string, viewerId: string | null): Promise<void> {
    await this.views.visible(groupId, viewerId);
  }

  /** Discoverable groups that are not secret, and the viewer's own, newest first; `q` searches names. */
  async directory(viewerId: string | null, request: DirectoryRequest, page: PageRequest): Promise<GroupEntity[]> {
    const q = request.q?.trim().toLowerCase();
    const rows = await readIdPage(page, (bounds) =>
      directoryPage(this.#db(), { viewerId, mineOnly: request.mineOnly ?? false, ...(q && { q }) }, bounds),
    );
    return this.views.render(rows, viewerId);
  }

  async update(groupId: string, actorId: string, changes: GroupChanges, images: GroupImages = {}): Promise<GroupEntity> {
    const group = await this.views.visible(groupId, actorId);
    // Its statuses were posted for the audience it had: public ones may have been seen and federated, secret ones promised to members.
    if (changes.secret !== undefined && changes.secret !== toBool(group.secret) && Number(group.statuses_count) > 0) {
      throw new KithError(groupErrors["group.secrecy_fixed"]);
    }
    const media = await groupImagesMedia(this.core.media, actorId, images);
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      await updateGroup(db, groupId, changes, now);
      const updated = await findGroup(db, groupId);
      if (updated) {
        await updateGroupAccount(db, groupId, updated, media, now);
        await listChannelAccounts(db, groupId, Boolean(updated.discoverable) && !toBool(updated.secret), now);
      }
    });
    return this.get(groupId, actorId);
  }

  /** Deletes the group with everything of it: members, requests, invitations, questions, rules, roles. */
  async delete(groupId: string, actorId: string): Promise<void> {
    await this.views.visible(groupId, actorId);
    await this.deps.storage.transaction(async (trx) => {
      await this.roles.deleteFor(trx, groupId);
      await this.core.statuses.audiences.clear(trx, groupId);
      const now = this.deps.clock.now().toISOString();
      await retireChannelAccounts(groupsDb(trx), { group: groupId }, now);
      await deleteGroupRow(groupsDb(trx), groupId);
      await retireGroupAccount(groupsDb(trx), groupId, now);
    });
    await this.core.events.emit({ type: "group.deleted", groupId });
  }
}
