import { createHash } from "node:crypto";
import { type LocalAccount, canSignIn } from "../../domain/accounts.js";
import { KithError } from "../../domain/errors.js";
import { isKnownScope, parseScopes, scopesAllow } from "../../domain/scopes.js";
import { findLoginByIdentifier, findLocalAccountById } from "../accounts/accounts-store.js";
import { type OAuthAppRow, findOAuthAppByClientId, findOAuthAppById, insertOAuthApp } from "./oauth-apps-store.js";
import { insertOneTimeSecret } from "./one-time-secrets-store.js";
import { enforceRateLimit } from "../credentials/credential-limits.js";
import { peekCounter } from "./rate-counters-store.js";
import type { IssuedSession, SessionService } from "./session-service.js";
import { constantTimeEqual, hashSecret, newToken } from "./secrets.js";
import type { ServiceDeps } from "../service-deps.js";
import type { AccessBlocks } from "../registration/access-blocks.js";
import { OAuthError, type OAuthErrorCode } from "./oauth-error.js";
import {
  APP_REGISTRATIONS_PER_IP,
  APP_REGISTRATION_WINDOW_SECONDS,
  LOGIN_ACCOUNT_WINDOW_SECONDS,
  LOGIN_FAILURES_PER_ACCOUNT,
  LOGIN_FAILURES_PER_IP,
  LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT,
  LOGIN_WINDOW_SECONDS,
  accountCounterKey,
  appRegistrationCounterKey,
  ipCounterKey,
  sourceAndAccountCounterKey,
} from "./oauth-rate-limits.js";

/** The redirect URI of clients that show the code to the user instead of receiving it (RFC 6749's "out of band"). */
export const OOB_REDIRECT_URI = "urn:ietf:wg:oauth:2.0:oob";
/** Authorization codes are short-lived: the client exchanges them at once. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 10 * 60;
export const AUTHORIZATION_CODE_KIND = "oauth.code";
/** Scopes of a request that names none, as Mastodon does. */
export const DEFAULT_SCOPES = ["read"] as const;
export const GRANT_TYPES = ["authorization_code", "client_credentials", "refresh_token", "password"] as const;

/** Schemes a browser would run or read locally rather than hand to an app. */
const FORBIDDEN_REDIRECT_SCHEMES = new Set(["javascript:", "data:", "vbscript:", "file:", "blob:"]);
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/** A registered application as the API shows it. */
export interface AppView {
  readonly id: string;
  readonly name: string;
  readonly website: string | null;
  readonly scopes: readonly string[];
  readonly redirectUris: readonly string[];
  readonly clientId: string;
  readonly createdAt: string;
}

export interface RegisterAppInput {
  readonly name: string;
  readonly redirectUris: readonly string[];
  /** Space-separated, as clients send them; `read` when absent. */
  readonly scopes?: string | null;
  readonly website?: string | null;
  /** The registering client's address, counted against `APP_REGISTRATIONS_PER_IP`; null when unknown. */
  readonly ip?: string | null;
}

/** The parameters of `/oauth/authorize`, as received. */
export interface AuthorizationParams {
  readonly responseType?: string | undefined;
  readonly clientId?: string | undefined;
  readonly redirectUri?: string | undefined;
  readonly scope?: string | undefined;
  readonly state?: string | undefined;
  readonly codeChallenge?: string | undefined;
  readonly codeChallengeMethod?: string | undefined;
}

/** An authorization request that passed every check. */
export interface AuthorizationRequest {
  readonly app: AppView;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly state: string | null;
  readonly codeChallenge: string | null;
}

/**
 * The outcome of checking an authorization request: good; bad in a way the
 * client must hear about at its redirect URI; or bad before a redirect URI
 * can be trusted (unknown client, unregistered URI), shown to the user only.
 */
export type AuthorizationCheck =
  | { readonly kind: "ok"; readonly request: AuthorizationRequest }
  | { readonly kind: "redirect"; readonly location: string }
  | { readonly kind: "invalid"; readonly message: string };

const ADDRESS_BLOCKED = "Access from your network address is blocked.";

export type SignInResult =
  | { readonly ok: true; readonly account: LocalAccount }
  | { readonly ok: false; readonly reason: "invalid_credentials" | "cannot_sign_in" | "address_blocked" };

