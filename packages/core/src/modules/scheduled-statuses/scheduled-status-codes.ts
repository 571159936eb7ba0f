import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

/** Scheduled statuses are `sd_…`, time-ordered like every Kith id. */
export const scheduledStatusIds = defineIdKinds({ scheduledStatus: "sd" });

/** The refusals of scheduling, with Mastodon's limits: five minutes ahead at least, 300 waiting, 25 on one day. */
export const scheduledStatusErrors = defineErrorCodes({
  "scheduled_status.not_found": { status: 404, message: "Record not found" },
  "scheduled_status.too_soon": { status: 422, message: "Validation failed: Scheduled at must be at least 5 minutes in the future" },
  "scheduled_status.over_total_limit": { status: 422, message: "Validation failed: You have exceeded the limit of 300 scheduled posts" },
  "scheduled_status.over_daily_limit": {
    status: 422,
    message: "Validation failed: You have exceeded the limit of 25 scheduled posts on that day",
  },
});
