import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

/** Collections are `cl_…` and their items `ci_…`, time-ordered like every Kith id. */
export const collectionIds = defineIdKinds({ accountCollection: "cl", accountCollectionItem: "ci" });

/** The collections module's error codes. */
export const collectionErrors = defineErrorCodes({
  "collection.not_found": { status: 404, message: "Collection not found" },
  "collection.item_not_found": { status: 404, message: "Collection item not found" },
  "collection.full": { status: 422, message: "The collection holds as many accounts as it can" },
  "collection.account_refused": { status: 422, message: "That account cannot be added to the collection" },
  "collection.already_added": { status: 422, message: "The account is in the collection already" },
  "collection.not_owner": { status: 403, message: "Only the collection's owner may change it" },
});
