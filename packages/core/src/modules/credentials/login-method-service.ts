import type { Kysely } from "kysely";
import { KithError, isKithError } from "../../domain/errors.js";
import { emailExists, holdUserRow } from "../accounts/accounts-store.js";
import { findPasswordHash, setEmailAndPassword, setPasswordHash } from "./credential-accounts-store.js";
import { deletePhone, findAccountIdByPhone, findPhoneOfAccount, upsertPhone } from "./user-phones-store.js";
import type { Database } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import {
  CODE_SENDS_PER_ACCOUNT,
  CODE_SEND_WINDOW_SECONDS,
  CODE_TTL_SECONDS,
  codeSendKey,
  enforceRateLimit,
  limitSmsCodesTo,
} from "./credential-limits.js";
import { deliverCode } from "./message-delivery.js";
import { emailLoginCodeMail, smsCode } from "./message-templates.js";
import { checkNewPassword } from "./password-rules.js";
import type { CodeSent } from "./password-service.js";
import type { VerificationCodes } from "./verification-codes.js";
import { normalizePhoneNumber } from "./phone-number.js";
import { checkEmailAddress } from "../registration/email-address.js";
import { type LoginAudit, maskEmail, maskPhone } from "./login-audit.js";
import { requireLocalAccount } from "../accounts/require-local-account.js";
import type { SessionService } from "../auth/session-service.js";

export type LoginMethodType = "email" | "phone";

/** One way to sign in: an identifier (the email address, with the password; or the phone number). */
export interface LoginMethod {
  readonly type: LoginMethodType;
  readonly identifier: string;
  readonly verified: boolean;
}

export const ADD_EMAIL_CODE = "login_method.email";
export const ADD_PHONE_CODE = "login_method.phone";

/**
 * Login methods: the email address with a password, and a phone number.
 * Adding one needs the code sent to the new identifier; removing one is
 * refused (409) when it is the last identifier left; every change is audited.
 * Removing the email method removes the password (the address stays the
 * account's contact address for notices and recovery).
 */
