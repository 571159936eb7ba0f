import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

/** Web Push subscriptions are `ps_…`, time-ordered like every Kith id. */
export const pushIds = defineIdKinds({ pushSubscription: "ps" });

/** The push module's error codes, answered with the error body every route uses. */
export const pushErrors = defineErrorCodes({
  "push.not_found": { status: 404, message: "Record not found" },
  "push.invalid_subscription": { status: 422, message: "The subscription's endpoint or keys are not valid" },
});
