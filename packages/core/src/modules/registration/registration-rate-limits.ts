/**
 * Limits of registration and email confirmation, counted through the
 * storage counter primitive in fixed windows (as `oauth/rate-limits.ts`
 * does for sign-in). Kept small and in one place so tests can reach them.
 */

/** Sign-up attempts from one address per window (as Mastodon's 5 per 30 minutes). Every attempt counts, refused ones too. */
export const SIGNUPS_PER_IP = 5;
export const SIGNUP_WINDOW_SECONDS = 30 * 60;

/** Confirmation mails one account may ask to be sent again per window. */
export const CONFIRMATION_RESENDS_PER_ACCOUNT = 3;
export const CONFIRMATION_RESEND_WINDOW_SECONDS = 60 * 60;

/** How long a confirmation link works. */
export const EMAIL_CONFIRMATION_TTL_SECONDS = 24 * 60 * 60;

export function signupIpCounterKey(ip: string): string {
  return `registration.signup.ip:${ip}`;
}

export function confirmationResendCounterKey(accountId: string): string {
  return `registration.confirm.resend:${accountId}`;
}
