import type { TestKith } from "@kith/core/testing";
import { type RegisteredApp, registerApp } from "./oauth.js";

/** An app and an app-only token from client_credentials, as a Mastodon client gets before signing someone up. */
export async function appToken(kith: TestKith, scope = "read write"): Promise<{ app: RegisteredApp; token: string }> {
  const app = await registerApp(kith, { scopes: scope });
  const response = await kith.request("POST", "/oauth/token", {
    form: { grant_type: "client_credentials", client_id: app.client_id, client_secret: app.client_secret, scope },
  });
  if (response.status !== 200) throw new Error(`client_credentials failed: ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { access_token: string };
  return { app, token: body.access_token };
}

export interface SignupFields {
  username?: string;
  email?: string;
  password?: string;
  agreement?: boolean | string;
  locale?: string;
  reason?: string;
}

export function signupFields(username: string, extra: SignupFields = {}): SignupFields {
  return {
    username,
    email: `${username.toLowerCase()}@example.com`,
    password: "correct horse battery",
    agreement: true,
    locale: "en",
    ...extra,
  };
}

/** `POST /api/v1/accounts` with a token. */
export function signUp(kith: TestKith, token: string, fields: SignupFields, options: { clientIp?: string } = {}): Promise<Response> {
  return kith.request("POST", "/api/v1/accounts", { token, json: fields, ...(options.clientIp && { clientIp: options.clientIp }) });
}

/** The confirmation link of the newest mail to an address. */
export function confirmationLink(kith: TestKith, address: string): string {
  const text = kith.mail.lastTo(address)?.text ?? "";
  const link = /https?:\/\/\S+\/auth\/confirmation\?confirmation_token=[A-Za-z0-9_-]+/.exec(text)?.[0];
  if (!link) throw new Error(`No confirmation link in mail to ${address}: ${text}`);
  return link;
}

/** Path and query of a link, for `kith.request`. */
export function pathOf(link: string): string {
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}
