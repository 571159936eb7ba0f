/**
 * Browser clients (Elk, Phanpy) call the API from other origins with bearer
 * tokens, not cookies, so the API answers any origin, as Mastodon does.
 */
const CORS_PATHS = [/^\/api\//, /^\/oauth\/token$/, /^\/oauth\/revoke$/, /^\/\.well-known\//, /^\/nodeinfo\//];

export function isCorsPath(pathname: string): boolean {
  return CORS_PATHS.some((pattern) => pattern.test(pathname));
}

export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Link, X-RateLimit-Reset, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id, Idempotency-Key",
};

export function preflightResponse(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      "access-control-allow-methods": "POST, PUT, DELETE, GET, PATCH, OPTIONS",
      "access-control-allow-headers": request.headers.get("access-control-request-headers") ?? "Authorization, Content-Type",
      "access-control-max-age": "86400",
    },
  });
}

export function withCors(response: Response): Response {
  // Responses from elsewhere (fallbacks) may have immutable headers: copy before adding.
  const copy = new Response(response.body, response);
  for (const [name, value] of Object.entries(CORS_HEADERS)) copy.headers.set(name, value);
  return copy;
}
