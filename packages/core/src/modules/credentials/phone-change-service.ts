import { KithError } from "../../domain/errors.js";
import { findPhoneOfAccount } from "./user-phones-store.js";
import type { ServiceDeps } from "../service-deps.js";
import {
  CODE_SENDS_PER_ACCOUNT,
  CODE_SEND_WINDOW_SECONDS,
  CODE_TTL_SECONDS,
  PHONE_FLAG_TTL_SECONDS,
  codeSendKey,
  enforceRateLimit,
  limitSmsCodesTo,
} from "./credential-limits.js";
import { deliverCode, deliverNotice } from "./message-delivery.js";
import { phoneChangedSms, smsCode } from "./message-templates.js";
import type { CodeSent } from "./password-service.js";
import type { VerificationCodes } from "./verification-codes.js";
import { type LoginAudit, maskPhone } from "./login-audit.js";
import { saveUniquePhone } from "./login-method-service.js";
import { normalizePhoneNumber } from "./phone-number.js";

export const PHONE_CURRENT_CODE = "phone.change.current";
/** Raised when the current phone is verified; step 3 needs it, step 4 takes it down. */
export const PHONE_CURRENT_VERIFIED = "phone.change.current_verified";
export const PHONE_NEW_CODE = "phone.change.new";

/**
 * The spec's four-step phone change: (1) a code to the current phone,
 * (2) that code proves the caller holds it, (3) the new number gets a code,
 * (4) that code proves the new number, which then replaces the old one.
 */
export class PhoneChangeService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "sms" | "config">,
    private readonly codes: VerificationCodes,
    private readonly audit: LoginAudit,
  ) {}

  get #instance(): string {
    return new URL(this.deps.config.origin).host;
  }

  async #currentPhone(accountId: string): Promise<string> {
    const row = await findPhoneOfAccount(this.deps.storage.db, accountId);
    if (!row) throw new KithError("phone.none");
    return row.phone;
  }

  async #limitSends(accountId: string, phone: string): Promise<void> {
    await enforceRateLimit(this.deps, codeSendKey(accountId), CODE_SENDS_PER_ACCOUNT, CODE_SEND_WINDOW_SECONDS, "Too many codes sent; try again later");
    await limitSmsCodesTo(this.deps, phone);
  }

  /** Step 1. Starting again abandons a change in progress. */
  async request(accountId: string): Promise<CodeSent & { sentTo: string }> {
    const phone = await this.#currentPhone(accountId);
    await this.#limitSends(accountId, phone);
    await this.codes.withdraw([PHONE_CURRENT_VERIFIED, PHONE_NEW_CODE], accountId);
    const { code, expiresAt } = await this.codes.issue({ kind: PHONE_CURRENT_CODE, subjectId: accountId, ttlSeconds: CODE_TTL_SECONDS });
    await deliverCode("sms", () => this.deps.sms.send(smsCode(phone, code, "current_phone", this.#instance)));
    return { expiresAt, sentTo: maskPhone(phone) };
  }

  /** Step 2. */
  async verifyCurrent(accountId: string, code: string): Promise<{ expiresAt: string }> {
    await this.#currentPhone(accountId);
    await this.codes.use(PHONE_CURRENT_CODE, accountId, code);
    await this.codes.raiseFlag(PHONE_CURRENT_VERIFIED, accountId, PHONE_FLAG_TTL_SECONDS);
    return { expiresAt: new Date(this.deps.clock.now().getTime() + PHONE_FLAG_TTL_SECONDS * 1000).toISOString() };
  }

  /** Step 3: needs step 2 done; the new number is validated, normalised and texted a code. */
  async submitNew(accountId: string, phoneInput: string): Promise<CodeSent & { sentTo: string }> {
    const current = await this.#currentPhone(accountId);
    if (!(await this.codes.flagIsUp(PHONE_CURRENT_VERIFIED, accountId))) throw new KithError("phone.current_not_verified");
    const phone = await normalizePhoneNumber(phoneInput);
    if (phone === current) throw new KithError("phone.same_number");
    await this.#limitSends(accountId, phone);
    const { code, expiresAt } = await this.codes.issue({ kind: PHONE_NEW_CODE, subjectId: accountId, ttlSeconds: CODE_TTL_SECONDS, payload: { phone } });
    await deliverCode("sms", () => this.deps.sms.send(smsCode(phone, code, "new_phone", this.#instance)));
    return { expiresAt, sentTo: phone };
  }

  /** Step 4: the new number replaces the old one; the old one is told. */
  async verifyNew(accountId: string, code: string, ip: string | null): Promise<{ phone: string }> {
    const previous = await this.#currentPhone(accountId);
    if (!(await this.codes.flagIsUp(PHONE_CURRENT_VERIFIED, accountId))) throw new KithError("phone.current_not_verified");
    const { payload } = await this.codes.use(PHONE_NEW_CODE, accountId, code);
    if (!(await this.codes.lowerFlag(PHONE_CURRENT_VERIFIED, accountId))) throw new KithError("phone.current_not_verified");
    const { phone } = payload as { phone: string };
    await saveUniquePhone(this.deps, accountId, phone);
    await this.audit.record({ accountId, action: "phone.changed", method: "phone", detail: `${maskPhone(previous)} -> ${maskPhone(phone)}`, ip });
    await deliverNotice("sms", () => this.deps.sms.send(phoneChangedSms(previous, this.#instance)));
    return { phone };
  }
}
