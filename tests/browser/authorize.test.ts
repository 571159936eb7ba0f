/**
 * The authorization-code flow through the HTML page, in a real browser:
 * Debian's Chromium driven by playwright-core, against a real HTTP server.
 * CI installs Chromium; elsewhere, without it, the test is skipped with a
 * notice rather than failing.
 *
 * On SQLite only: what these add is the page in a browser; the same flows'
 * storage runs on both engines in tests/api (oauth, passkeys-authorize).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith } from "@kith/core/testing";
import { type Browser, chromium } from "playwright-core";
import { sqlite } from "../support/engines.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const available = existsSync(CHROMIUM);
const inCi = process.env.CI === "true";
if (!available && !inCi) {
  console.warn(
    `NOTICE: ${CHROMIUM} is missing, so the browser test of the authorize page is skipped (apt-get install chromium to run it).`,
  );
}

describe.skipIf(!available && !inCi)("the authorize page in Chromium", () => {
  let kith: TestKith;
  let server: NodeServer;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing; CI must install Debian's chromium package`);
    kith = await sqlite.testKith();
    // The client's redirect URI lives on the same server: it echoes what it receives, as a client app would read it.
    server = await startNodeServer({
      handler: async (request, info) => {
        const url = new URL(request.url);
        if (url.pathname === "/client/callback") {
          const body = `code=${url.searchParams.get("code") ?? ""} state=${url.searchParams.get("state") ?? ""}`;
          return new Response(body, { headers: { "content-type": "text/plain; charset=utf-8" } });
        }
        return kith.fetch(request, info);
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await kith?.close();
  });

  it("signs in, approves, lands on the redirect with the code, and exchanges it with PKCE", async () => {
    const { account, password } = await kith.services.accounts.createLocalAccount({
      username: "browser_user",
      email: "browser@example.com",
      confirmed: true,
    });
    const redirectUri = `${server.url}/client/callback`;
    const registered = await fetch(`${server.url}/api/v1/apps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Browser Client", redirect_uris: redirectUri, scopes: "read write" }),
    });
    const app = (await registered.json()) as { client_id: string; client_secret: string };
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const authorizeUrl = `${server.url}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: redirectUri,
      scope: "read write",
      state: "state-123",
      code_challenge: challenge,
      code_challenge_method: "S256",
    })}`;

    const context = await (browser as Browser).newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl);
    expect(await page.textContent("#app-name")).toBe("Browser Client");
    expect(await page.textContent("#scopes")).toContain("write");

    // A wrong password first: the page comes back with the error and the form.
    await page.fill("#username", "browser@example.com");
    await page.fill("#password", "not-the-password");
    await page.click("#approve");
    await page.waitForSelector("[role=alert]");
    expect(await page.textContent("[role=alert]")).toContain("Invalid");

    await page.fill("#password", password);
    await Promise.all([page.waitForURL(/\/client\/callback\?/), page.click("#approve")]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).toBe("state-123");
    const code = landed.searchParams.get("code") as string;
    expect(code).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await page.textContent("body")).toContain(`code=${code}`);
    await context.close();

    const exchanged = await fetch(`${server.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: app.client_id,
        client_secret: app.client_secret,
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
      }),
    });
    expect(exchanged.status).toBe(200);
    const token = (await exchanged.json()) as { access_token: string; scope: string };
    expect(token.scope).toBe("read write");
    const me = await fetch(`${server.url}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { id: string }).id).toBe(account.id);
  });
});
