import { type RouteDeclarer, routesOf } from "../platform/http/route.js";
import type { KithServices } from "./core-services.js";

/**
 * Declares a route of the social core (or an embedder's own): its handler is
 * given the instance's services. Infers the handler's input types from the
 * route's schemas.
 */
export const route: RouteDeclarer<KithServices> = routesOf<KithServices>();
