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

const CORS_ENTRIES = Object.entries(CORS_HEADERS);

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
  try {
    // The route table's own answers take the headers as they are, without a copy of the response (and its body).
    for (const [name, value] of CORS_ENTRIES) response.headers.set(name, value);
    return response;
  } catch {
    // Responses from elsewhere (fallbacks, fetch) may have immutable headers: copy before adding.
  }
  const copy = new Response(response.body, response);
  for (const [name, value] of CORS_ENTRIES) copy.headers.set(name, value);
  return copy;
}
