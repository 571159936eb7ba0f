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

  // Registration, email confirmation, the email-domain allowlist, signup requests
  "registration.closed": { status: 403, message: "Registrations are closed on this server" },
  "registration.invalid": { status: 422, message: "Validation failed" },
  "registration.confirmation_invalid": { status: 404, message: "This confirmation link is invalid, used or expired" },
  "registration.already_confirmed": { status: 409, message: "The email address is already confirmed" },
  "registration.email_unconfirmed": { status: 403, message: "Your login is missing a confirmed e-mail address" },
  "email_allow.invalid_domain": { status: 422, message: "That is not a valid email domain" },
  "email_allow.exists": { status: 409, message: "That domain is already on the allowlist" },
  "email_allow.not_found": { status: 404, message: "That domain is not on the allowlist" },
  "signup.not_found": { status: 404, message: "Signup request not found" },
  "signup.not_pending": { status: 409, message: "That account is not awaiting approval" },

  // Roles
  "role.not_found": { status: 404, message: "Role not found" },
  "role.invalid": { status: 422, message: "The role is not valid" },
  "role.name_taken": { status: 422, message: "A role of that name already exists in that scope" },
  "role.built_in": { status: 409, message: "Built-in roles cannot be renamed or deleted" },
  "role.last_owner": { status: 409, message: "The server's last Owner cannot lose the Owner role" },
  "role.escalation": { status: 403, message: "You cannot grant or change permissions you do not hold yourself" },
  "role.assignment_not_found": { status: 404, message: "The actor does not hold that role" },

  // Administration of accounts
  "admin_account.not_pending": { status: 409, message: "That account is not awaiting approval" },
  "admin_account.not_suspended": { status: 409, message: "Only suspended accounts can be deleted" },
  "admin_account.not_bot": { status: 409, message: "Only bot (Service) accounts can be impersonated" },
  "admin_account.cannot_sign_in": { status: 409, message: "That account cannot sign in" },
  "admin_account.remote": { status: 422, message: "That action applies to local accounts only" },
  "admin_account.self": { status: 409, message: "You cannot do that to your own account" },
  "admin_account.outranked": { status: 403, message: "That account holds permissions you do not hold" },

  // Settings
  "settings.invalid_value": { status: 422, message: "That setting value is not valid" },

  // Server
  "server.internal": { status: 500, message: "Something went wrong on our side" },
  "server.unavailable": { status: 503, message: "The service is unavailable" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;
