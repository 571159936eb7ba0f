import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

/** Endorsements are `ae_…`, time-ordered like every Kith id: their order is the order of the lists. */
export const endorsementIds = defineIdKinds({ accountEndorsement: "ae" });

/** The endorsements module's error codes. */
export const endorsementErrors = defineErrorCodes({
  // Mastodon's rule: an account is featured only by those who follow it.
  "endorsement.not_followed": { status: 422, message: "You must be already following the person you want to endorse" },
});
