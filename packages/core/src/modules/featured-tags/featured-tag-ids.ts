import { defineErrorCodes } from "../../domain/error-catalog.js";
import { defineIdKinds } from "../../domain/ids.js";

/** Featured hashtags are `ft_…`, time-ordered like every Kith id. */
export const featuredTagIds = defineIdKinds({ featuredTag: "ft" });

/** The featured-tags module's error codes. */
export const featuredTagErrors = defineErrorCodes({
  "featured_tag.not_found": { status: 404, message: "Featured tag not found" },
  "featured_tag.limit_reached": { status: 422, message: "No more hashtags can be featured" },
});
