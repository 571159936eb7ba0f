import type { z } from "zod";
import type { KithConfig } from "../../config.js";
import type { Caller } from "../../domain/caller.js";
import type { Access } from "./access.js";
import type { HandlerResult } from "./reply.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Everything a handler gets: parsed input, the caller, the services. Never SQL, never ports.
 * The platform knows no service: `S` is the services object the routes are composed with.
 */
export interface HandlerContext<P, Q, B, S = unknown> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly caller: Caller;
  readonly services: S;
  readonly config: KithConfig;
  readonly request: Request;
  readonly url: URL;
  /** The client's address as the HTTP host reports it (trusted proxies honoured). */
  readonly clientIp: string | null;
}

/** What a route's `whenForbidden` gets: who asked, and the path parameters as they came (not parsed yet). */
export interface ForbiddenContext<S = unknown> {
  readonly caller: Caller;
  readonly params: Readonly<Record<string, string>>;
  readonly services: S;
}

/** One endpoint, declared once: the router, the OpenAPI document and the permission tests derive from it. */
export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, S = unknown> {
  readonly method: HttpMethod;
  /** Path with `{name}` parameters, e.g. `/api/v1/admin/reports/{reportId}/assign`. */
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  /** Groups routes in the reference; defaults to the path's first segment after the version. */
  readonly tags?: readonly string[];
  readonly access: Access;
  /** A signed-in user whose email is not confirmed yet may call it (resending the confirmation). @default false */
  readonly allowUnconfirmedEmail?: boolean;
  /** OAuth scopes, any of which lets a token call the route. */
  readonly scopes?: readonly string[];
  readonly params?: z.ZodType<P>;
  readonly query?: z.ZodType<Q>;
  readonly body?: z.ZodType<B>;
  /** The handler reads `request.body` itself (uploads); no parsing, no size limit from the JSON default. */
  readonly rawBody?: boolean;
  /** Largest body accepted, in bytes. @default the instance's JSON limit */
  readonly maxBodyBytes?: number;
  /** Shape of a successful response, for the OpenAPI document. */
  readonly response?: z.ZodType;
  /** Status of a successful plain-value response. @default 200 */
  readonly status?: number;
  /** Content type of a successful response when it is not JSON. */
  readonly produces?: string;
  /**
   * Runs when the caller lacks the route's permission, before the 403 is
   * answered, and may throw another error instead: a 404 where what the route
   * names is not visible to the caller at all (a secret group to a
   * non-member), so that a 403 does not tell that it exists.
   */
  whenForbidden?(context: ForbiddenContext<S>): Promise<void>;
  handler(context: HandlerContext<P, Q, B, S>): Promise<HandlerResult> | HandlerResult;
}

/** A route of any input types, as the route table holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the table holds routes of every input type; each is checked where declared.
export type AnyRoute = RouteDefinition<any, any, any, any>;

/** Declares a route of a given services object; infers the handler's input types from its schemas. */
export type RouteDeclarer<S> = <P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(
  definition: RouteDefinition<P, Q, B, S>,
) => RouteDefinition<P, Q, B, S>;

/** A `route` function whose handlers get services of type `S`, where the services are composed. */
export function routesOf<S>(): RouteDeclarer<S> {
  return (definition) => definition;
}
