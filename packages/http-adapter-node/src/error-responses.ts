/**
 * The few answers the adapter gives itself, in the core's error format
 * (`{ error, code }`), so clients see one shape whoever answered.
 */

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" } as const;

function errorResponse(status: number, code: string, message: string): Response {
  return new Response(JSON.stringify({ error: message, code }), { status, headers: JSON_HEADERS });
}

/** The handler threw (the core never does): the same body the core gives for an unexpected error, and nothing of the error itself. */
export function internalErrorResponse(): Response {
  return errorResponse(500, "server.internal", "Something went wrong on our side");
}

/** A request no web Request can represent (bad Host or target). */
export function badRequestResponse(message: string): Response {
  return errorResponse(400, "request.malformed", message);
}

/** A method fetch refuses (TRACE, TRACK). */
export function methodNotAllowedResponse(): Response {
  return errorResponse(405, "request.method_not_allowed", "That method is not allowed on this path");
}
