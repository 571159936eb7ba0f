import { defineErrorCodes, defineIdKinds } from "@kith/core";

/** The module's id kind: entries are `gb_…`, time-ordered like every Kith id. */
export const guestbookIds = defineIdKinds({ guestbookEntry: "gb" });

/** The module's error codes, answered with the error body every route uses. */
export const guestbookErrors = defineErrorCodes({
  "guestbook.entry_not_found": { status: 404, message: "Guestbook entry not found" },
  "guestbook.not_yours": { status: 403, message: "Only the entry's author or the guestbook's owner may delete it" },
  "guestbook.blocked": { status: 403, message: "The guestbook's owner blocks you" },
  "guestbook.own_guestbook": { status: 422, message: "You cannot sign your own guestbook" },
});
