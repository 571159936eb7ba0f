import { defineErrorCodes } from "../../domain/error-catalog.js";

/** The refusals of group settings, beside the groups module's own codes. */
export const groupSettingsErrors = defineErrorCodes({
  "group.setting_unknown": { status: 422, message: "No group setting has that key" },
  "group.setting_invalid": { status: 422, message: "A setting is written as a whole object; some fields are missing or not valid" },
  "group.managers_only_posting": { status: 403, message: "Only the group's managers may post in it" },
});
