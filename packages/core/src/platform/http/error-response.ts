import { errorCatalog } from "../../domain/error-catalog.js";
import { isKithError, statusOf } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";

const logger = getLogger(["http"]);

/**
 * The one place where errors become HTTP responses. Body:
 * `{"error": "<message for people>", "code": "<area.reason>", "details": [...]}`.
 * Anything that is not a Kith error is a bug: it is logged with its stack,
 * and the client gets a 500 that says nothing about it.
 */
export function errorToResponse(error: unknown, request?: Request): Response {
  if (isKithError(error)) {
    const status = statusOf(error.code);
    const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
    const body: Record<string, unknown> = { ...error.fields, error: error.message, code: error.code };
    if (error.details && error.details.length > 0) body.details = error.details;
    if (status >= 500) logger.error("Request failed with {code}: {error}", { code: error.code, error });
    return new Response(JSON.stringify(body), { status, headers });
  }
  logger.error("Unexpected error on {method} {path}: {error}", {
    method: request?.method,
    path: request ? new URL(request.url).pathname : undefined,
    error,
  });
  const { status, message } = errorCatalog["server.internal"];
  return new Response(JSON.stringify({ error: message, code: "server.internal" }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}
