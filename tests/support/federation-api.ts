/**
 * Driving a harness instance (a Kith server process) through its Mastodon
 * API as a client does: an app, a password-grant token, JSON requests.
 */
import type { JsonResponse, TestInstance } from "./federation-harness.js";

/** Creates a confirmed account from the command line and returns a token with every scope a client asks for. */
export async function accountWithToken(instance: TestInstance, username: string): Promise<{ token: string; password: string }> {
  const password = await instance.createAccount(username);
  const json = { "content-type": "application/json" };
  const app = await instance.request("POST", "/api/v1/apps", {
    headers: json,
    body: JSON.stringify({ client_name: "federation tests", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write follow" }),
  });
  const { client_id, client_secret } = app.body as { client_id: string; client_secret: string };
  const token = await instance.request("POST", "/oauth/token", {
    headers: json,
    body: JSON.stringify({
      grant_type: "password",
      client_id,
      client_secret,
      username: `${username}@example.com`,
      password,
      scope: "read write follow",
    }),
  });
  const accessToken = (token.body as { access_token?: string }).access_token;
  if (!accessToken) throw new Error(`No token for ${username}: ${token.status} ${JSON.stringify(token.body)}`);
  return { token: accessToken, password };
}

/** A signed-in API call with an optional JSON body. */
export function call(instance: TestInstance, token: string, method: string, path: string, json?: unknown): Promise<JsonResponse> {
  return instance.request(method, path, {
    headers: { authorization: `Bearer ${token}`, ...(json !== undefined && { "content-type": "application/json" }) },
    ...(json !== undefined && { body: JSON.stringify(json) }),
  });
}

/** Polls until `done` holds or the time is up; returns the last value (the caller asserts on it). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
