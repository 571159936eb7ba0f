import { z } from "zod";
import { isKithError } from "../../domain/errors.js";
import { ALL_SCOPES } from "../../domain/scopes.js";
import { constantTimeEqual } from "./secrets.js";
import type { AuthorizationCheck, AuthorizationParams } from "./oauth-service.js";
import { GRANT_TYPES } from "./oauth-service.js";
import type { KithServices } from "../core-services.js";
import { publicAccess } from "../../platform/http/access.js";
import { NO_STORE, answeringOAuthErrors, oauthParams, withBasicClientCredentials } from "./oauth-error-responses.js";
import {
  CSRF_COOKIE,
  CSRF_FIELD,
  PAGE_HEADERS,
  PASSKEY_FIELD,
  authorizeFormPage,
  codePage,
  cookieValue,
  csrfCookie,
  messagePage,
} from "./oauth-pages.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

const HTML = "text/html; charset=utf-8";
/** The shape of the tokens `newFormToken` makes (32 random bytes, base64url). */
const FORM_TOKEN = /^[A-Za-z0-9_-]{43}$/;

const html = (body: string, status = 200, headers: Record<string, string> = {}): Reply =>
  Reply.text(body, HTML, { status, headers: { ...PAGE_HEADERS, ...headers } });

function authorizationParams(source: Record<string, string | undefined>): AuthorizationParams {
  return {
    responseType: source.response_type,
    clientId: source.client_id,
    redirectUri: source.redirect_uri,
    scope: source.scope ?? source.scopes,
    state: source.state,
    codeChallenge: source.code_challenge,
    codeChallengeMethod: source.code_challenge_method,
  };
}

/** A failed check: a page for the user, or a redirect with the error for the client. */
function refusal(check: Exclude<AuthorizationCheck, { kind: "ok" }>): Reply {
  return check.kind === "redirect"
    ? Reply.empty(302, { location: check.location, ...PAGE_HEADERS })
    : html(messagePage("Authorization failed", check.message), 400);
}

/** The account a posted passkey assertion signs in, or null when it does not verify. */
async function passkeyAccount(services: KithServices, assertion: string): Promise<string | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(assertion);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const entries = Object.entries(parsed).map(([key, value]) => ({ key, value }));
  try {
    return await services.passkeys.verifyAssertion(entries);
  } catch (error) {
    if (isKithError(error)) return null;
    throw error;
  }
}

const TokenResponseJson = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  scope: z.string(),
  created_at: z.number().int(),
  refresh_token: z.string().optional(),
  expires_in: z.number().int().optional(),
});

