import { type LocalAccount, USERNAME_PATTERN } from "../../domain/accounts.js";
import { type ErrorDetail, KithError, isKithError } from "../../domain/errors.js";
import type { RegistrationMode } from "../../domain/instance-settings.js";
import { emailExists, updateUserFlags, usernameTaken } from "../accounts/accounts-store.js";
import { insertOneTimeSecret } from "../auth/one-time-secrets-store.js";
import { deleteUnconsumedSecrets, setSignupDetails } from "./signups-store.js";
import type { AccountService } from "../accounts/account-service.js";
import { MIN_PASSWORD_LENGTH } from "../accounts/account-service.js";
import type { SessionService } from "../auth/session-service.js";
import { hashSecret, newToken } from "../auth/secrets.js";
import type { ServiceDeps } from "../service-deps.js";
import type { SettingsService } from "../settings/settings-service.js";
import { checkEmailAddress } from "./email-address.js";
import { knownLocale } from "../../domain/languages.js";
import type { EmailAllowService } from "./email-allow-service.js";
import type { AccessBlocks } from "./access-blocks.js";
import {
  CONFIRMATION_RESENDS_PER_ACCOUNT,
  CONFIRMATION_RESEND_WINDOW_SECONDS,
  EMAIL_CONFIRMATION_TTL_SECONDS,
  SIGNUPS_PER_IP,
  SIGNUP_WINDOW_SECONDS,
  confirmationResendCounterKey,
  signupIpCounterKey,
} from "./registration-rate-limits.js";

/** The one-time secret kind of confirmation links. */
export const EMAIL_CONFIRMATION_KIND = "email.confirm";
/** Mastodon's limit (bcrypt's 72 bytes); clients cap their fields at it. */
export const MAX_PASSWORD_LENGTH = 72;
export const MAX_REASON_LENGTH = 1_000;
/** Names people would mistake for the server's staff. */
export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  "admin",
  "administrator",
  "root",
  "support",
  "help",
  "moderator",
  "mod",
  "webmaster",
  "postmaster",
  "abuse",
  "security",
  "staff",
]);

/**
 * Mastodon's per-field validation codes, which clients show (or translate).
 * Each item of a registration error's `details` carries one as its `code`.
 */
export type RegistrationErrorCode =
  | "ERR_BLANK"
  | "ERR_INVALID"
  | "ERR_TOO_LONG"
  | "ERR_TOO_SHORT"
  | "ERR_TAKEN"
  | "ERR_RESERVED"
  | "ERR_ACCEPTED"
  | "ERR_BLOCKED"
  | "ERR_INCLUSION";

/** The parameters of `POST /api/v1/accounts`, as received. */
export interface RegistrationInput {
  readonly username?: string | undefined;
  readonly email?: string | undefined;
  readonly password?: string | undefined;
  readonly agreement?: boolean | undefined;
  readonly locale?: string | undefined;
  readonly reason?: string | undefined;
}

export interface RegistrationContext {
  /** The application whose token made the request; the new user's token is issued to it. */
  readonly appId: string | null;
  /** Scopes of the request's token; the new user's token gets the same ones, as Mastodon does. */
  readonly scopes: readonly string[];
  readonly ip: string | null;
  readonly userAgent: string | null;
}

export interface Registration {
  readonly account: LocalAccount;
  readonly mode: Exclude<RegistrationMode, "closed">;
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly scopes: readonly string[];
  readonly createdAt: string;
}

/**
 * Sign-up as Mastodon's `POST /api/v1/accounts` does it, in the server's
 * registration mode:
 * - open: the account can sign in at once; its email is unconfirmed until
 *   the link mailed to it is followed, and until then its token answers 403
 *   ("Your login is missing a confirmed e-mail address") on every route
 *   that needs a signed-in user, except the ones an unconfirmed user needs
 *   (resending the mail). The gate is in `platform/http/authorize.ts`; a route opts
 *   out with `allowUnconfirmedEmail`.
 * - approval: the account waits for a reviewer (Signups.Manage); it cannot
 *   sign in, and its token does not work (401), until approved. A reason is
 *   required. The confirmation mail is sent all the same.
 * - closed: refused (403).
 */
