/** What other modules use of statuses: rendering them (and their accounts) for a viewer. */
export type { AccountRenderer, StatusViews } from "./status-views.js";
export type { AudienceMembership, Placement, PlacementRequest, StatusPlacement } from "./status-placement.js";
export type { StatusInput, StatusService } from "./status-service.js";
export type { StatusScheduler, StatusScheduling } from "./status-scheduling.js";
export type { StatusTranslator, StatusTranslation } from "./status-translation.js";
