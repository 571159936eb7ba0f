import type { KithConfig } from "../../config.js";
import { KithError, isKithError } from "../../domain/errors.js";
import type { Caller } from "../../domain/caller.js";
import { getLogger } from "../../logging.js";
import { requiresCredentials } from "./access.js";
import { authorize } from "./authorize.js";
import { parseBody, parseQuery } from "./body-parser.js";
import { isCorsPath, preflightResponse, withCors } from "./cors.js";
import { errorToResponse } from "./error-response.js";
import { toResponse } from "./reply.js";
import type { AnyRoute } from "./route.js";
import { Router } from "./router.js";
import { validate } from "./validation.js";

const logger = getLogger(["http"]);

/** What the HTTP host knows about a request that a Request does not carry. */
export interface RequestInfo {
  /** The client's address, after trusted proxies. */
  readonly clientIp?: string | null;
}

/** Something that may answer a request the route table does not know (federation, web pages); null passes it on. */
export type FallbackHandler = (request: Request, info: RequestInfo) => Promise<Response | null>;

export type FetchHandler = (request: Request, info?: RequestInfo) => Promise<Response>;

export interface FetchHandlerOptions {
  readonly routes: readonly AnyRoute[];
  /** What handlers are given as `services`; the platform only passes it on. */
  readonly services: unknown;
  /** The caller a bearer token (or none) stands for; throws the auth errors a bad token gets. */
  readonly authenticate: (token: string | null) => Promise<Caller>;
  readonly config: KithConfig;
  readonly fallbacks?: readonly FallbackHandler[];
  /**
   * Whether requests from a client's address are served at all (Mastodon's `no_access` IP blocks): a refused one is
   * answered 403 whatever it asks and whatever token it holds. @default every address
   */
  readonly addressAllowed?: (ip: string) => Promise<boolean>;
}

/**
 * Bearer token from the Authorization header, or `access_token` in the query
 * (streaming clients). HTTP Basic is not a user credential here: OAuth clients
 * send their client id and secret that way to the token endpoint.
 */
export function bearerToken(request: Request, url: URL): string | null {
  const header = request.headers.get("authorization");
  if (header && !/^Basic\s/i.test(header)) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1] ?? null;
  }
  return url.searchParams.get("access_token");
}

/** An Authorization header that is neither a well-formed bearer token nor Basic client credentials. */
function hasUnusableAuthorization(request: Request, token: string | null): boolean {
  const header = request.headers.get("authorization");
  return header !== null && token === null && !/^Basic\s/i.test(header);
}

async function dispatch(
  route: AnyRoute,
  rawParams: Record<string, string>,
  request: Request,
  url: URL,
  info: RequestInfo,
  options: FetchHandlerOptions,
): Promise<Response> {
  const { services, config, authenticate } = options;
  const token = bearerToken(request, url);
  if (hasUnusableAuthorization(request, token)) throw new KithError("auth.unauthenticated");
  const caller = await authenticate(token);
  // Credentials come first: a guest learns nothing about the input a protected route expects.
  if (requiresCredentials(route.access) && caller.kind === "guest") throw new KithError("auth.unauthenticated");

  const rawQuery = parseQuery(url);
  const hasBody = !route.rawBody && request.method !== "GET" && request.method !== "HEAD";
  const readBody = () => (hasBody ? parseBody(request, route.maxBodyBytes ?? config.limits.maxJsonBodyBytes) : Promise.resolve({}));
  // The body is read before the permission check only when the rule's group is named in it;
  // otherwise a caller without the permission gets 403 whatever it sent.
  const groupInBody = route.access.kind === "permission" && route.access.group?.source === "body";
  let rawBody: unknown = groupInBody ? await readBody() : {};
  try {
    await authorize(
      caller,
      route.access,
      route.scopes ?? [],
      { params: rawParams, query: rawQuery, body: rawBody },
      { allowUnconfirmedEmail: route.allowUnconfirmedEmail ?? false },
    );
  } catch (error) {
    // The route may answer a refused caller as if what it names did not exist (see `whenForbidden`).
    if (route.whenForbidden && isKithError(error) && error.code === "auth.forbidden") {
      await route.whenForbidden({ caller, params: rawParams, services });
    }
    throw error;
  }
  if (!groupInBody) rawBody = await readBody();

  const params = route.params ? validate(route.params, rawParams, "params") : rawParams;
  const query = route.query ? validate(route.query, rawQuery, "query") : rawQuery;
  const body = route.body ? validate(route.body, rawBody, "body") : rawBody;
  const result = await route.handler({
    params,
    query,
    body,
    caller,
    services,
    config,
    request,
    url,
    clientIp: info.clientIp ?? null,
  });
  return toResponse(result, route.status ?? 200);
}

/**
 * The whole HTTP surface as a web-standard fetch handler: route table first,
 * then the fallbacks, then a 404 in the error format. Never throws.
 */
export function createFetchHandler(options: FetchHandlerOptions): FetchHandler {
  const router = new Router(options.routes);
  return async (request, info = {}) => {
    const started = performance.now();
    let response: Response;
    let url: URL | undefined;
    try {
      url = new URL(request.url);
      if (request.method === "OPTIONS" && isCorsPath(url.pathname)) return preflightResponse(request);
      const match = router.match(request.method, url.pathname);
      if (info.clientIp && options.addressAllowed && !(await options.addressAllowed(info.clientIp))) {
        response = errorToResponse(new KithError("auth.address_blocked"), request);
      } else if (match.kind === "found") {
        response = await dispatch(match.route, match.params, request, url, info, options);
      } else {
        let fallback: Response | null = null;
        for (const handler of options.fallbacks ?? []) {
          fallback = await handler(request, info);
          if (fallback) break;
        }
        if (fallback) response = fallback;
        else if (match.kind === "method_not_allowed") {
          response = errorToResponse(new KithError("request.method_not_allowed"), request);
          response.headers.set("allow", match.allowed.join(", "));
        } else response = errorToResponse(new KithError("request.not_found"), request);
      }
    } catch (error) {
      response = errorToResponse(error, request);
    }
    if (request.method === "HEAD") response = new Response(null, { status: response.status, headers: response.headers });
    if (url && isCorsPath(url.pathname)) response = withCors(response);
    // Checked first: the line is off in production, and its properties would be built for nothing on every request.
    if (logger.isEnabledFor("debug")) {
      logger.debug("{method} {path} {status} {ms}ms", {
        method: request.method,
        path: url?.pathname,
        status: response.status,
        ms: Math.round(performance.now() - started),
      });
    }
    return response;
  };
}
