/**
 * Every error Kith reports, by stable code `<area>.<reason>`. The HTTP status
 * lives here and nowhere else; `platform/http/error-response.ts` is the one place that
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
  "request.nesting_too_deep": { status: 422, message: "The parameters are nested too deeply" },

  // Authentication and authorization
  "auth.unauthenticated": { status: 401, message: "The access token is missing or invalid" },
  "auth.forbidden": { status: 403, message: "You are not allowed to do that" },
  "auth.insufficient_scope": { status: 403, message: "This action is outside the token's scope" },
  "auth.address_blocked": { status: 403, message: "Access from your network address is blocked" },
  "auth.must_not_be_authenticated": { status: 403, message: "This action is only available when signed out" },

  // Accounts
  "account.not_found": { status: 404, message: "Account not found" },
  "account.username_taken": { status: 422, message: "That username is already taken" },
  "account.email_taken": { status: 422, message: "That email address is already in use" },
  "account.invalid_username": { status: 422, message: "Usernames use letters, digits and underscores, up to 30 characters" },
  "account.invalid_email": { status: 422, message: "That email address is not valid" },
  "account.password_too_short": { status: 422, message: "The password is too short" },

  // Profiles and relationships
  "profile.invalid": { status: 422, message: "The profile could not be saved" },
  "relationship.self": { status: 422, message: "You cannot do that to your own account" },
  "relationship.blocked": { status: 403, message: "This action is not allowed between these accounts" },
  "relationship.domain_blocked": { status: 403, message: "You have blocked this account's domain" },
  "follow_request.not_found": { status: 404, message: "Follow request not found" },
  "user_domain_block.invalid": { status: 422, message: "That is not a domain you can block" },
  "user_domain_block.not_blocked": { status: 409, message: "That domain is not blocked" },

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
  "job.not_ready": { status: 503, message: "This process cannot run the job yet; it runs again shortly" },
  "queue.not_found": { status: 404, message: "Queue not found" },

  // Registration, email confirmation, the email-domain allowlist, signup requests
  "registration.closed": { status: 403, message: "Registrations are closed on this server" },
  "registration.address_blocked": { status: 403, message: "Sign-ups from your network address are not allowed" },
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

  // Filters, search, tags
  "filter.not_found": { status: 404, message: "Filter not found" },
  "filter.status_not_found": { status: 404, message: "Record not found" },
  "filter.status_taken": { status: 422, message: "That post is already in this filter" },
  "tag.not_found": { status: 404, message: "Tag not found" },
  "tag.invalid": { status: 422, message: "That is not a valid hashtag" },
  "search.sign_in_required": { status: 401, message: "Search with resolve or offset needs a signed-in user" },

  // Media and uploads
  "media.not_found": { status: 422, message: "A media attachment does not exist or is not yours" },
  "media.missing": { status: 404, message: "Media attachment not found" },
  "media.not_ready": { status: 422, message: "The media attachment has not finished processing" },
  "media.already_attached": { status: 422, message: "The media attachment is already attached to another post" },
  "media.too_many": { status: 422, message: "Too many media attachments" },
  "media.invalid": { status: 422, message: "The media attachment is not valid" },
  "media.unsupported_type": { status: 422, message: "That file type is not supported" },
  "media.type_mismatch": { status: 422, message: "The file's content does not match the upload's type" },
  "media.too_large": { status: 413, message: "The file is larger than this server accepts for its type" },
  "media.quota_exceeded": { status: 422, message: "Your storage quota does not leave room for this file" },
  "media.processing_failed": { status: 422, message: "The file could not be processed" },
  "media.attached": { status: 422, message: "A media attachment that belongs to a post cannot be deleted" },
  "media.remote_refused": { status: 422, message: "That remote media address is not allowed" },
  "upload.not_found": { status: 404, message: "Upload not found" },
  "upload.url_invalid": { status: 404, message: "This upload URL is invalid or expired" },
  "upload.content_received": { status: 409, message: "This upload already has its content" },

  // Statuses and polls
  "status.not_found": { status: 404, message: "Record not found" },
  "status.invalid": { status: 422, message: "Validation failed" },
  "status.forbidden": { status: 403, message: "This action is not allowed" },
  "status.not_reblogable": { status: 422, message: "This post cannot be boosted" },
  "status.not_quotable": { status: 403, message: "This post cannot be quoted" },
  "status.pin_invalid": { status: 422, message: "This post cannot be pinned" },
  "status.pin_limit": { status: 422, message: "You have already pinned the maximum number of posts" },
  "status.highlight_invalid": { status: 422, message: "Only replies in a thread can be highlighted under its first post" },
  "status.not_in_conversation": { status: 422, message: "This post is not part of a conversation" },
  "status.scheduling_unsupported": { status: 422, message: "Scheduled posts are not supported on this server" },
  "status.unexpected_mentions": { status: 422, message: "Post would be sent to unexpected accounts" },
  "translation.unavailable": { status: 503, message: "Translation is not available on this server" },
  "poll.not_found": { status: 404, message: "Record not found" },
  "poll.expired": { status: 422, message: "The poll has already ended" },
  "poll.already_voted": { status: 422, message: "You have already voted on this poll" },
  "poll.own_poll": { status: 422, message: "You cannot vote on your own poll" },
  "poll.invalid_choice": { status: 422, message: "That choice is not an option of this poll" },

  // Domain policy (federation)
  "domain_block.not_found": { status: 404, message: "Domain block not found" },
  "domain_block.exists": { status: 422, message: "That domain is already blocked" },
  "domain_allow.not_found": { status: 404, message: "Domain allow not found" },
  "domain_policy.invalid_domain": { status: 422, message: "That is not a valid domain name" },
  "federation.domain_refused": { status: 403, message: "This server does not federate with that domain" },
  "federation.domain_not_unreachable": { status: 404, message: "That domain is not marked unreachable" },
  "federation.signature_in_future": { status: 401, message: "The request is signed with a date too far in the future" },
  "federation.signer_not_actor": { status: 401, message: "The activity is signed with a key of another origin than its actor's" },
  "federation.invalid_activity": { status: 400, message: "The request body is not an activity" },
  "federation.signature_missing": { status: 401, message: "The activity is not signed" },
  "federation.fetch_not_signed": { status: 401, message: "This server serves ActivityPub documents to signed requests only" },
  "federation.signature_invalid": { status: 401, message: "The request's signature does not verify with the key it names" },
  "federation.signature_expired": { status: 401, message: "The request's signature is too old, or undated" },
  "federation.digest_mismatch": { status: 401, message: "The request body does not match the digest it was signed with" },
  "federation.key_unavailable": { status: 401, message: "The key the request is signed with could not be fetched lately" },
  "federation.key_fetches_limited": { status: 429, message: "Too many activities signed with keys not known yet; try again later" },
  "federation.activity_too_complex": { status: 422, message: "The activity exceeds the bounds this server reads" },

  // Timelines, lists, markers, conversations, notifications
  "list.not_found": { status: 404, message: "List not found" },
  "list.invalid": { status: 422, message: "The list is not valid" },
  "list.account_not_followed": { status: 422, message: "Only accounts you follow can be added to a list" },
  "marker.stale": { status: 409, message: "The marker was changed meanwhile; read it again" },
  "conversation.not_found": { status: 404, message: "Conversation not found" },
  "notification.not_found": { status: 404, message: "Notification not found" },
  "notification_request.not_found": { status: 404, message: "Notification request not found" },

  // Credentials: codes, password change and recovery, login methods, phone, passkeys
  "credentials.code_invalid": { status: 422, message: "The code is wrong, expired or already used" },
  "credentials.code_attempts_exceeded": { status: 422, message: "Too many wrong codes; ask for a new one" },
  "credentials.no_pending_change": { status: 409, message: "There is no change in progress; start again" },
  "credentials.wrong_password": { status: 422, message: "The current password is wrong" },
  "credentials.invalid_password": { status: 422, message: "The new password is not acceptable" },
  "credentials.recovery_not_checked": { status: 409, message: "Check the recovery code first" },
  "login_method.exists": { status: 409, message: "That login method is already set up" },
  "login_method.not_found": { status: 404, message: "That login method is not set up" },
  "login_method.last_identifier": { status: 409, message: "The last remaining login identifier cannot be removed" },
  "login_method.email_taken": { status: 422, message: "That email address is already in use" },
  "phone.invalid": { status: 422, message: "That is not a valid phone number" },
  "phone.taken": { status: 422, message: "That phone number is already in use" },
  "phone.none": { status: 409, message: "The account has no phone number to change" },
  "phone.current_not_verified": { status: 409, message: "Verify the current phone number first" },
  "phone.same_number": { status: 422, message: "The new number is the current one" },
  "passkey.not_found": { status: 404, message: "Passkey not found" },
  "passkey.challenge_invalid": { status: 422, message: "The passkey challenge is unknown, expired or already used" },
  "passkey.verification_failed": { status: 422, message: "The passkey response could not be verified" },
  "passkey.cloned_authenticator": { status: 409, message: "The authenticator's signature counter did not increase; it may be cloned" },
  "passkey.already_registered": { status: 409, message: "That passkey is already registered" },
  "passkey.invalid_response": { status: 400, message: "The passkey response is malformed" },

  // Federation: remote accounts, migration, reports sent to other servers
  "remote_account.invalid_name": { status: 422, message: "Name the user as user@host" },
  "remote_account.local": { status: 422, message: "That user is local; remote collections are for users of other servers" },
  "remote_account.unreachable": { status: 502, message: "The user's server did not answer with the collection" },
  "migration.alias_missing": { status: 422, message: "The target account does not name this account as an alias" },
  "migration.target_moved": { status: 422, message: "The target account has itself moved" },
  "flag.local_target": { status: 422, message: "Only accounts of other servers are reported to their server" },

  // Server
  "server.internal": { status: 500, message: "Something went wrong on our side" },
  "server.unavailable": { status: 503, message: "The service is unavailable" },
  /** Answered by the Node adapter itself when the event loop runs too late (load shedding). */
  "server.overloaded": { status: 503, message: "The server is too busy to answer; try again shortly" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;

/** What the catalog says of a code: the HTTP status and the message for people. */
export interface ErrorEntry {
  readonly status: number;
  readonly message: string;
}

declare const moduleErrorCode: unique symbol;
/** A code a feature module declared with `defineErrorCodes`; only that function makes one. */
export type ModuleErrorCode = string & { readonly [moduleErrorCode]: true };

const moduleCodes = new Map<string, ErrorEntry>();

/**
 * Declares the error codes of a feature module, beside the catalog above.
 * Codes are `<area>.<reason>` like the catalog's and live for the process:
 * a module is defined once, whichever Kith instances compose it. A code the
 * catalog or another module already gives another meaning is refused, so
 * two modules cannot answer one code with two statuses.
 */
export function defineErrorCodes<const C extends Record<string, ErrorEntry>>(codes: C): { readonly [K in keyof C]: ModuleErrorCode } {
  const declared: Record<string, ModuleErrorCode> = {};
  for (const [code, entry] of Object.entries(codes)) {
    if (!/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/.test(code)) throw new Error(`Error code ${code} is not <area>.<reason>`);
    const known = errorEntryOf(code);
    if (known && (known.status !== entry.status || known.message !== entry.message)) throw new Error(`Error code ${code} is already declared`);
    moduleCodes.set(code, { status: entry.status, message: entry.message });
    declared[code] = code as ModuleErrorCode;
  }
  return declared as { readonly [K in keyof C]: ModuleErrorCode };
}

/** The entry of a catalog code or of a module's code; undefined for any other string. */
export function errorEntryOf(code: string): ErrorEntry | undefined {
  return Object.hasOwn(errorCatalog, code) ? errorCatalog[code as ErrorCode] : moduleCodes.get(code);
}
