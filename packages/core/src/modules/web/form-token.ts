import { timingSafeEqual } from "node:crypto";

/**
 * A form's protection against cross-site requests: the page sets a random
 * token in a cookie and the same token in a hidden field; a post must carry
 * both, equal. The cookie is SameSite=Strict, so a form posted from another
 * site arrives without it.
 */

export const FORM_COOKIE = "kith_web_csrf";
export const FORM_FIELD = "csrf_token";
/** The shape of the tokens the OAuth service's `newFormToken` makes (32 random bytes, base64url). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The form token of a request's cookie, when it has a well-formed one. */
export function formCookieToken(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, value = ""] = part.trim().split("=", 2);
    if (name === FORM_COOKIE && TOKEN_SHAPE.test(value)) return value;
  }
  return null;
}

/** The Set-Cookie header that gives the browser its token, for the account pages only. */
export function formCookie(token: string, secure: boolean): string {
  return `${FORM_COOKIE}=${token}; Path=/auth; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Whether a posted form carries the token of its cookie (compared in constant time). */
export function formTokenMatches(request: Request, sent: unknown): boolean {
  const cookie = formCookieToken(request);
  if (cookie === null || typeof sent !== "string" || !TOKEN_SHAPE.test(sent)) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(sent));
}
