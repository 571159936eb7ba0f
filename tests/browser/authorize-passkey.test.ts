/**
 * Passkey sign-in on the authorize page, in a real browser: Debian's
 * Chromium driven by playwright-core, with Chromium's virtual authenticator
 * (DevTools' WebAuthn domain) standing in for a platform authenticator. The
 * passkey is registered by the browser through begin-register and
 * finish-register, then the page's own script signs in with it. Skipped
 * with a notice without Chromium, outside CI.
 *
 * On SQLite only: what these add is the page in a browser; the same flows'
 * storage runs on both engines in tests/api (oauth, passkeys-authorize).
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import type { TestKith, TestUser } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { type Browser, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlite } from "../support/engines.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-sync"];
const available = existsSync(CHROMIUM);
const inCi = process.env.CI === "true";
if (!available && !inCi) console.warn(`NOTICE: ${CHROMIUM} is missing, so the browser test of passkeys on the authorize page is skipped.`);

/** In the page: begin-register, navigator.credentials.create, finish-register with the key/value entries. */
async function registerInBrowser(page: Page, token: string): Promise<{ status: number; body: unknown }> {
  return page.evaluate(async (bearer) => {
    const toB64 = (buffer: ArrayBuffer): string => {
      let text = "";
      for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
      return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    };
    const fromB64 = (value: string): Uint8Array<ArrayBuffer> => {
      const base64 = value.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((value.length + 3) % 4);
      return Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    };
    const headers = { authorization: `Bearer ${bearer}` };
    const options = await (await fetch("/api/v1/passkeys/begin-register", { headers })).json();
    const credential = (await navigator.credentials.create({
      publicKey: {
        challenge: fromB64(options.challenge),
        rp: options.rp,
        user: { ...options.user, id: fromB64(options.user.id) },
        pubKeyCredParams: options.pubKeyCredParams,
        timeout: options.timeout,
        attestation: options.attestation,
        authenticatorSelection: options.authenticatorSelection,
        excludeCredentials: options.excludeCredentials.map((item: { id: string; type: "public-key" }) => ({ type: item.type, id: fromB64(item.id) })),
      },
    })) as PublicKeyCredential;
    const response = credential.response as AuthenticatorAttestationResponse;
    const json = {
      id: credential.id,
      rawId: toB64(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: toB64(response.clientDataJSON),
        attestationObject: toB64(response.attestationObject),
        transports: response.getTransports(),
      },
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment,
    };
    const finished = await fetch("/api/v1/passkeys/finish-register", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(Object.entries(json).map(([key, value]) => ({ key, value }))),
    });
    return { status: finished.status, body: await finished.json() };
  }, token);
}

describe.skipIf(!available && !inCi)("passkey sign-in on the authorize page in Chromium", () => {
  let kith: TestKith | undefined;
  let server: NodeServer;
  let browser: Browser | undefined;
  let origin: string;
  let alice: TestUser;

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing; CI must install Debian's chromium package`);
    server = await startNodeServer({
      handler: async (request, info) => {
        const url = new URL(request.url);
        if (url.pathname === "/client/callback") {
          return new Response(`code=${url.searchParams.get("code") ?? ""}`, { headers: { "content-type": "text/plain" } });
        }
        if (!kith) return new Response("starting", { status: 503 });
        return kith.fetch(request, info);
      },
    });
    // WebAuthn needs a domain as RP ID (an IP address is refused): localhost is one, and a secure context over http.
    origin = `http://localhost:${new URL(server.url).port}`;
    kith = await sqlite.testKith({ config: { origin } });
    alice = await kith.createUser("alice");
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await kith?.close();
  });

  it("registers a passkey from the browser, then the page's button signs in with it and authorizes the app", async () => {
    const redirectUri = `${origin}/client/callback`;
    const registered = await fetch(`${origin}/api/v1/apps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Passkey Client", redirect_uris: redirectUri, scopes: "read" }),
    });
    const app = (await registered.json()) as { client_id: string; client_secret: string };
    const verifier = randomBytes(32).toString("base64url");
    const authorizeUrl = `${origin}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: redirectUri,
      scope: "read",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    })}`;

    const context = await (browser as Browser).newContext();
    const page = await context.newPage();
    const devtools = await context.newCDPSession(page);
    await devtools.send("WebAuthn.enable");
    const { authenticatorId } = await devtools.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        // Not discoverable: for a name without passkeys (an empty allow list) it has nothing to offer.
        hasResidentKey: false,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    await page.goto(authorizeUrl);

    const made = await registerInBrowser(page, alice.token);
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ accountId: alice.account.id, publicKeyAlg: -7 });

    // A username with no passkey: the browser has nothing to offer, and the page says so instead of leaving.
    await page.fill("#username", "nobody");
    await page.click("#passkey");
    await page.waitForFunction(() => (document.getElementById("passkey-status")?.textContent ?? "").includes("did not work"), null, {
      timeout: 15_000,
    });
    expect(page.url()).toBe(authorizeUrl);

    await page.fill("#username", "alice");
    await Promise.all([page.waitForURL(/\/client\/callback\?/, { timeout: 15_000 }), page.click("#passkey")]);
    const code = new URL(page.url()).searchParams.get("code") ?? "";
    expect(code).not.toBe("");

    const { credentials } = await devtools.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    const stored = (await kith?.services.passkeys.list(alice.account.id)) ?? [];
    expect(stored[0]?.signCount).toBe(credentials[0]?.signCount);
    await context.close();

    const exchanged = await fetch(`${origin}/oauth/token`, {
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
    const { access_token } = (await exchanged.json()) as { access_token: string };
    const me = await fetch(`${origin}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(((await me.json()) as { id: string }).id).toBe(alice.account.id);
  }, 60_000);
});
