import type { ServiceDeps } from "../service-deps.js";
import { channelIds } from "./channel-ids.js";
import { chooseGlobalUsername } from "./channel-names.js";
import { type ChannelRow, adoptUnplacedStatuses, findPrimaryChannel, insertChannel, subscribeAllMembers } from "./channel-store.js";
import type { GroupsDb } from "./group-tables-store.js";
import type { GroupRow } from "./groups-store.js";

/** The scoped username of a group's first primary channel. */
export const PRIMARY_USERNAME = "general";

/**
 * A group's primary channel, where its statuses posted without a channel go.
 * A group gets one when it is made; a group made before channels gets one
 * the first time it needs one (its channels are listed, a channel is made
 * in it, a status is posted in it), which then takes the group's statuses
 * and subscribes its members, as if it had been there all along.
 */
export class PrimaryChannels {
  constructor(private readonly deps: Pick<ServiceDeps, "ids" | "clock">) {}

  /** The group's primary channel, made if it has none yet. */
  async ensure(db: GroupsDb, group: Pick<GroupRow, "id" | "name">): Promise<ChannelRow> {
    return (await findPrimaryChannel(db, group.id)) ?? this.make(db, group);
  }

  /** Makes the group's primary channel, auto-subscribe, its members subscribed; one made meanwhile is kept instead. */
  async make(db: GroupsDb, group: Pick<GroupRow, "id" | "name">): Promise<ChannelRow> {
    const id = this.deps.ids.next(channelIds.groupChannel);
    const now = this.deps.clock.now().toISOString();
    const globalUsername = await chooseGlobalUsername(db, `${group.name}_${PRIMARY_USERNAME}`, id);
    const row: ChannelRow = {
      id,
      group_id: group.id,
      parent_id: null,
      username: PRIMARY_USERNAME,
      username_key: PRIMARY_USERNAME,
      global_username: globalUsername,
      global_username_key: globalUsername.toLowerCase(),
      display_name: "General",
      note: "",
      primary_of: group.id,
      auto_subscribe: true,
      statuses_count: 0,
      created_at: now,
      updated_at: now,
    };
    if (!(await insertChannel(db, row))) {
      const made = await findPrimaryChannel(db, group.id);
      if (made) return made;
      throw new Error(`The primary channel of ${group.id} could not be made`);
    }
    await adoptUnplacedStatuses(db, group.id, id);
    await subscribeAllMembers(db, row, now);
    return row;
  }
}
