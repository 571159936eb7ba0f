/** What other modules use of hashtags: the service, tags by id, and the day a use counts in. */
export type { TagService } from "./tag-service.js";
export { findTagsByIds } from "./tags-store.js";
export type { TagRecord } from "./tags-store.js";
export { dayStart } from "./tag-history.js";
