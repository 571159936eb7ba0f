import type { LocalAccount } from "../../domain/accounts.js";
import { KithError, isKithError } from "../../domain/errors.js";
import { findLoginByIdentifier } from "../accounts/accounts-store.js";
import { findPasswordHash, revokeAccountSessions, setPasswordHash } from "./credential-accounts-store.js";
import {
  deletePendingPasswordChange,
  findPendingPasswordChange,
  putPendingPasswordChange,
} from "./pending-password-changes-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { LoginAudit } from "./login-audit.js";
import {
  CODE_SENDS_PER_ACCOUNT,
  CODE_SEND_WINDOW_SECONDS,
  CODE_TTL_SECONDS,
  PASSWORD_RESENDS_PER_ACCOUNT,
  PASSWORD_RESEND_WINDOW_SECONDS,
  RECOVERIES_PER_IDENTIFIER,
  RECOVERIES_PER_IP,
  RECOVERY_FLAG_TTL_SECONDS,
  RECOVERY_WINDOW_SECONDS,
  codeSendKey,
  enforceRateLimit,
  passwordResendKey,
  recoveryIdentifierKey,
  recoveryIpKey,
} from "./credential-limits.js";
import { deliverCode, deliverNotice } from "./message-delivery.js";
import { passwordChangeCodeMail, passwordChangedMail, passwordRecoveryCodeMail } from "./message-templates.js";
import { checkNewPassword } from "./password-rules.js";
import type { VerificationCodes } from "./verification-codes.js";
import { requireLocalAccount } from "../accounts/require-local-account.js";
import type { SessionService } from "../auth/session-service.js";

export const PASSWORD_CHANGE_CODE = "password.change";
export const PASSWORD_RECOVERY_CODE = "password.recover";
/** Raised by a checked recovery code; bound to that code, so only its holder can set the password. */
export const PASSWORD_RECOVERY_CHECKED = "password.recover.checked";

/** When a code went out: the API answers with this, never with the code. */
export interface CodeSent {
  readonly expiresAt: string;
}

/**
 * The spec's two password flows. Change (signed in): request keeps the new
 * password aside (hashed) and mails a code; confirm applies it, mails a
 * notice and ends every other session. Recovery (signed out): recover mails a
 * code and answers alike whether or not the account exists; check-code
 * raises a flag bound to the code; change needs it, sets the password, mails
 * a notice and ends every session.
 */
