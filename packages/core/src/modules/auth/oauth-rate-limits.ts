/**
 * Limits on password attempts, at the token endpoint (password grant) and on
 * the authorize page. Failed attempts are counted per client address, per
 * pair of address and account, and per account alone, each in a fixed
 * window. The pair's limit is the tight one: a stranger guessing from one
 * address is stopped after a few tries without locking the account's owner,
 * who signs in from elsewhere. The account's own ceiling is far looser and
 * slower, for guesses spread over many addresses. An address shared by many
 * people (a NAT) gets more room than a pair. Kept small and in one place so
 * tests can reach them.
 */
export const LOGIN_WINDOW_SECONDS = 5 * 60;
/** Failed attempts from one address per window before it must wait. */
export const LOGIN_FAILURES_PER_IP = 20;
/** Failed attempts on one account from one address per window before that address must wait for it. */
export const LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT = 10;
/** Failed attempts on one account from anywhere per (longer) window before every address must wait for it. */
export const LOGIN_FAILURES_PER_ACCOUNT = 100;
export const LOGIN_ACCOUNT_WINDOW_SECONDS = 60 * 60;

export function ipCounterKey(ip: string): string {
  return `oauth.login.ip:${ip}`;
}

/**
 * `account` is the account's id when the identifier names one, else the
 * identifier itself, so that a username and its email share their limits.
 */
export function sourceAndAccountCounterKey(ip: string | null, account: string): string {
  return `oauth.login.pair:${ip ?? "unknown"}:${account.trim().toLowerCase()}`;
}

export function accountCounterKey(account: string): string {
  return `oauth.login.account:${account.trim().toLowerCase()}`;
}

/**
 * Client registrations from one address per window. Registering needs no
 * token, and each one is a row kept for good; a client registers once per
 * sign-in at most.
 */
export const APP_REGISTRATIONS_PER_IP = 30;
export const APP_REGISTRATION_WINDOW_SECONDS = 5 * 60;

export function appRegistrationCounterKey(ip: string): string {
  return `oauth.apps.ip:${ip}`;
}
