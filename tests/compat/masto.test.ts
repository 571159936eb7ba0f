/**
 * masto.js as a real client, over real HTTP: a user made the way
 * `pnpm kith accounts create` makes one gets a token by the password grant
 * and reads its own account.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import type { TestKith } from "@kith/core/testing";
import { createOAuthAPIClient, createRestAPIClient } from "masto";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("masto.js", (engine) => {
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

  it("registers an app, gets a token by the password grant, and reads verify_credentials", async () => {
    const { account, password } = await kith.services.accounts.createLocalAccount({
      username: "alice",
      email: "alice@example.com",
      confirmed: true,
    });
    const anonymous = createRestAPIClient({ url: server.url });
    const app = await anonymous.v1.apps.create({
      clientName: "masto compat",
      redirectUris: "urn:ietf:wg:oauth:2.0:oob",
      scopes: "read write follow push",
    });
    expect(app.clientId).toEqual(expect.any(String));
    expect(app.clientSecret).toEqual(expect.any(String));

    const oauth = createOAuthAPIClient({ url: server.url });
    const token = await oauth.token.create({
      grantType: "password",
      clientId: app.clientId as string,
      clientSecret: app.clientSecret as string,
      redirectUri: "urn:ietf:wg:oauth:2.0:oob",
      username: "alice@example.com",
      password,
      scope: "read write follow push",
    });
    expect(token.accessToken).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token.tokenType).toBe("Bearer");
    expect(token.scope).toBe("read write follow push");

    const client = createRestAPIClient({ url: server.url, accessToken: token.accessToken });
    const me = await client.v1.accounts.verifyCredentials();
    expect(me.id).toBe(account.id);
    expect(me.username).toBe("alice");
    const verifiedApp = await client.v1.apps.verifyCredentials();
    expect(verifiedApp.name).toBe("masto compat");

    await oauth.revoke({ clientId: app.clientId as string, clientSecret: app.clientSecret as string, token: token.accessToken });
    await expect(client.v1.accounts.verifyCredentials()).rejects.toMatchObject({ statusCode: 401 });
  });
});
