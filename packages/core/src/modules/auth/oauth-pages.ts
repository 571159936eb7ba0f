import type { AuthorizationRequest } from "./oauth-service.js";
import { escapeHtml } from "../../platform/http/html.js";

/**
 * The HTML of the authorize page: sign-in and consent in one form, with no
 * outside assets and one script of the server's own (the passkey button,
 * `passkey-script.ts`). Headers forbid framing (clickjacking a
 * consent button), caching, and referrers (the code travels in the URL).
 */

/** Name of the cookie holding the form's CSRF token; the form holds the same value. */
export const CSRF_COOKIE = "kith_oauth_csrf";
export const CSRF_FIELD = "csrf_token";
/** The form field the passkey button fills with the WebAuthn assertion (JSON). */
export const PASSKEY_FIELD = "passkey_response";

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  // No form-action: Chromium applies it to the redirect after the form, and the client's redirect URI may be anywhere.
  "content-security-policy":
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.5rem;box-sizing:border-box}
.actions{margin-top:1.2rem;display:flex;gap:.6rem}button{padding:.5rem 1rem}.error{color:#a00;border:1px solid #a00;padding:.5rem}
code{display:block;word-break:break-all;padding:.6rem;background:#f3f3f3;font-size:1.1rem}ul{padding-left:1.2rem}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

function hidden(name: string, value: string | null): string {
  return value === null ? "" : `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

export interface AuthorizeFormOptions {
  readonly request: AuthorizationRequest;
  readonly csrfToken: string;
  readonly instanceName: string;
  /** Shown above the form after a failed attempt. */
  readonly error?: string;
  readonly identifier?: string;
}

export function authorizeFormPage(options: AuthorizeFormOptions): string {
  const { request } = options;
  const scopes = request.scopes
    .map((scope) => `<li><code style="display:inline;padding:0 .2rem">${escapeHtml(scope)}</code></li>`)
    .join("");
  const website = request.app.website ? ` (<span>${escapeHtml(request.app.website)}</span>)` : "";
  return page(
    `Authorize ${request.app.name}`,
    `<h1>Authorize <span id="app-name">${escapeHtml(request.app.name)}</span></h1>
<p><strong>${escapeHtml(request.app.name)}</strong>${website} asks to use your account on ${escapeHtml(options.instanceName)} with these permissions:</p>
<ul id="scopes">${scopes}</ul>
${options.error ? `<p class="error" role="alert">${escapeHtml(options.error)}</p>` : ""}
<form method="post" action="/oauth/authorize">
${hidden(CSRF_FIELD, options.csrfToken)}${hidden("response_type", "code")}${hidden("client_id", request.app.clientId)}${hidden("redirect_uri", request.redirectUri)}${hidden("scope", request.scopes.join(" "))}${hidden("state", request.state)}${request.codeChallenge === null ? "" : hidden("code_challenge", request.codeChallenge) + hidden("code_challenge_method", "S256")}
<label for="username">Username or email</label><input type="text" id="username" name="username" autocomplete="username" value="${escapeHtml(options.identifier ?? "")}">
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password">
<div class="actions"><button type="submit" name="decision" value="approve" id="approve">Sign in and authorize</button>
<button type="submit" name="decision" value="deny" id="deny" formnovalidate>Deny</button></div>
${hidden(PASSKEY_FIELD, "")}<div class="actions"><button type="button" id="passkey">Sign in with a passkey and authorize</button></div>
<p id="passkey-status" role="status"></p>
</form><script src="/oauth/passkey.js" defer></script>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>`);
}

/** For out-of-band clients: the user copies the code into the app. */
export function codePage(appName: string, code: string): string {
  return page(
    "Authorization code",
    `<h1>Authorization code</h1><p>Copy this code and paste it into ${escapeHtml(appName)}:</p><code id="code">${escapeHtml(code)}</code>`,
  );
}

/** The value of one cookie of a request, or null. */
export function cookieValue(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index === -1) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return null;
}

export function csrfCookie(token: string, secure: boolean): string {
  // SameSite=Strict: a form posted from another site arrives without it, which is the point.
  return `${CSRF_COOKIE}=${token}; Path=/oauth/authorize; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}
