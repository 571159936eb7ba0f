/** What other modules use of statuses: rendering them (and their accounts) for a viewer. */
export type { AccountRenderer, StatusViews } from "./status-views.js";
export type { AudienceMembership, Placement, PlacementRequest, StatusPlacement } from "./status-placement.js";
