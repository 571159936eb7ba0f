import type { Grant } from "./permissions.js";

/** Who is making a request, as services see it. */
export type Caller = GuestCaller | UserCaller | AppCaller;

export interface GuestCaller {
  readonly kind: "guest";
}

/** A signed-in account, through one session (access token). */
export interface UserCaller {
  readonly kind: "user";
  readonly accountId: string;
  readonly sessionId: string;
  readonly scopes: readonly string[];
  /** Whether the account's email address is confirmed; most routes refuse unconfirmed users. */
  readonly emailConfirmed: boolean;
  /** The permissions the account holds through its roles; loaded once per request. */
  grants(): Promise<readonly Grant[]>;
}

/** An application acting for itself (client_credentials token), with no account. */
export interface AppCaller {
  readonly kind: "app";
  readonly appId: string;
  readonly sessionId: string;
  readonly scopes: readonly string[];
}

export const GUEST: GuestCaller = { kind: "guest" };
