import { defineIdKinds } from "../../domain/ids.js";

/** A group's channels are `ch_…`, time-ordered as every Kith id. */
export const channelIds = defineIdKinds({ groupChannel: "ch" });