export class PasswordService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "mail" | "passwords" | "config">,
    private readonly codes: VerificationCodes,
    private readonly audit: LoginAudit,
    private readonly sessions: Pick<SessionService, "signInChanged">,
  ) {}

  get #instance(): string {
    return new URL(this.deps.config.origin).host;
  }

  async requestChange(accountId: string, currentPassword: string, newPassword: string): Promise<CodeSent> {
    const account = await requireLocalAccount(this.deps.storage.db, accountId);
    const stored = await findPasswordHash(this.deps.storage.db, accountId);
    if (!(await this.deps.passwords.verify(currentPassword, stored))) throw new KithError("credentials.wrong_password");
    checkNewPassword(newPassword);
    await enforceRateLimit(this.deps, codeSendKey(accountId), CODE_SENDS_PER_ACCOUNT, CODE_SEND_WINDOW_SECONDS, "Too many codes sent; try again later");
    const now = this.deps.clock.now();
    await putPendingPasswordChange(this.deps.storage.db, {
      account_id: accountId,
      password_hash: await this.deps.passwords.hash(newPassword),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + CODE_TTL_SECONDS * 1000).toISOString(),
    });
    return this.#sendChangeCode(account);
  }

  async resendChangeCode(accountId: string): Promise<CodeSent> {
    const account = await requireLocalAccount(this.deps.storage.db, accountId);
    await this.#pendingChange(accountId);
    await enforceRateLimit(
      this.deps,
      passwordResendKey(accountId),
      PASSWORD_RESENDS_PER_ACCOUNT,
      PASSWORD_RESEND_WINDOW_SECONDS,
      "Too many codes re-sent; try again later",
    );
    return this.#sendChangeCode(account);
  }

  async confirmChange(accountId: string, currentSessionId: string, code: string, ip: string | null): Promise<{ signedOut: number }> {
    const account = await requireLocalAccount(this.deps.storage.db, accountId);
    const pending = await this.#pendingChange(accountId);
    await this.codes.use(PASSWORD_CHANGE_CODE, accountId, code);
    const now = this.deps.clock.now().toISOString();
    const signedOut = await this.deps.storage.transaction(async (trx) => {
      await setPasswordHash(trx, accountId, pending.password_hash, now);
      await deletePendingPasswordChange(trx, accountId);
      return revokeAccountSessions(trx, accountId, currentSessionId, now);
    });
    await this.sessions.signInChanged();
    await this.audit.record({ accountId, action: "password.changed", method: "password", ip });
    await deliverNotice("mail", () =>
      this.deps.mail.send(passwordChangedMail({ to: account.email, username: account.username, instance: this.#instance, signedOut: "others" })),
    );
    return { signedOut };
  }

  async #pendingChange(accountId: string) {
    const pending = await findPendingPasswordChange(this.deps.storage.db, accountId);
    if (!pending || new Date(pending.expires_at) <= this.deps.clock.now()) throw new KithError("credentials.no_pending_change");
    return pending;
  }

  async #sendChangeCode(account: LocalAccount): Promise<CodeSent> {
    const { code, expiresAt } = await this.codes.issue({ kind: PASSWORD_CHANGE_CODE, subjectId: account.id, ttlSeconds: CODE_TTL_SECONDS });
    await deliverCode("mail", () =>
      this.deps.mail.send(
        passwordChangeCodeMail({ to: account.email, username: account.username, code, ttlSeconds: CODE_TTL_SECONDS, instance: this.#instance }),
      ),
    );
    return { expiresAt };
  }

  /**
   * Step 1 of recovery. Answers the same whether or not the identifier names
   * an account (both limits count either way), so it tells nobody which
   * accounts exist. An identifier that names an account is counted as that
   * account, so its username and its email share one limit.
   */
  async recover(identifier: string, ip: string | null): Promise<void> {
    const message = "Too many recovery requests; try again later";
    if (ip) await enforceRateLimit(this.deps, recoveryIpKey(ip), RECOVERIES_PER_IP, RECOVERY_WINDOW_SECONDS, message);
    const login = await findLoginByIdentifier(this.deps.storage.db, identifier.trim());
    const counted = login?.account.id ?? identifier;
    await enforceRateLimit(this.deps, recoveryIdentifierKey(counted), RECOVERIES_PER_IDENTIFIER, RECOVERY_WINDOW_SECONDS, message);
    if (!login) return;
    const { account } = login;
    const { code } = await this.codes.issue({ kind: PASSWORD_RECOVERY_CODE, subjectId: account.id, ttlSeconds: CODE_TTL_SECONDS });
    // Logged but not answered: an error here would tell that the account exists.
    await deliverNotice("mail", () =>
      this.deps.mail.send(
        passwordRecoveryCodeMail({ to: account.email, username: account.username, code, ttlSeconds: CODE_TTL_SECONDS, instance: this.#instance }),
      ),
    );
  }

  /** Step 2: uses the code and raises the flag step 3 needs, bound to the same code. */
  async checkRecoveryCode(identifier: string, code: string): Promise<void> {
    const login = await findLoginByIdentifier(this.deps.storage.db, identifier.trim());
    // An unknown identifier looks like a wrong code.
    if (!login) throw new KithError("credentials.code_invalid");
    await this.codes.use(PASSWORD_RECOVERY_CODE, login.account.id, code);
    await this.codes.issue({
      kind: PASSWORD_RECOVERY_CHECKED,
      subjectId: login.account.id,
      ttlSeconds: RECOVERY_FLAG_TTL_SECONDS,
      value: code.trim(),
    });
  }

  /** Step 3: needs the flag of a checked code; sets the password and ends every session. */
  async completeRecovery(identifier: string, code: string, newPassword: string, ip: string | null): Promise<void> {
    checkNewPassword(newPassword, "password");
    const login = await findLoginByIdentifier(this.deps.storage.db, identifier.trim());
    if (!login) throw new KithError("credentials.recovery_not_checked");
    const { account } = login;
    const flagged = await this.codes.use(PASSWORD_RECOVERY_CHECKED, account.id, code).catch((error: unknown) => {
      if (isKithError(error) && error.code === "credentials.code_invalid") throw new KithError("credentials.recovery_not_checked");
      throw error;
    });
    if (!flagged) throw new KithError("credentials.recovery_not_checked");
    const passwordHash = await this.deps.passwords.hash(newPassword);
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      await setPasswordHash(trx, account.id, passwordHash, now);
      await deletePendingPasswordChange(trx, account.id);
      await revokeAccountSessions(trx, account.id, null, now);
    });
    await this.sessions.signInChanged();
    await this.audit.record({ accountId: account.id, action: "password.recovered", method: "password", ip });
    await deliverNotice("mail", () =>
      this.deps.mail.send(passwordChangedMail({ to: account.email, username: account.username, instance: this.#instance, signedOut: "all" })),
    );
  }
}
