import { isOAuthError } from "./oauth-error.js";
import type { HandlerResult } from "../../platform/http/reply.js";

/** Token responses and errors must not be cached (RFC 6749 §5.1). */
export const NO_STORE: Readonly<Record<string, string>> = { "cache-control": "no-store", pragma: "no-cache" };

/**
 * The one place where OAuth errors become responses. `/oauth/token` and
 * `/oauth/revoke` answer in RFC 6749's shape, `{"error", "error_description"}`,
 * because OAuth client libraries read that; every other error (a rate limit,
 * a bug) passes on to Kith's own error mapping.
 */
export async function answeringOAuthErrors(work: () => Promise<HandlerResult>): Promise<HandlerResult> {
  try {
    return await work();
  } catch (error) {
    if (!isOAuthError(error)) throw error;
    return new Response(JSON.stringify({ error: error.error, error_description: error.message }), {
      status: error.status,
      headers: { "content-type": "application/json; charset=utf-8", ...NO_STORE },
    });
  }
}

/** The string parameters of an OAuth request body (form or JSON); other values are ignored, as if absent. */
/**
 * Client credentials sent as HTTP Basic (RFC 6749 section 2.3.1: each part
 * form-url-encoded, then base64), added to the body's parameters unless the
 * body names the client itself.
 */
export function withBasicClientCredentials(params: Record<string, string | undefined>, request: Request): Record<string, string | undefined> {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  if (!match || params.client_id !== undefined) return params;
  const decoded = Buffer.from(match[1] ?? "", "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon === -1) return params;
  try {
    const clientId = decodeURIComponent(decoded.slice(0, colon).replaceAll("+", " "));
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1).replaceAll("+", " "));
    return { ...params, client_id: clientId, client_secret: clientSecret };
  } catch {
    return params;
  }
}

export function oauthParams(body: unknown): Record<string, string | undefined> {
  const params: Record<string, string | undefined> = {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) return params;
  for (const [name, value] of Object.entries(body)) {
    if (typeof value === "string") params[name] = value;
    else if (typeof value === "number" || typeof value === "boolean") params[name] = String(value);
  }
  return params;
}