export class RegistrationService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "mail" | "config">,
    private readonly accounts: AccountService,
    private readonly sessions: SessionService,
    private readonly settings: SettingsService,
    private readonly emailAllow: EmailAllowService,
    private readonly blocks: AccessBlocks,
  ) {}

  async register(input: RegistrationInput, context: RegistrationContext): Promise<Registration> {
    const settings = await this.settings.all();
    const mode = settings.registrationsMode;
    if (mode === "closed") throw new KithError("registration.closed");
    const now = this.deps.clock.now();
    if (context.ip) {
      // Counted before validation: refused attempts count too, so the limit also slows probing for taken names.
      const state = await this.deps.storage.incrementCounter(signupIpCounterKey(context.ip), SIGNUP_WINDOW_SECONDS, now);
      if (state.count > SIGNUPS_PER_IP) {
        throw new KithError("request.rate_limited", {
          message: "Too many sign-ups from this address; try again later",
          retryAfterSeconds: Math.ceil((state.windowEndsAt.getTime() - now.getTime()) / 1000),
        });
      }
    }

    const problems: Array<{ field: string; code: RegistrationErrorCode; description: string }> = [];
    const fail = (field: string, code: RegistrationErrorCode, description: string): void => {
      problems.push({ field, code, description });
    };
    const db = this.deps.storage.db;

    const username = (input.username ?? "").trim();
    if (username === "") fail("username", "ERR_BLANK", "can't be blank");
    else if (username.length > 30) fail("username", "ERR_TOO_LONG", "is too long (maximum is 30 characters)");
    else if (!USERNAME_PATTERN.test(username)) fail("username", "ERR_INVALID", "must contain only letters, numbers and underscores");
    else if (RESERVED_USERNAMES.has(username.toLowerCase())) fail("username", "ERR_RESERVED", "is reserved");
    else if (await usernameTaken(db, username)) fail("username", "ERR_TAKEN", "is taken");

    const email = checkEmailAddress(input.email);
    const verdict = await this.blocks.signUp({
      email: email.ok ? { address: email.address, domain: email.domain } : null,
      ip: context.ip,
    });
    // As Mastodon: an address blocked from signing up is refused before its fields are looked at.
    if (verdict.refused === "ip") throw new KithError("registration.address_blocked");
    if (!email.ok) {
      if (email.problem === "blank") {
        // Mastodon checks presence and form apart, and a blank address fails both.
        fail("email", "ERR_BLANK", "can't be blank");
        fail("email", "ERR_INVALID", "is invalid");
      } else if (email.problem === "too_long") fail("email", "ERR_TOO_LONG", "is too long");
      else fail("email", "ERR_INVALID", "is invalid");
    } else if (settings.emailAllowlistEnabled && !(await this.emailAllow.allows(email.domain))) {
      fail("email", "ERR_BLOCKED", "is from a domain that is not allowed to register here");
    } else if (verdict.refused === "email") {
      fail("email", "ERR_BLOCKED", "is not allowed to register here");
    } else if (await emailExists(db, email.address)) {
      fail("email", "ERR_TAKEN", "is taken");
    }

    const password = input.password ?? "";
    if (password === "") fail("password", "ERR_BLANK", "can't be blank");
    else if (password.length < MIN_PASSWORD_LENGTH)
      fail("password", "ERR_TOO_SHORT", `is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)`);
    else if (password.length > MAX_PASSWORD_LENGTH)
      fail("password", "ERR_TOO_LONG", `is too long (maximum is ${MAX_PASSWORD_LENGTH} characters)`);

    if (input.agreement !== true) fail("agreement", "ERR_ACCEPTED", "must be accepted");

    // An unknown locale is dropped, not refused, as Mastodon drops it.
    const locale = knownLocale(input.locale ?? "");

    const reason = input.reason?.trim() || null;
    if (mode === "approval" && reason === null) fail("reason", "ERR_BLANK", "can't be blank");
    else if (reason !== null && reason.length > MAX_REASON_LENGTH)
      fail("reason", "ERR_TOO_LONG", `is too long (maximum is ${MAX_REASON_LENGTH} characters)`);

    if (problems.length > 0 || !email.ok) throw invalid(problems);

    let account: LocalAccount;
    try {
      ({ account } = await this.accounts.createLocalAccount({
        username,
        email: email.address,
        password,
        confirmed: false,
        approved: mode === "open" && !verdict.requiresApproval,
      }));
    } catch (error) {
      // A concurrent sign-up took the name or address between the checks above and the insert.
      if (isKithError(error) && error.code === "account.username_taken")
        throw invalid([{ field: "username", code: "ERR_TAKEN", description: "is taken" }]);
      if (isKithError(error) && error.code === "account.email_taken")
        throw invalid([{ field: "email", code: "ERR_TAKEN", description: "is taken" }]);
      throw error;
    }
    await setSignupDetails(db, account.id, { reason, locale, updatedAt: now.toISOString() });
    await this.#sendConfirmation(account);

    const issued = await this.sessions.issue({
      accountId: account.id,
      appId: context.appId,
      scopes: context.scopes,
      userAgent: context.userAgent,
      ip: context.ip,
      withRefreshToken: true,
    });
    return {
      account,
      mode: verdict.requiresApproval ? "approval" : mode,
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken,
      scopes: issued.scopes,
      createdAt: issued.createdAt,
    };
  }

  /** The link a confirmation mail carries. */
  confirmationUrl(token: string): string {
    const url = new URL("/auth/confirmation", this.deps.config.origin);
    url.searchParams.set("confirmation_token", token);
    return url.toString();
  }

  async #sendConfirmation(account: LocalAccount): Promise<void> {
    const token = newToken(this.deps.random);
    const now = this.deps.clock.now();
    await this.deps.storage.transaction(async (trx) => {
      // Only the newest link works: sending a new one withdraws the older ones.
      await deleteUnconsumedSecrets(trx, EMAIL_CONFIRMATION_KIND, account.id);
      await insertOneTimeSecret(trx, {
        id: this.deps.ids.next("secret"),
        kind: EMAIL_CONFIRMATION_KIND,
        secretHash: hashSecret(token),
        subjectId: account.id,
        // The address the link was sent to: a link for an address the account no longer has confirms nothing.
        payload: JSON.stringify({ email: account.email }),
        expiresAt: new Date(now.getTime() + EMAIL_CONFIRMATION_TTL_SECONDS * 1000).toISOString(),
        createdAt: now.toISOString(),
      });
    });
    const link = this.confirmationUrl(token);
    await this.deps.mail.send({
      to: account.email,
      subject: "Confirm your email address",
      text: [
        `Hello ${account.username},`,
        "",
        "Follow this link to confirm your email address:",
        link,
        "",
        `The link works once, for ${EMAIL_CONFIRMATION_TTL_SECONDS / 3600} hours. If you did not sign up, ignore this mail.`,
      ].join("\n"),
    });
  }

  /** Follows a confirmation link: single use, expiring; anything else is 404. */
  async confirmEmail(token: string): Promise<LocalAccount> {
    const row = await this.deps.storage.consumeOnce({
      kind: EMAIL_CONFIRMATION_KIND,
      secretHash: hashSecret(token),
      now: this.deps.clock.now(),
    });
    if (!row?.subject_id) throw new KithError("registration.confirmation_invalid");
    const account = await this.accounts.findById(row.subject_id).catch(() => null);
    const sentTo = row.payload ? (JSON.parse(row.payload) as { email?: string }).email : undefined;
    if (!account || sentTo !== account.email) throw new KithError("registration.confirmation_invalid");
    if (!account.emailConfirmed) {
      const now = this.deps.clock.now().toISOString();
      await updateUserFlags(this.deps.storage.db, account.id, { emailConfirmedAt: now, updatedAt: now });
      await this.sessions.signInChanged();
    }
    return this.accounts.findById(account.id);
  }

  /** Sends the confirmation mail again (a new link; older ones stop working), within the resend limit. */
  async resendConfirmation(accountId: string): Promise<void> {
    const account = await this.accounts.findById(accountId);
    if (account.emailConfirmed) throw new KithError("registration.already_confirmed");
    const now = this.deps.clock.now();
    const state = await this.deps.storage.incrementCounter(
      confirmationResendCounterKey(accountId),
      CONFIRMATION_RESEND_WINDOW_SECONDS,
      now,
    );
    if (state.count > CONFIRMATION_RESENDS_PER_ACCOUNT) {
      throw new KithError("request.rate_limited", {
        message: "Too many confirmation mails; try again later",
        retryAfterSeconds: Math.ceil((state.windowEndsAt.getTime() - now.getTime()) / 1000),
      });
    }
    await this.#sendConfirmation(account);
  }
}

const FIELD_NAMES: Readonly<Record<string, string>> = {
  username: "Username",
  email: "Email",
  password: "Password",
  agreement: "Agreement",
  locale: "Locale",
  reason: "Reason",
};

/** The 422 of a refused sign-up: Mastodon's message ("Validation failed: Username is taken, ..."), one detail per problem. */
function invalid(problems: ReadonlyArray<{ field: string; code: RegistrationErrorCode; description: string }>): KithError {
  const details: ErrorDetail[] = problems.map((problem) => ({ field: problem.field, code: problem.code, message: problem.description }));
  const summary = problems.map((problem) => `${FIELD_NAMES[problem.field] ?? problem.field} ${problem.description}`).join(", ");
  return new KithError("registration.invalid", { message: `Validation failed: ${summary}`, details });
}