export class LoginMethodService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "mail" | "sms" | "passwords" | "config">,
    private readonly codes: VerificationCodes,
    private readonly audit: LoginAudit,
    private readonly sessions: Pick<SessionService, "signInChanged">,
  ) {}

  get #instance(): string {
    return new URL(this.deps.config.origin).host;
  }

  async list(accountId: string, db: Kysely<Database> = this.deps.storage.db): Promise<LoginMethod[]> {
    const account = await requireLocalAccount(db, accountId);
    const methods: LoginMethod[] = [];
    if ((await findPasswordHash(db, accountId)) !== null) {
      methods.push({ type: "email", identifier: account.email, verified: account.emailConfirmed });
    }
    const phone = await findPhoneOfAccount(db, accountId);
    if (phone) methods.push({ type: "phone", identifier: phone.phone, verified: true });
    return methods;
  }

  async #has(accountId: string, type: LoginMethodType): Promise<boolean> {
    return (await this.list(accountId)).some((method) => method.type === type);
  }

  /** Starts adding the email method: checks the address and password, mails a code to that address. */
  async startAddEmail(accountId: string, email: string, password: string): Promise<CodeSent & { sentTo: string }> {
    const account = await requireLocalAccount(this.deps.storage.db, accountId);
    if (await this.#has(accountId, "email")) throw new KithError("login_method.exists");
    const checked = checkEmailAddress(email);
    if (!checked.ok) throw new KithError("account.invalid_email", { details: [{ field: "email", message: "is invalid" }] });
    checkNewPassword(password, "password");
    if (checked.address !== account.email && (await emailExists(this.deps.storage.db, checked.address))) {
      throw new KithError("login_method.email_taken");
    }
    await enforceRateLimit(this.deps, codeSendKey(accountId), CODE_SENDS_PER_ACCOUNT, CODE_SEND_WINDOW_SECONDS, "Too many codes sent; try again later");
    const passwordHash = await this.deps.passwords.hash(password);
    const { code, expiresAt } = await this.codes.issue({
      kind: ADD_EMAIL_CODE,
      subjectId: accountId,
      ttlSeconds: CODE_TTL_SECONDS,
      payload: { email: checked.address, passwordHash },
    });
    await deliverCode("mail", () =>
      this.deps.mail.send(
        emailLoginCodeMail({ to: checked.address, username: account.username, code, ttlSeconds: CODE_TTL_SECONDS, instance: this.#instance }),
      ),
    );
    return { expiresAt, sentTo: checked.address };
  }

  async verifyAddEmail(accountId: string, code: string, ip: string | null): Promise<LoginMethod[]> {
    const account = await requireLocalAccount(this.deps.storage.db, accountId);
    if (await this.#has(accountId, "email")) throw new KithError("login_method.exists");
    const { payload } = await this.codes.use(ADD_EMAIL_CODE, accountId, code);
    const { email, passwordHash } = payload as { email: string; passwordHash: string };
    const db = this.deps.storage.db;
    if (email !== account.email && (await emailExists(db, email))) throw new KithError("login_method.email_taken");
    await setEmailAndPassword(db, accountId, email, passwordHash, this.deps.clock.now().toISOString());
    // The address is confirmed now; a kept session would still say it is not.
    await this.sessions.signInChanged();
    await this.audit.record({ accountId, action: "login_method.added", method: "email", detail: maskEmail(email), ip });
    return this.list(accountId);
  }

  /** Starts adding the phone method: normalises the number, texts a code to it. */
  async startAddPhone(accountId: string, phoneInput: string): Promise<CodeSent & { sentTo: string }> {
    await requireLocalAccount(this.deps.storage.db, accountId);
    if (await this.#has(accountId, "phone")) throw new KithError("login_method.exists");
    const phone = await normalizePhoneNumber(phoneInput);
    if ((await findAccountIdByPhone(this.deps.storage.db, phone)) !== null) throw new KithError("phone.taken");
    await enforceRateLimit(this.deps, codeSendKey(accountId), CODE_SENDS_PER_ACCOUNT, CODE_SEND_WINDOW_SECONDS, "Too many codes sent; try again later");
    await limitSmsCodesTo(this.deps, phone);
    const { code, expiresAt } = await this.codes.issue({ kind: ADD_PHONE_CODE, subjectId: accountId, ttlSeconds: CODE_TTL_SECONDS, payload: { phone } });
    await deliverCode("sms", () => this.deps.sms.send(smsCode(phone, code, "add_phone", this.#instance)));
    return { expiresAt, sentTo: phone };
  }

  async verifyAddPhone(accountId: string, code: string, ip: string | null): Promise<LoginMethod[]> {
    if (await this.#has(accountId, "phone")) throw new KithError("login_method.exists");
    const { payload } = await this.codes.use(ADD_PHONE_CODE, accountId, code);
    const { phone } = payload as { phone: string };
    await saveUniquePhone(this.deps, accountId, phone);
    await this.audit.record({ accountId, action: "login_method.added", method: "phone", detail: maskPhone(phone), ip });
    return this.list(accountId);
  }

  /**
   * Removes a method; the last identifier left is refused with 409. The
   * check and the removal hold the account's row, so two concurrent removals
   * of different methods cannot both pass the check and leave none.
   */
  async remove(accountId: string, type: LoginMethodType, ip: string | null): Promise<LoginMethod[]> {
    const now = this.deps.clock.now().toISOString();
    const method = await this.deps.storage.transaction(async (trx) => {
      await holdUserRow(trx, accountId, now);
      const methods = await this.list(accountId, trx);
      const found = methods.find((candidate) => candidate.type === type);
      if (!found) throw new KithError("login_method.not_found");
      if (methods.length <= 1) throw new KithError("login_method.last_identifier");
      if (type === "email") await setPasswordHash(trx, accountId, null, now);
      else await deletePhone(trx, accountId);
      return found;
    });
    const detail = type === "email" ? maskEmail(method.identifier) : maskPhone(method.identifier);
    await this.audit.record({ accountId, action: "login_method.removed", method: type, detail, ip });
    return this.list(accountId);
  }
}

/** Stores a verified number; a number another account took meanwhile is refused (the unique index decides). */
export async function saveUniquePhone(deps: Pick<ServiceDeps, "storage" | "clock">, accountId: string, phone: string): Promise<void> {
  const owner = await findAccountIdByPhone(deps.storage.db, phone);
  if (owner !== null && owner !== accountId) throw new KithError("phone.taken");
  try {
    await upsertPhone(deps.storage.db, accountId, phone, deps.clock.now().toISOString());
  } catch (error) {
    if (isKithError(error)) throw error;
    throw new KithError("phone.taken", { cause: error });
  }
}
