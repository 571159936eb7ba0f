/**
 * Limits on password attempts, at the token endpoint (password grant) and on
 * the authorize page. Failed attempts are counted per client address and per
 * account identifier (username or email, lower-cased), each in a fixed
 * window; an address shared by many people (a NAT) gets more room than a
 * single account. Kept small and in one place so tests can reach them.
 */
export const LOGIN_WINDOW_SECONDS = 5 * 60;
/** Failed attempts from one address per window before it must wait. */
export const LOGIN_FAILURES_PER_IP = 20;
/** Failed attempts on one account identifier per window before it must wait. */
export const LOGIN_FAILURES_PER_IDENTIFIER = 10;

export function ipCounterKey(ip: string): string {
  return `oauth.login.ip:${ip}`;
}

/** The account's id when the identifier names one, else the identifier itself. */
export function identifierCounterKey(identifier: string): string {
  return `oauth.login.id:${identifier.trim().toLowerCase()}`;
}
