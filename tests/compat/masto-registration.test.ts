/**
 * masto.js signs someone up over real HTTP, as a Mastodon app does: an app,
 * an app token from client_credentials, `v1.accounts.create`, then the
 * confirmation link and `verifyCredentials` with the token it was given.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith } from "@kith/core/testing";
import { createOAuthAPIClient, createRestAPIClient } from "masto";
import { confirmationLink, pathOf } from "../support/registration.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js sign-up", (engine) => {
  let kith: TestKith;
  let server: NodeServer;

  beforeAll(async () => {
    kith = await engine.testKith();
    server = await startNodeServer({ handler: (request, info) => kith.fetch(request, info) });
  });
  afterAll(async () => {
    await server?.close();
    await kith?.close();
  });

  it("creates an account with an app token, and shows per-field errors as Mastodon sends them", async () => {
    const anonymous = createRestAPIClient({ url: server.url });
    const app = await anonymous.v1.apps.create({
      clientName: "masto sign-up",
      redirectUris: "urn:ietf:wg:oauth:2.0:oob",
      scopes: "read write",
    });
    const oauth = createOAuthAPIClient({ url: server.url });
    const appToken = await oauth.token.create({
      grantType: "client_credentials",
      clientId: app.clientId as string,
      clientSecret: app.clientSecret as string,
      redirectUri: "urn:ietf:wg:oauth:2.0:oob",
      scope: "read write",
    });
    const asApp = createRestAPIClient({ url: server.url, accessToken: appToken.accessToken });

    const token = await asApp.v1.accounts.create({
      username: "newcomer",
      email: "newcomer@example.com",
      password: "correct horse battery",
      agreement: true,
      locale: "en",
    });
    expect(token.accessToken).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token.tokenType).toBe("Bearer");
    expect(token.scope).toBe("read write");

    const asUser = createRestAPIClient({ url: server.url, accessToken: token.accessToken });
    await expect(asUser.v1.accounts.verifyCredentials()).rejects.toMatchObject({
      statusCode: 403,
      message: "Your login is missing a confirmed e-mail address",
    });
    const confirmed = await fetch(new URL(pathOf(confirmationLink(kith, "newcomer@example.com")), server.url));
    expect(confirmed.status).toBe(200);
    const me = await asUser.v1.accounts.verifyCredentials();
    expect(me.username).toBe("newcomer");

    await expect(
      asApp.v1.accounts.create({ username: "newcomer", email: "not an address", password: "short", agreement: false, locale: "en" }),
    ).rejects.toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^Validation failed: /),
      details: {
        username: [{ error: "ERR_TAKEN", description: "is taken" }],
        email: [{ error: "ERR_INVALID", description: "is invalid" }],
        password: [{ error: "ERR_TOO_SHORT", description: expect.any(String) }],
        agreement: [{ error: "ERR_ACCEPTED", description: "must be accepted" }],
      },
    });
  });
});
