/**
 * Every error Kith reports, by stable code `<area>.<reason>`. The HTTP status
 * lives here and nowhere else; `api/error-response.ts` is the one place that
 * turns an error into a response. Add a code here when an area needs one.
 */
export const errorCatalog = {
  // Requests
  "request.malformed": { status: 400, message: "The request could not be understood" },
  "request.malformed_json": { status: 400, message: "The request body is not valid JSON" },
  "request.malformed_body": { status: 400, message: "The request body could not be read" },
  "request.invalid_parameters": { status: 400, message: "Some parameters are invalid" },
  "request.unsupported_media_type": { status: 415, message: "That content type is not supported here" },
  "request.body_too_large": { status: 413, message: "The request body is too large" },
  "request.not_found": { status: 404, message: "Not found" },
  "request.method_not_allowed": { status: 405, message: "That method is not allowed on this path" },
  "request.rate_limited": { status: 429, message: "Too many requests; try again later" },
  "request.validation_failed": { status: 422, message: "Validation failed" },

  // Authentication and authorization
  "auth.unauthenticated": { status: 401, message: "The access token is missing or invalid" },
  "auth.forbidden": { status: 403, message: "You are not allowed to do that" },
  "auth.insufficient_scope": { status: 403, message: "This action is outside the token's scope" },
  "auth.must_not_be_authenticated": { status: 403, message: "This action is only available when signed out" },

  // Accounts
  "account.not_found": { status: 404, message: "Account not found" },
  "account.username_taken": { status: 422, message: "That username is already taken" },
  "account.email_taken": { status: 422, message: "That email address is already in use" },
  "account.invalid_username": { status: 422, message: "Usernames use letters, digits and underscores, up to 30 characters" },
  "account.invalid_email": { status: 422, message: "That email address is not valid" },
  "account.password_too_short": { status: 422, message: "The password is too short" },

  // OAuth apps and sessions
  "oauth.app_not_found": { status: 404, message: "No application with that client id" },
  "oauth.invalid_scope": { status: 422, message: "The requested scopes are unknown or not allowed" },
  "oauth.invalid_redirect_uri": { status: 422, message: "Redirect URIs must be absolute URIs without fragments, or urn:ietf:wg:oauth:2.0:oob" },
  "session.not_found": { status: 404, message: "Session not found" },
  "session.current": { status: 409, message: "The session making this request cannot be revoked or deleted" },

  // Jobs
  "job.not_found": { status: 404, message: "Job not found" },
  "job.active": { status: 409, message: "An active job cannot be deleted or cleared" },
  "job.not_retryable": { status: 409, message: "Only failed or dead-letter jobs can be retried" },
  "job.unreadable_payload": { status: 422, message: "The job's payload cannot be read" },
  "queue.not_found": { status: 404, message: "Queue not found" },

  // Roles
  "role.not_found": { status: 404, message: "Role not found" },

  // Settings
  "settings.invalid_value": { status: 422, message: "That setting value is not valid" },

  // Server
  "server.internal": { status: 500, message: "Something went wrong on our side" },
  "server.unavailable": { status: 503, message: "The service is unavailable" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;
