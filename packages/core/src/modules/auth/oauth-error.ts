/**
 * Errors of the OAuth endpoints (`/oauth/token`, `/oauth/revoke`). These
 * endpoints answer in RFC 6749's shape (`{"error": "invalid_grant",
 * "error_description": "..."}`), which OAuth client libraries parse, rather
 * than Kith's error body; so they are a separate type, turned into responses
 * in `modules/auth/oauth-error-responses.ts` only.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied";

/** RFC 6749 §5.2: 401 for a client that failed to authenticate, 400 for everything else. */
const STATUS: Readonly<Record<OAuthErrorCode, number>> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  access_denied: 403,
};

const DESCRIPTIONS: Readonly<Record<OAuthErrorCode, string>> = {
  invalid_request: "The request is missing a required parameter or is otherwise malformed.",
  invalid_client:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unauthorized_client: "The client is not authorized to perform this request.",
  unsupported_grant_type: "The authorization grant type is not supported by the authorization server.",
  unsupported_response_type: "The authorization server does not support this response type.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  access_denied: "The resource owner or authorization server denied the request.",
};

export class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  readonly status: number;

  constructor(error: OAuthErrorCode, description?: string) {
    super(description ?? DESCRIPTIONS[error]);
    this.name = "OAuthError";
    this.error = error;
    this.status = STATUS[error];
  }
}

/** Judged by shape, not `instanceof`, which fails across duplicate module copies. */
export function isOAuthError(value: unknown): value is OAuthError {
  if (typeof value !== "object" || value === null) return false;
  const error = (value as { error?: unknown; name?: unknown }).error;
  return (value as { name?: unknown }).name === "OAuthError" && typeof error === "string" && Object.hasOwn(STATUS, error);
}
