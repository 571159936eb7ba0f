import { KithError, isKithError } from "../../domain/errors.js";
import { toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { ChannelEntity } from "./channel-entities.js";
import { channelErrors } from "./channel-errors.js";
import { channelIds } from "./channel-ids.js";
import { chooseGlobalUsername, makesCycle } from "./channel-names.js";
import type { PrimaryChannels } from "./channel-primary.js";
import {
  CHANNELS_PER_GROUP,
  type ChannelChanges,
  type ChannelRow,
  channelsOf,
  deleteChannelRow,
  deleteSubscription,
  findChannel,
  handlesTaken,
  hasChildChannels,
  insertChannel,
  insertSubscription,
  movePrimary,
  subscribedAmong,
  updateChannel,
} from "./channel-store.js";
import { groupErrors } from "./group-errors.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { findMember } from "./members-store.js";

export interface NewChannel {
  readonly username: string;
  /** The server names it `<group>_<username>` (or a free variant) when not given. */
  readonly globalUsername?: string;
  readonly displayName?: string;
  readonly note?: string;
  readonly parentId?: string | null;
  readonly autoSubscribe?: boolean;
}

export interface ChannelUpdate {
  readonly username?: string;
  readonly globalUsername?: string;
  readonly displayName?: string;
  readonly note?: string;
  /** Null moves the channel to the top. */
  readonly parentId?: string | null;
  readonly autoSubscribe?: boolean;
  /** True makes the channel the group's primary one; a primary channel stops being one only so. */
  readonly primary?: boolean;
}

/**
 * The channel, if the viewer may see its group; `group.channel_not_found`
 * otherwise, as for a channel that does not exist (a secret group's
 * channels are as absent to non-members as the group).
 */
export async function visibleChannel(db: GroupsDb, views: GroupViews, channelId: string, viewerId: string | null): Promise<ChannelRow> {
  const channel = await findChannel(db, channelId);
  if (!channel) throw new KithError(channelErrors["group.channel_not_found"]);
  try {
    await views.visible(channel.group_id, viewerId, db);
  } catch (error) {
    if (isKithError(error) && error.code === groupErrors["group.not_found"]) throw new KithError(channelErrors["group.channel_not_found"]);
    throw error;
  }
  return channel;
}

/**
 * A group's channels: nested (a parent of the same group, never a cycle),
 * one primary, some subscribed to on joining. Who may make, change and
 * delete them is the route's rule (GroupSettings.Manage in the group); the
 * service keeps the rules of their names and their tree. A channel with
 * channels nested in it is not deleted (they would be left without a
 * parent): they are deleted or moved first. A deleted channel's statuses
 * stay in the group, moved to the primary channel. A group that has
 * uninstalled the `channels` application answers 404 for them.
 */
export class ChannelService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">,
    private readonly views: GroupViews,
    private readonly primaries: PrimaryChannels,
    /** Refuses with 404 when the group has uninstalled its channels application. */
    private readonly installedIn: (groupId: string) => Promise<void>,
  ) {}

  #db(): GroupsDb {
    return groupsDb(this.deps.storage.db);
  }

  /** The group's channels, the primary first, then in the order they were made. */
  async list(groupId: string, viewerId: string | null): Promise<ChannelEntity[]> {
    const group = await this.views.visible(groupId, viewerId);
    await this.installedIn(groupId);
    const channels = await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      await this.primaries.ensure(db, group);
      return channelsOf(db, groupId);
    });
    return this.render(channels, viewerId);
  }

  async get(groupId: string, channelId: string, viewerId: string | null): Promise<ChannelEntity> {
    await this.views.visible(groupId, viewerId);
    await this.installedIn(groupId);
    return this.#renderOne(await this.#inGroup(this.#db(), groupId, channelId), viewerId);
  }

  /** The channel, if the viewer may see its group (timelines and streams name a channel alone). */
  async visible(channelId: string, viewerId: string | null): Promise<ChannelRow> {
    return visibleChannel(this.#db(), this.views, channelId, viewerId);
  }

  async create(groupId: string, actorId: string, input: NewChannel): Promise<ChannelEntity> {
    const group = await this.views.visible(groupId, actorId);
    await this.installedIn(groupId);
    const id = this.deps.ids.next(channelIds.groupChannel);
    const now = this.deps.clock.now().toISOString();
    const row = await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      await this.primaries.ensure(db, group);
      const channels = await channelsOf(db, groupId);
      if (channels.length >= CHANNELS_PER_GROUP) throw new KithError(channelErrors["group.channel_limit"]);
      const parentId = input.parentId ?? null;
      if (parentId !== null && !channels.some((channel) => channel.id === parentId)) {
        throw new KithError(channelErrors["group.channel_parent_not_found"]);
      }
      this.#assertUsernameFree(channels, input.username, null);
      const globalUsername = input.globalUsername
        ? await this.#assertGlobalFree(db, input.globalUsername, null)
        : await chooseGlobalUsername(db, `${group.name}_${input.username}`, id);
      const row: ChannelRow = {
        id,
        group_id: groupId,
        parent_id: parentId,
        username: input.username,
        username_key: input.username.toLowerCase(),
        global_username: globalUsername,
        global_username_key: globalUsername.toLowerCase(),
        display_name: input.displayName || input.username,
        note: input.note ?? "",
        primary_of: null,
        auto_subscribe: input.autoSubscribe ?? false,
        statuses_count: 0,
        created_at: now,
        updated_at: now,
      };
      // A name taken by a request at the same moment.
      if (!(await insertChannel(db, row))) throw new KithError(channelErrors["group.channel_username_taken"]);
      return row;
    });
    return this.#renderOne(row, actorId);
  }

  async update(groupId: string, channelId: string, actorId: string, update: ChannelUpdate): Promise<ChannelEntity> {
    const group = await this.views.visible(groupId, actorId);
    await this.installedIn(groupId);
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      await this.primaries.ensure(db, group);
      const channel = await this.#inGroup(db, groupId, channelId);
      if (update.primary === false && channel.primary_of !== null) throw new KithError(channelErrors["group.channel_primary_required"]);
      const channels = await channelsOf(db, groupId);
      const changes: { -readonly [K in keyof ChannelChanges]: ChannelChanges[K] } = {};
      if (update.username !== undefined && update.username.toLowerCase() !== channel.username_key) {
        this.#assertUsernameFree(channels, update.username, channelId);
      }
      if (update.username !== undefined) Object.assign(changes, { username: update.username, username_key: update.username.toLowerCase() });
      if (update.globalUsername !== undefined) {
        const globalUsername = await this.#assertGlobalFree(db, update.globalUsername, channelId);
        Object.assign(changes, { global_username: globalUsername, global_username_key: globalUsername.toLowerCase() });
      }
      if (update.displayName !== undefined) changes.display_name = update.displayName || channel.username;
      if (update.note !== undefined) changes.note = update.note;
      if (update.autoSubscribe !== undefined) changes.auto_subscribe = update.autoSubscribe;
      if (update.parentId !== undefined) changes.parent_id = this.#checkedParent(channels, channelId, update.parentId);
      await updateChannel(db, channelId, changes, now);
      if (update.primary === true && channel.primary_of === null) await movePrimary(db, groupId, channelId, now);
    });
    return this.get(groupId, channelId, actorId);
  }

  async delete(groupId: string, channelId: string, actorId: string): Promise<void> {
    const group = await this.views.visible(groupId, actorId);
    await this.installedIn(groupId);
    await this.deps.storage.transaction(async (trx) => {
      const db = groupsDb(trx);
      const primary = await this.primaries.ensure(db, group);
      const channel = await this.#inGroup(db, groupId, channelId);
      if (channel.id === primary.id) throw new KithError(channelErrors["group.channel_primary"]);
      if (await hasChildChannels(db, channelId)) throw new KithError(channelErrors["group.channel_has_children"]);
      await deleteChannelRow(db, channel, primary.id, this.deps.clock.now().toISOString());
    });
  }

  /** Subscribes a member to a channel; subscribing again changes nothing. */
  async subscribe(groupId: string, channelId: string, accountId: string): Promise<ChannelEntity> {
    await this.views.visible(groupId, accountId);
    await this.installedIn(groupId);
    const db = this.#db();
    const channel = await this.#inGroup(db, groupId, channelId);
    if (!(await findMember(db, groupId, accountId))) throw new KithError(channelErrors["group.channel_members_only"]);
    await insertSubscription(db, channel, accountId, this.deps.clock.now().toISOString());
    return this.#renderOne(channel, accountId);
  }

  /** Ends a subscription; one that was not there is no error. */
  async unsubscribe(groupId: string, channelId: string, accountId: string): Promise<ChannelEntity> {
    await this.views.visible(groupId, accountId);
    await this.installedIn(groupId);
    const db = this.#db();
    const channel = await this.#inGroup(db, groupId, channelId);
    await deleteSubscription(db, channelId, accountId);
    return this.#renderOne(channel, accountId);
  }

  /** The channels as the viewer sees them. */
  async render(channels: readonly ChannelRow[], viewerId: string | null): Promise<ChannelEntity[]> {
    const ids = channels.map((channel) => channel.id);
    const subscribed = viewerId === null ? new Set<string>() : await subscribedAmong(this.#db(), viewerId, ids);
    return channels.map((channel) => ({
      id: channel.id,
      group_id: channel.group_id,
      parent_id: channel.parent_id,
      username: channel.username,
      global_username: channel.global_username,
      display_name: channel.display_name,
      note: channel.note,
      primary: channel.primary_of !== null,
      auto_subscribe: toBool(channel.auto_subscribe),
      subscribed: subscribed.has(channel.id),
      statuses_count: Number(channel.statuses_count),
      created_at: channel.created_at,
    }));
  }

  async #renderOne(channel: ChannelRow, viewerId: string | null): Promise<ChannelEntity> {
    const [entity] = await this.render([channel], viewerId);
    if (!entity) throw new KithError(channelErrors["group.channel_not_found"]);
    return entity;
  }

  async #inGroup(db: GroupsDb, groupId: string, channelId: string): Promise<ChannelRow> {
    const channel = await findChannel(db, channelId);
    if (!channel || channel.group_id !== groupId) throw new KithError(channelErrors["group.channel_not_found"]);
    return channel;
  }

  #assertUsernameFree(channels: readonly ChannelRow[], username: string, exceptChannel: string | null): void {
    const key = username.toLowerCase();
    if (channels.some((channel) => channel.username_key === key && channel.id !== exceptChannel)) {
      throw new KithError(channelErrors["group.channel_username_taken"]);
    }
  }

  /** The global username, once known to be no other handle on the server. */
  async #assertGlobalFree(db: GroupsDb, globalUsername: string, exceptChannel: string | null): Promise<string> {
    const taken = await handlesTaken(db, [globalUsername.toLowerCase()], exceptChannel);
    if (taken.size > 0) throw new KithError(channelErrors["group.channel_global_username_taken"]);
    return globalUsername;
  }

  /** The new parent of a channel: one of the group's, never the channel itself nor one nested in it. */
  #checkedParent(channels: readonly ChannelRow[], channelId: string, parentId: string | null): string | null {
    if (parentId === null) return null;
    if (!channels.some((channel) => channel.id === parentId)) throw new KithError(channelErrors["group.channel_parent_not_found"]);
    if (makesCycle(channels, channelId, parentId)) throw new KithError(channelErrors["group.channel_cycle"]);
    return parentId;
  }
}
