import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Example, startExample } from "./app.ts";

describe("embedding Kith in a plain node:http server", () => {
  let example: Example | undefined;
  afterEach(() => example?.close());

  it("serves the host's own route and Kith's API side by side", async () => {
    example = await startExample();
    const hello = await fetch(`${example.url}/hello`);
    expect(await hello.text()).toBe("Hello from the host application\n");
    const instance = await fetch(`${example.url}/api/v2/instance`);
    expect(instance.status).toBe(200);
    expect((await instance.json()).domain).toBe(new URL(example.url).host);
  });

  it("answers malformed requests with a 4xx and keeps serving", async () => {
    example = await startExample();
    const { port } = new URL(example.url);
    for (const head of [
      "GET /api/v2/instance HTTP/1.1\r\nHost: bad host!\r\nConnection: close\r\n\r\n",
      "GET /api/v2/instance HTTP/1.1\r\nHost: [::1\r\nConnection: close\r\n\r\n",
      "TRACE /api/v2/instance HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    ]) {
      const status = await rawStatus(Number(port), head);
      expect(status, head).toBeGreaterThanOrEqual(400);
      expect(status, head).toBeLessThan(500);
    }
    expect((await fetch(`${example.url}/api/v2/instance`)).status).toBe(200);
  });

  it("sees over HTTP the account it created by calling a service directly", async () => {
    example = await startExample();
    const response = await fetch(`${example.url}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${example.demoToken}` },
    });
    expect(response.status).toBe(200);
    expect((await response.json()).username).toBe("demo");
    const anonymous = await fetch(`${example.url}/api/v1/accounts/verify_credentials`);
    expect(anonymous.status).toBe(401);
  });
});

/** Sends a request as written and reads the status of the answer. */
function rawStatus(port: number, head: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0)));
  });
}
