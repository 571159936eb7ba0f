import { describe, expect, it } from "vitest";
import { BUFFERED_BODY, bufferedResponse } from "./buffered-response.js";

const PAGE = JSON.stringify([{ id: "st_1", content: "<p>caf\u00e9 \u{1f600}</p>" }]);
const init = () => ({ status: 201, statusText: "Made", headers: { "content-type": "application/json; charset=utf-8", link: "<x>" } });
const bufferedOf = (response: Response): unknown => (response as unknown as Record<symbol, unknown>)[BUFFERED_BODY];

describe("bufferedResponse", () => {
  it("reads like the Response built from the same body, in every way a body is read", async () => {
    const readers: ((response: Response) => Promise<unknown>)[] = [
      (r) => r.text(),
      (r) => r.json(),
      async (r) => [...new Uint8Array(await r.arrayBuffer())],
      async (r) => [...(await r.bytes())],
      async (r) => (await r.blob()).text(),
      (r) => new Response(r.body).text(),
    ];
    for (const read of readers) {
      const ours = bufferedResponse(PAGE, init());
      const theirs = new Response(PAGE, init());
      expect(await read(ours)).toEqual(await read(theirs));
      expect(ours.bodyUsed).toBe(theirs.bodyUsed);
    }
  });

  it("has the status, headers and type of that Response", () => {
    const ours = bufferedResponse(PAGE, init());
    const theirs = new Response(PAGE, init());
    expect([ours.status, ours.statusText, ours.ok, ours.type, ours.redirected]).toEqual([
      theirs.status,
      theirs.statusText,
      theirs.ok,
      theirs.type,
      theirs.redirected,
    ]);
    expect([...ours.headers]).toEqual([...theirs.headers]);
    expect(ours).toBeInstanceOf(Response);
  });

  it("gives a text body Response's default content type, and bytes none, unless one is named", () => {
    expect(bufferedResponse("hi").headers.get("content-type")).toBe(new Response("hi").headers.get("content-type"));
    expect(bufferedResponse(new Uint8Array([1])).headers.get("content-type")).toBeNull();
    expect(bufferedResponse("hi", { headers: { "Content-Type": "text/html" } }).headers.get("content-type")).toBe("text/html");
  });

  it("holds its content for a host until the body is read another way", async () => {
    const response = bufferedResponse(PAGE, init());
    expect(bufferedOf(response)).toBe(PAGE);
    await response.text();
    expect(bufferedOf(response)).toBeUndefined();
    const streamed = bufferedResponse(PAGE, init());
    expect(streamed.body).not.toBeNull();
    expect(bufferedOf(streamed)).toBeUndefined();
  });

  it("refuses a second read, as a Response does", async () => {
    const response = bufferedResponse(PAGE, init());
    await response.text();
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
  });

  it("clones before and after its body was built, each clone with the whole body", async () => {
    const response = bufferedResponse(PAGE, init());
    const early = response.clone();
    expect(bufferedOf(early)).toBe(PAGE);
    expect(response.body).not.toBeNull();
    const late = response.clone();
    expect(await early.text()).toBe(PAGE);
    expect(await late.text()).toBe(PAGE);
    expect(await response.text()).toBe(PAGE);
    expect(early.headers.get("link")).toBe("<x>");
  });

  it("takes pieces of JSON text, held for a host as they are and read as the Response of their UTF-8", async () => {
    const pieces = ['[{"id":"st_1","content":', new TextEncoder().encode('"<p>caf\u00e9 \u{1f600}</p>"'), "}]"];
    const response = bufferedResponse(pieces, init());
    expect(bufferedOf(response)).toBe(pieces);
    expect(await response.clone().text()).toBe(PAGE);
    expect([...(await response.bytes())]).toEqual([...new TextEncoder().encode(PAGE)]);
    expect(bufferedOf(response)).toBeUndefined();
    expect(bufferedResponse(pieces).headers.get("content-type")).toBeNull();
  });

  it("refuses a body with a status that takes none, as a Response does", () => {
    expect(() => bufferedResponse("x", { status: 204 })).toThrow(TypeError);
  });
});
