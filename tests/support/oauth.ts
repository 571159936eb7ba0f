import { createHash, randomBytes } from "node:crypto";
import type { TestKith } from "@kith/core/testing";

/** An app registered through `POST /api/v1/apps`, with its one-time secret. */
export interface RegisteredApp {
  readonly id: string;
  readonly client_id: string;
  readonly client_secret: string;
  readonly scopes: readonly string[];
  readonly redirect_uris: readonly string[];
}

export const OOB = "urn:ietf:wg:oauth:2.0:oob";

let registrations = 0;

export async function registerApp(
  kith: TestKith,
  options: { scopes?: string; redirectUris?: string | readonly string[]; name?: string } = {},
): Promise<RegisteredApp> {
  const response = await kith.request("POST", "/api/v1/apps", {
    json: { client_name: options.name ?? "Test app", redirect_uris: options.redirectUris ?? OOB, scopes: options.scopes ?? "read write" },
    // Each from an address of its own: suites register more apps than one address may.
    clientIp: `198.18.${Math.floor(++registrations / 250) % 250}.${registrations % 250}`,
  });
  if (response.status !== 200) throw new Error(`App registration failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as RegisteredApp;
}

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizeQuery(app: RegisteredApp, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: "code",
    client_id: app.client_id,
    redirect_uri: app.redirect_uris[0] ?? OOB,
    scope: "read",
    ...extra,
  }).toString();
}

/** The authorize page's form fields and CSRF cookie, as a browser would hold them. */
export async function openAuthorizePage(
  kith: TestKith,
  query: string,
): Promise<{ response: Response; html: string; cookie: string; fields: Record<string, string> }> {
  const response = await kith.request("GET", `/oauth/authorize?${query}`);
  const html = await response.text();
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1] as string] = (match[2] as string).replaceAll("&amp;", "&").replaceAll("&quot;", '"');
  }
  return { response, html, cookie, fields };
}

/** Submits the authorize form with credentials; returns the raw response (302 or a page). */
export async function submitAuthorizeForm(
  kith: TestKith,
  page: { cookie: string; fields: Record<string, string> },
  form: { username?: string; password?: string; decision?: string },
  options: { clientIp?: string } = {},
): Promise<Response> {
  return kith.request("POST", "/oauth/authorize", {
    form: { ...page.fields, decision: "approve", ...form },
    headers: { cookie: page.cookie },
    ...(options.clientIp && { clientIp: options.clientIp }),
  });
}

/** Runs the whole authorization-code flow through the form and returns the code. */
export async function obtainCode(
  kith: TestKith,
  app: RegisteredApp,
  user: { username: string; password: string },
  extra: Record<string, string> = {},
): Promise<string> {
  const page = await openAuthorizePage(kith, authorizeQuery(app, extra));
  const response = await submitAuthorizeForm(kith, page, user);
  const location = response.headers.get("location");
  if (response.status === 302 && location) {
    const code = new URL(location).searchParams.get("code");
    if (code) return code;
  }
  const html = await response.text();
  const shown = /<code id="code">([^<]+)<\/code>/.exec(html)?.[1];
  if (!shown) throw new Error(`No code: ${response.status} ${html.slice(0, 300)}`);
  return shown;
}