/** Where a token request comes from, recorded on the session. */
export interface ClientContext {
  readonly userAgent: string | null;
  readonly ip: string | null;
}

/** The token endpoint's parameters, as received (all strings, any may be missing). */
export type TokenParams = Readonly<Record<string, string | undefined>>;

/** RFC 6749 §5.1, as Mastodon answers it. */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: "Bearer";
  readonly scope: string;
  /** Seconds since the epoch. */
  readonly created_at: number;
  readonly refresh_token?: string;
  readonly expires_in?: number;
}

interface CodePayload {
  readonly appId: string;
  readonly accountId: string;
  readonly scopes: readonly string[];
  readonly redirectUri: string;
  readonly codeChallenge: string | null;
}

function toAppView(row: OAuthAppRow): AppView {
  return {
    id: row.id,
    name: row.name,
    website: row.website,
    scopes: parseScopes(row.scopes),
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    clientId: row.client_id,
    createdAt: row.created_at,
  };
}

/** Whether a redirect URI may be registered: out-of-band, or an absolute URI without fragment. */
export function isAcceptableRedirectUri(uri: string): boolean {
  if (uri === OOB_REDIRECT_URI) return true;
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  return !FORBIDDEN_REDIRECT_SCHEMES.has(url.protocol) && !uri.includes("#");
}

/** The challenge of PKCE's S256 method for a verifier (RFC 7636 §4.2). */
export function s256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** Requested scopes, checked against the app's: unknown ones, or ones the app did not register, are refused. */
function grantableScopes(requested: string | undefined | null, app: AppView): string[] | null {
  const scopes = requested?.trim() ? parseScopes(requested) : [...DEFAULT_SCOPES];
  if (scopes.length === 0) return null;
  for (const scope of scopes) {
    if (!isKnownScope(scope) || !scopesAllow(app.scopes, [scope])) return null;
  }
  return scopes;
}

