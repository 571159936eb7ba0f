import { defineErrorCodes } from "../../domain/error-catalog.js";

/** The refusals of platform data. A caller without Data.Manage for an entry's owner gets the core's `auth.forbidden`. */
export const dataErrors = defineErrorCodes({
  "data.not_found": { status: 404, message: "No platform data entry has that id" },
  "data.owner_immutable": { status: 409, message: "An entry's owner cannot change: ownerId must be the entry's owner" },
  "data.owner_unknown": { status: 422, message: "The owner is neither an existing local user, an existing group, nor the platform" },
  "data.content_too_large": { status: 413, message: "The entry's content is larger than an entry may hold" },
  "data.invalid": { status: 422, message: "The entry is not valid" },
});
