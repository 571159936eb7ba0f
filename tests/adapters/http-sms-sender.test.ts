import { type IncomingHttpHeaders, type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { HttpSmsSender, createKith, type Kith } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { afterEach, describe, expect, it } from "vitest";

interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

let server: Server | null = null;
let kith: Kith | null = null;

afterEach(async () => {
  await kith?.close();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = kith = null;
});

/** An SMS provider on a loopback port: keeps each request and answers `status` (or never answers, with null). */
async function provider(status: number | null = 202): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ method: request.method ?? "", path: request.url ?? "", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (status === null) return;
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify({ echo: Buffer.concat(chunks).toString("utf8") }));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/messages`, received };
}

describe("the HTTP SMS sender against an HTTP server on a loopback port", () => {
  it("POSTs each message as JSON with the bearer token", async () => {
    const { url, received } = await provider();
    await new HttpSmsSender({ url, token: "provider-token" }).send({ to: "+14155552671", body: "Your code: 123456" });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: "POST", path: "/messages" });
    expect(received[0]?.headers.authorization).toBe("Bearer provider-token");
    expect(received[0]?.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(received[0]?.body ?? "null")).toEqual({ to: "+14155552671", body: "Your code: 123456" });
  });

  it("fails the send on an answer that is not 2xx, without the provider's text (which echoes the code)", async () => {
    const { url } = await provider(503);
    const sending = new HttpSmsSender({ url, token: "t" }).send({ to: "+14155552671", body: "Your code: 123456" });
    await expect(sending).rejects.toThrow("SMS provider answered 503");
    await expect(sending).rejects.not.toThrow(/123456/);
  });

  it("gives up on a provider that does not answer", async () => {
    const { url, received } = await provider(null);
    await expect(new HttpSmsSender({ url, token: "t", timeoutMs: 200 }).send({ to: "+14155552671", body: "x" })).rejects.toThrow();
    expect(received).toHaveLength(1);
  });

  it("answers 503 when the code cannot be texted, never a 500", async () => {
    const { url } = await provider(500);
    const ready = await createKith({
      storage: await createSqliteStorage({ filename: ":memory:" }),
      sms: new HttpSmsSender({ url, token: "provider-token" }),
      config: { origin: "https://kith.test", passwordHashCost: 1024 },
    });
    kith = ready;
    const { account } = await ready.services.accounts.createLocalAccount({ username: "frank", email: "frank@kith.test", confirmed: true });
    const { accessToken } = await ready.services.sessions.issue({ accountId: account.id, scopes: ["read", "write"] });
    const response = await ready.fetch(
      new Request("https://kith.test/api/v1/accounts/login_methods/phone", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
        body: JSON.stringify({ phone: "+14155552671" }),
      }),
      { clientIp: "127.0.0.1" },
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: "server.unavailable", error: expect.stringMatching(/could not be texted/) });
  });

  it("carries a login-method code from Kith's SMS port to the provider, and the code adds the phone", async () => {
    const { url, received } = await provider();
    kith = await createKith({
      storage: await createSqliteStorage({ filename: ":memory:" }),
      sms: new HttpSmsSender({ url, token: "provider-token" }),
      config: { origin: "https://kith.test", passwordHashCost: 1024 },
    });
    const { account } = await kith.services.accounts.createLocalAccount({ username: "dave", email: "dave@kith.test", confirmed: true, role: "User" });
    const { accessToken } = await kith.services.sessions.issue({ accountId: account.id, scopes: ["read", "write"] });
    const post = (path: string, json: unknown) =>
      (kith as Kith).fetch(
        new Request(`https://kith.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${accessToken}` },
          body: JSON.stringify(json),
        }),
        { clientIp: "127.0.0.1" },
      );
    expect((await post("/api/v1/accounts/login_methods/phone", { phone: "+44 20 7946 0958" })).status).toBe(200);
    const sms = JSON.parse(received.at(-1)?.body ?? "null") as { to: string; body: string };
    expect(sms.to).toBe("+442079460958");
    const code = /(\d{6})/.exec(sms.body)?.[1] ?? "";
    const verified = await post("/api/v1/accounts/login_methods/phone/verify", { code });
    expect(verified.status).toBe(200);
    expect(await verified.json()).toContainEqual({ type: "phone", identifier: "+442079460958", verified: true });
  });
});
