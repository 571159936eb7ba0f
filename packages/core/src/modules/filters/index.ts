/** What other modules use of content filters: the service and what it filters. */
export type { FilterableStatus } from "./filter-matcher.js";
export type { FilterService } from "./filter-service.js";