export const oauthRoutes = [
  route({
    method: "GET",
    path: "/oauth/authorize",
    summary: "The sign-in and consent page of the authorization-code flow",
    description:
      "Query: response_type=code, client_id, redirect_uri, scope, state, code_challenge and code_challenge_method=S256 (PKCE). " +
      "Answers an HTML form, or redirects to the redirect URI with an OAuth error.",
    tags: ["oauth"],
    access: publicAccess,
    produces: HTML,
    handler: async ({ query, services, request, url, config }) => {
      const check = await services.oauth.checkAuthorization(authorizationParams(oauthParams(query)));
      if (check.kind !== "ok") return refusal(check);
      // Several tabs may be open on the page: keep the browser's token while it has one.
      const existing = cookieValue(request, CSRF_COOKIE);
      const csrfToken = existing && FORM_TOKEN.test(existing) ? existing : services.oauth.newFormToken();
      const page = authorizeFormPage({ request: check.request, csrfToken, instanceName: new URL(config.origin).host });
      return html(page, 200, { "set-cookie": csrfCookie(csrfToken, url.protocol === "https:") });
    },
  }),
  route({
    method: "POST",
    path: "/oauth/authorize",
    summary: "Signs in and approves (or denies) an authorization request from the authorize page",
    description:
      "The form of GET /oauth/authorize: its fields, the CSRF token (which must match the page's cookie), username (or email), " +
      "password and decision=approve|deny. Redirects to the redirect URI with code and state, or shows the code for " +
      "urn:ietf:wg:oauth:2.0:oob. Failed sign-ins are rate limited per address and per account.",
    tags: ["oauth"],
    access: publicAccess,
    body: z.unknown(),
    produces: HTML,
    handler: async ({ body, services, request, clientIp, config }) => {
      const form = oauthParams(body);
      const cookie = cookieValue(request, CSRF_COOKIE);
      const sent = form[CSRF_FIELD];
      if (!cookie || !sent || !constantTimeEqual(cookie, sent)) {
        return html(
          messagePage(
            "The form has expired",
            "This form did not come from this site or has expired. Go back, reload the page and try again.",
          ),
          403,
        );
      }
      const check = await services.oauth.checkAuthorization(authorizationParams(form));
      if (check.kind !== "ok") return refusal(check);
      const authorization = check.request;
      if (form.decision === "deny") {
        const location = services.oauth.denialLocation(authorization);
        return location
          ? Reply.empty(302, { location, ...PAGE_HEADERS })
          : html(messagePage("Access denied", `You did not authorize ${authorization.app.name}.`));
      }
      const identifier = form.username ?? "";
      const again = (error: string, status: number, headers: Record<string, string> = {}): Reply =>
        html(
          authorizeFormPage({ request: authorization, csrfToken: cookie, instanceName: new URL(config.origin).host, error, identifier }),
          status,
          headers,
        );
      const passkeyResponse = form[PASSKEY_FIELD];
      if (passkeyResponse) {
        // The passkey button: the assertion is verified as finish-auth does, then the authorization completes.
        if (!(await services.accessBlocks.addressAllowed(clientIp)))
          return html(messagePage("Cannot sign in", "Access from your network address is blocked on this server."), 403);
        const accountId = await passkeyAccount(services, passkeyResponse);
        if (accountId === null) return again("Passkey sign-in failed. Try again, or use your password.", 422);
        const { code, location } = await services.oauth.issueCode(authorization, accountId);
        return location ? Reply.empty(302, { location, ...PAGE_HEADERS }) : html(codePage(authorization.app.name, code));
      }
      if (!identifier || !form.password) return again("Enter your username or email and your password.", 422);
      let result: Awaited<ReturnType<typeof services.oauth.signIn>>;
      try {
        result = await services.oauth.signIn(identifier, form.password, clientIp);
      } catch (error) {
        if (isKithError(error) && error.code === "request.rate_limited") {
          const seconds = String(Math.max(1, Math.ceil(error.retryAfterSeconds ?? 60)));
          return again("Too many failed attempts. Wait a few minutes and try again.", 429, { "retry-after": seconds });
        }
        throw error;
      }
      if (!result.ok) {
        if (result.reason === "address_blocked")
          return html(messagePage("Cannot sign in", "Access from your network address is blocked on this server."), 403);
        return result.reason === "cannot_sign_in"
          ? html(messagePage("Cannot sign in", "This account cannot sign in: it is disabled, suspended, or not yet approved."), 403)
          : again("Invalid username, email or password.", 422);
      }
      const { code, location } = await services.oauth.issueCode(authorization, result.account.id);
      return location ? Reply.empty(302, { location, ...PAGE_HEADERS }) : html(codePage(authorization.app.name, code));
    },
  }),
  route({
    method: "POST",
    path: "/oauth/token",
    summary: "Obtains a token: authorization_code (with PKCE), client_credentials, refresh_token or password",
    description:
      "Form or JSON body: grant_type, client_id, client_secret, and per grant code, redirect_uri, code_verifier; " +
      "scope; refresh_token; username (or email) and password. Errors are in OAuth's shape, {error, error_description}; " +
      "too many failed password attempts answer 429 with Retry-After.",
    tags: ["oauth"],
    access: publicAccess,
    body: z.unknown(),
    response: TokenResponseJson,
    handler: ({ body, services, request, clientIp }) =>
      answeringOAuthErrors(async () => {
        const token = await services.oauth.token(withBasicClientCredentials(oauthParams(body), request), { userAgent: request.headers.get("user-agent"), ip: clientIp });
        return Reply.json(token, { headers: { ...NO_STORE } });
      }),
  }),
  route({
    method: "POST",
    path: "/oauth/revoke",
    summary: "Revokes an access or refresh token (RFC 7009)",
    description: "Form or JSON body: token, client_id, client_secret. The token stops working at once; an unknown token is not an error.",
    tags: ["oauth"],
    access: publicAccess,
    body: z.unknown(),
    handler: ({ body, services, request }) =>
      answeringOAuthErrors(async () => {
        await services.oauth.revoke(withBasicClientCredentials(oauthParams(body), request));
        return {};
      }),
  }),
  route({
    method: "GET",
    path: "/.well-known/oauth-authorization-server",
    summary: "OAuth 2 authorization server metadata (RFC 8414)",
    tags: ["oauth"],
    access: publicAccess,
    handler: ({ config }) => {
      const at = (path: string): string => new URL(path, config.origin).toString();
      return {
        issuer: at("/"),
        service_documentation: "https://docs.joinmastodon.org/",
        authorization_endpoint: at("/oauth/authorize"),
        token_endpoint: at("/oauth/token"),
        revocation_endpoint: at("/oauth/revoke"),
        app_registration_endpoint: at("/api/v1/apps"),
        scopes_supported: ALL_SCOPES,
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: GRANT_TYPES,
        code_challenge_methods_supported: ["S256"],
        // Client credentials travel in the body: an Authorization header is read as a bearer token here.
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      };
    },
  }),
];
