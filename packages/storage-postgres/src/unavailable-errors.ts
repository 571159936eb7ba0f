/**
 * SQLSTATE classes and codes that say the server could not answer for now, not that a statement was wrong:
 * connection exceptions (class 08), the server shutting down or starting up (57P01-57P03), too many connections
 * (53300).
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** Socket errors of a lost or refused connection. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]);
/** What pg says when it loses its connection or cannot get one; these errors carry no code. */
const CONNECTION_MESSAGES = /^(?:Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/** Whether a pg error says PostgreSQL could not be reached or would not answer for now (see `Storage.isUnavailable`). */
export function isUnavailableError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && (code.startsWith("08") || UNAVAILABLE_STATES.has(code) || NETWORK_CODES.has(code))) return true;
  return CONNECTION_MESSAGES.test(error.message);
}
