import { defineIdKinds } from "../../domain/ids.js";

/** Preview cards are `pc_…`, time-ordered like every Kith id. */
export const previewCardIds = defineIdKinds({ previewCard: "pc" });
