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
