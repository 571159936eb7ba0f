import { KithError } from "../../domain/errors.js";
import type { ServiceDeps } from "../service-deps.js";

/**
 * Limits and lifetimes of credential codes, counted through the storage
 * counter primitive in fixed windows (as `registration/rate-limits.ts` and
 * `oauth/rate-limits.ts` do). Kept small and in one place so tests can reach them.
 */

/** How long an emailed or texted code works. */
export const CODE_TTL_SECONDS = 15 * 60;
/** Wrong tries a code survives; the last one spends it. */
export const MAX_CODE_ATTEMPTS = 5;
/** How long a checked recovery code lets the password be set. */
export const RECOVERY_FLAG_TTL_SECONDS = 15 * 60;
/** How long a verified current phone lets a new number be given. */
export const PHONE_FLAG_TTL_SECONDS = 15 * 60;

/** Re-sends of a password-change code per account per window. */
export const PASSWORD_RESENDS_PER_ACCOUNT = 3;
export const PASSWORD_RESEND_WINDOW_SECONDS = 15 * 60;

/** Recovery requests per client address, and per login identifier, per window. */
export const RECOVERIES_PER_IP = 10;
export const RECOVERIES_PER_IDENTIFIER = 3;
export const RECOVERY_WINDOW_SECONDS = 60 * 60;

/** Codes (mail or SMS) one account may have sent per window, across login methods, phone and password change. */
export const CODE_SENDS_PER_ACCOUNT = 10;
export const CODE_SEND_WINDOW_SECONDS = 60 * 60;

/**
 * Codes texted to one phone number per window, whichever accounts ask: a
 * number that is not the asker's own (a victim's) must not be flooded by
 * spreading the requests over several accounts.
 */
export const SMS_CODES_PER_NUMBER = 5;
export const SMS_CODE_WINDOW_SECONDS = 60 * 60;

export const passwordResendKey = (accountId: string): string => `credentials.password.resend:${accountId}`;
export const recoveryIpKey = (ip: string): string => `credentials.recover.ip:${ip}`;
export const recoveryIdentifierKey = (identifier: string): string => `credentials.recover.id:${identifier.trim().toLowerCase()}`;
export const codeSendKey = (accountId: string): string => `credentials.code.send:${accountId}`;
/** The number is in E.164 (normalised) form, so that one number has one counter however it was typed. */
export const smsNumberKey = (phone: string): string => `credentials.sms.to:${phone}`;

/** Counts one hit on `key`; past `limit` in the window, refuses with 429 and the seconds until the window ends. */
export async function enforceRateLimit(
  deps: Pick<ServiceDeps, "storage" | "clock">,
  key: string,
  limit: number,
  windowSeconds: number,
  message: string,
): Promise<void> {
  const now = deps.clock.now();
  const state = await deps.storage.incrementCounter(key, windowSeconds, now);
  if (state.count > limit) {
    throw new KithError("request.rate_limited", {
      message,
      retryAfterSeconds: Math.ceil((state.windowEndsAt.getTime() - now.getTime()) / 1000),
    });
  }
}

/** Counts a code texted to `phone` (normalised); past the number's limit, refuses with 429. */
export function limitSmsCodesTo(deps: Pick<ServiceDeps, "storage" | "clock">, phone: string): Promise<void> {
  return enforceRateLimit(deps, smsNumberKey(phone), SMS_CODES_PER_NUMBER, SMS_CODE_WINDOW_SECONDS, "Too many codes sent to this number; try again later");
}