/** Puts OAuth response parameters on a redirect URI, keeping the ones it already has. */
function withParams(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

/** OAuth 2 as Mastodon clients use it: apps, the authorization code, the token grants, revocation. */
export class OAuthService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids" | "random" | "passwords">,
    private readonly sessions: SessionService,
    private readonly blocks: Pick<AccessBlocks, "addressAllowed">,
  ) {}

  // --- Applications -------------------------------------------------------

  /** Registers a client; its secret is returned once and stored only hashed. */
  async registerApp(input: RegisterAppInput): Promise<{ app: AppView; clientSecret: string }> {
    if (input.ip) {
      await enforceRateLimit(
        this.deps,
        appRegistrationCounterKey(input.ip),
        APP_REGISTRATIONS_PER_IP,
        APP_REGISTRATION_WINDOW_SECONDS,
        "Too many applications registered; try again later",
      );
    }
    const scopes = input.scopes?.trim() ? parseScopes(input.scopes) : [...DEFAULT_SCOPES];
    const unknown = scopes.filter((scope) => !isKnownScope(scope));
    if (unknown.length > 0) {
      throw new KithError("oauth.invalid_scope", {
        details: unknown.map((scope) => ({ field: "scopes", message: `Unknown scope ${scope}` })),
      });
    }
    const uris = [...new Set(input.redirectUris.map((uri) => uri.trim()).filter(Boolean))];
    const bad = uris.filter((uri) => !isAcceptableRedirectUri(uri));
    if (uris.length === 0 || bad.length > 0) {
      throw new KithError("oauth.invalid_redirect_uri", {
        details: (bad.length ? bad : [""]).map((uri) => ({ field: "redirect_uris", message: uri ? `Not acceptable: ${uri}` : "Required" })),
      });
    }
    const clientSecret = newToken(this.deps.random);
    const row: OAuthAppRow = {
      id: this.deps.ids.next("app"),
      name: input.name,
      website: input.website?.trim() || null,
      redirect_uris: JSON.stringify(uris),
      scopes: scopes.join(" "),
      client_id: newToken(this.deps.random),
      client_secret_hash: hashSecret(clientSecret),
      created_at: this.deps.clock.now().toISOString(),
    };
    await insertOAuthApp(this.deps.storage.db, row);
    return { app: toAppView(row), clientSecret };
  }

  async findAppById(id: string): Promise<AppView> {
    const row = await findOAuthAppById(this.deps.storage.db, id);
    if (!row) throw new KithError("oauth.app_not_found");
    return toAppView(row);
  }

  /** The app with these credentials; anything else is `invalid_client`. */
  async authenticateClient(clientId: string | undefined, clientSecret: string | undefined): Promise<AppView> {
    if (!clientId || !clientSecret) throw new OAuthError("invalid_client");
    const row = await findOAuthAppByClientId(this.deps.storage.db, clientId);
    // Compared in constant time, so response times do not leak how much of a guessed secret was right.
    if (!row || !constantTimeEqual(row.client_secret_hash, hashSecret(clientSecret))) throw new OAuthError("invalid_client");
    return toAppView(row);
  }

  // --- Authorization endpoint ----------------------------------------------

  /** Checks an authorization request, as the page shows it (GET) and again when the form comes back (POST). */
  async checkAuthorization(params: AuthorizationParams): Promise<AuthorizationCheck> {
    const row = params.clientId ? await findOAuthAppByClientId(this.deps.storage.db, params.clientId) : undefined;
    if (!row) return { kind: "invalid", message: "The application asking for access is not known here (unknown client_id)." };
    const app = toAppView(row);
    let redirectUri = params.redirectUri;
    if (!redirectUri && app.redirectUris.length === 1) redirectUri = app.redirectUris[0];
    if (!redirectUri || !app.redirectUris.includes(redirectUri)) {
      return { kind: "invalid", message: "The redirect URI is not one the application registered." };
    }
    const state = params.state ?? null;
    const fail = (error: OAuthErrorCode, description: string): AuthorizationCheck =>
      redirectUri === OOB_REDIRECT_URI
        ? { kind: "invalid", message: description }
        : { kind: "redirect", location: withParams(redirectUri, { error, error_description: description, state }) };
    if (params.responseType !== "code") return fail("unsupported_response_type", "Only response_type=code is supported.");
    const scopes = grantableScopes(params.scope, app);
    if (!scopes) return fail("invalid_scope", "The requested scope is invalid, unknown, or not registered by the application.");
    const challenge = params.codeChallenge || null;
    const method = params.codeChallengeMethod || null;
    if (challenge === null && method !== null) return fail("invalid_request", "code_challenge_method without code_challenge.");
    if (challenge !== null) {
      // RFC 7636 makes an absent method mean "plain"; only S256 is accepted, as Mastodon does.
      if (method !== "S256") return fail("invalid_request", "Only the S256 code challenge method is supported.");
      if (!PKCE_VALUE.test(challenge)) return fail("invalid_request", "The code challenge is malformed.");
    }
    return { kind: "ok", request: { app, redirectUri, scopes, state, codeChallenge: challenge } };
  }

  /** A random token for the authorize form's CSRF check (a cookie and a hidden field that must match). */
  newFormToken(): string {
    return newToken(this.deps.random);
  }

  /** Where the user's "deny" sends them; null for out-of-band clients, which get a page. */
  denialLocation(request: AuthorizationRequest): string | null {
    if (request.redirectUri === OOB_REDIRECT_URI) return null;
    return withParams(request.redirectUri, {
      error: "access_denied",
      error_description: "The user denied the request.",
      state: request.state,
    });
  }

  /**
   * Issues a single-use authorization code for an approved request. Returns
   * the code and where to send the user (null for out-of-band clients, which
   * show the code).
   */
  async issueCode(request: AuthorizationRequest, accountId: string): Promise<{ code: string; location: string | null }> {
    const code = newToken(this.deps.random);
    const now = this.deps.clock.now();
    const payload: CodePayload = {
      appId: request.app.id,
      accountId,
      scopes: request.scopes,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
    };
    await insertOneTimeSecret(this.deps.storage.db, {
      id: this.deps.ids.next("secret"),
      kind: AUTHORIZATION_CODE_KIND,
      secretHash: hashSecret(code),
      subjectId: accountId,
      payload: JSON.stringify(payload),
      expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_TTL_SECONDS * 1000).toISOString(),
      createdAt: now.toISOString(),
    });
    const location = request.redirectUri === OOB_REDIRECT_URI ? null : withParams(request.redirectUri, { code, state: request.state });
    return { code, location };
  }

  // --- Passwords -------------------------------------------------------------

  /**
   * Checks a username-or-email and password, under the failed-attempt limits
   * per address, per address and account, and per account (429 with
   * Retry-After when over; see rate-limits.ts).
   */
  async signIn(identifier: string, password: string, ip: string | null): Promise<SignInResult> {
    // Before the password is checked: a blocked network learns nothing about the password either.
    if (!(await this.blocks.addressAllowed(ip))) return { ok: false, reason: "address_blocked" };
    const now = this.deps.clock.now();
    const login = await findLoginByIdentifier(this.deps.storage.db, identifier.trim());
    // Counted per account when the identifier names one, so its username and its email share one limit.
    const account = login?.account.id ?? identifier;
    const limits: Array<[key: string, limit: number, windowSeconds: number]> = [
      [sourceAndAccountCounterKey(ip, account), LOGIN_FAILURES_PER_SOURCE_AND_ACCOUNT, LOGIN_WINDOW_SECONDS],
      [accountCounterKey(account), LOGIN_FAILURES_PER_ACCOUNT, LOGIN_ACCOUNT_WINDOW_SECONDS],
    ];
    if (ip) limits.push([ipCounterKey(ip), LOGIN_FAILURES_PER_IP, LOGIN_WINDOW_SECONDS]);
    for (const [key, limit] of limits) {
      const state = await peekCounter(this.deps.storage.db, key, now);
      if (state && state.count >= limit) {
        throw new KithError("request.rate_limited", {
          message: "Too many failed sign-in attempts; try again later",
          retryAfterSeconds: Math.ceil((state.windowEndsAt.getTime() - now.getTime()) / 1000),
        });
      }
    }
    const valid = await this.deps.passwords.verify(password, login?.passwordHash ?? null);
    if (!login || !valid) {
      for (const [key, , windowSeconds] of limits) await this.deps.storage.incrementCounter(key, windowSeconds, now);
      return { ok: false, reason: "invalid_credentials" };
    }
    if (!canSignIn(login.account)) return { ok: false, reason: "cannot_sign_in" };
    return { ok: true, account: login.account };
  }

  // --- Token endpoint --------------------------------------------------------

  /** `POST /oauth/token`: every grant; failures are OAuthErrors (rate limits stay Kith's 429). */
  async token(params: TokenParams, context: ClientContext): Promise<TokenResponse> {
    const grantType = params.grant_type;
    if (!grantType) throw new OAuthError("invalid_request", "Missing required parameter: grant_type.");
    if (!(GRANT_TYPES as readonly string[]).includes(grantType)) throw new OAuthError("unsupported_grant_type");
    const app = await this.authenticateClient(params.client_id, params.client_secret);
    switch (grantType) {
      case "authorization_code":
        return this.#authorizationCode(app, params, context);
      case "client_credentials": {
        const scopes = grantableScopes(params.scope, app);
        if (!scopes) throw new OAuthError("invalid_scope");
        return this.#respond(await this.sessions.issue({ accountId: null, appId: app.id, scopes, ...context }));
      }
      case "refresh_token":
        return this.#refresh(app, params, context);
      default:
        return this.#password(app, params, context);
    }
  }

  async #authorizationCode(app: AppView, params: TokenParams, context: ClientContext): Promise<TokenResponse> {
    if (!params.code) throw new OAuthError("invalid_request", "Missing required parameter: code.");
    if (!params.redirect_uri) throw new OAuthError("invalid_request", "Missing required parameter: redirect_uri.");
    if (!(await this.blocks.addressAllowed(context.ip))) throw new OAuthError("invalid_grant", ADDRESS_BLOCKED);
    // Consumed before any other check: a code presented with the wrong client or verifier is spent all the same.
    const row = await this.deps.storage.consumeOnce({
      kind: AUTHORIZATION_CODE_KIND,
      secretHash: hashSecret(params.code),
      now: this.deps.clock.now(),
    });
    if (!row?.payload) throw new OAuthError("invalid_grant");
    const payload = JSON.parse(row.payload) as CodePayload;
    if (payload.appId !== app.id || payload.redirectUri !== params.redirect_uri) throw new OAuthError("invalid_grant");
    const verifier = params.code_verifier;
    if (payload.codeChallenge !== null) {
      if (!verifier || !PKCE_VALUE.test(verifier) || !constantTimeEqual(s256Challenge(verifier), payload.codeChallenge)) {
        throw new OAuthError("invalid_grant", "The code verifier does not match the code challenge.");
      }
    } else if (verifier) {
      // A verifier for a code issued without a challenge means someone swapped codes (PKCE downgrade).
      throw new OAuthError("invalid_grant", "The code was issued without a code challenge.");
    }
    const account = await findLocalAccountById(this.deps.storage.db, payload.accountId);
    if (!account || !canSignIn(account)) throw new OAuthError("invalid_grant", "The account cannot sign in.");
    return this.#respond(
      await this.sessions.issue({ accountId: account.id, appId: app.id, scopes: payload.scopes, withRefreshToken: true, ...context }),
    );
  }

  async #password(app: AppView, params: TokenParams, context: ClientContext): Promise<TokenResponse> {
    if (!params.username || params.password === undefined) {
      throw new OAuthError("invalid_request", "Missing required parameters: username and password.");
    }
    const scopes = grantableScopes(params.scope, app);
    if (!scopes) throw new OAuthError("invalid_scope");
    const result = await this.signIn(params.username, params.password, context.ip);
    if (!result.ok) {
      throw new OAuthError(
        "invalid_grant",
        result.reason === "cannot_sign_in"
          ? "The account cannot sign in."
          : result.reason === "address_blocked"
            ? ADDRESS_BLOCKED
            : "Invalid username, email or password.",
      );
    }
    return this.#respond(
      await this.sessions.issue({ accountId: result.account.id, appId: app.id, scopes, withRefreshToken: true, ...context }),
    );
  }

  async #refresh(app: AppView, params: TokenParams, context: ClientContext): Promise<TokenResponse> {
    if (!params.refresh_token) throw new OAuthError("invalid_request", "Missing required parameter: refresh_token.");
    if (!(await this.blocks.addressAllowed(context.ip))) throw new OAuthError("invalid_grant", ADDRESS_BLOCKED);
    const session = await this.sessions.findByRefreshToken(params.refresh_token);
    if (!session || session.app_id !== app.id) throw new OAuthError("invalid_grant");
    const held = parseScopes(session.scopes);
    // A refresh may narrow the scopes (RFC 6749 §6), never widen them.
    let scopes = held;
    if (params.scope?.trim()) {
      scopes = parseScopes(params.scope);
      if (!scopes.every((scope) => held.includes(scope))) throw new OAuthError("invalid_scope");
    }
    if (session.account_id !== null) {
      const account = await findLocalAccountById(this.deps.storage.db, session.account_id);
      if (!account || !canSignIn(account)) throw new OAuthError("invalid_grant", "The account cannot sign in.");
    }
    const rotated = await this.sessions.rotate(params.refresh_token, scopes);
    if (!rotated) throw new OAuthError("invalid_grant");
    return this.#respond(rotated);
  }

  #respond(issued: IssuedSession): TokenResponse {
    const createdAt = Math.floor(new Date(issued.createdAt).getTime() / 1000);
    const expiresIn = issued.expiresAt
      ? Math.max(0, Math.floor((new Date(issued.expiresAt).getTime() - this.deps.clock.now().getTime()) / 1000))
      : undefined;
    return {
      access_token: issued.accessToken,
      token_type: "Bearer",
      scope: issued.scopes.join(" "),
      created_at: createdAt,
      ...(issued.refreshToken !== null && { refresh_token: issued.refreshToken }),
      ...(expiresIn !== undefined && { expires_in: expiresIn }),
    };
  }

  // --- Revocation ------------------------------------------------------------

  /**
   * `POST /oauth/revoke` (RFC 7009): revokes the session of an access or
   * refresh token issued to this client. An unknown token is not an error:
   * the client's goal, that the token not work, holds.
   */
  async revoke(params: TokenParams): Promise<void> {
    if (!params.token) throw new OAuthError("invalid_request", "Missing required parameter: token.");
    const app = await this.authenticateClient(params.client_id, params.client_secret);
    const session = await this.sessions.findByAnyToken(params.token);
    if (!session) return;
    if (session.app_id !== app.id) throw new OAuthError("unauthorized_client", "The token was not issued to this client.");
    await this.sessions.revokeById(session.id);
  }
}
