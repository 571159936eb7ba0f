import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeBlobStoreContract } from "../testing/blob-contract.js";
import { LocalDirectoryBlobStore } from "./local-directory-blob-store.js";

async function tempDirectory(): Promise<string> {
  return mkdtemp(join(tmpdir(), "kith-blobs-"));
}

describeBlobStoreContract("local directory", async () => {
  const directory = await tempDirectory();
  return { store: new LocalDirectoryBlobStore({ directory }), close: () => rm(directory, { recursive: true, force: true }) };
});

describe("LocalDirectoryBlobStore", () => {
  let root: string;
  let directory: string;

  beforeEach(async () => {
    root = await tempDirectory();
    // The store lives one level down so the tests can see that nothing lands beside it.
    directory = join(root, "blobs");
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("stores objects as plain files at their key, so a web server can serve the tree", async () => {
    const store = new LocalDirectoryBlobStore({ directory });
    await store.put("media/ab/cd/file.png", new Uint8Array([1, 2, 3]), { contentType: "image/png" });
    expect((await stat(join(directory, "media", "ab", "cd", "file.png"))).size).toBe(3);
  });

  it("writes nothing outside its directory for a refused key", async () => {
    const store = new LocalDirectoryBlobStore({ directory });
    await expect(store.put("../escaped", new Uint8Array([1]), { contentType: "text/plain" })).rejects.toThrow(/key/);
    expect(await readdir(root)).toEqual([]);
  });

  it("leaves no temp files behind after a successful or a failed put", async () => {
    const store = new LocalDirectoryBlobStore({ directory });
    await store.put("ok.txt", new Uint8Array([1]), { contentType: "text/plain" });
    const failing = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([1, 2]));
        controller.error(new Error("interrupted"));
      },
    });
    await expect(store.put("bad.txt", failing, { contentType: "text/plain" })).rejects.toThrow("interrupted");
    expect(await readdir(join(directory, ".kith-tmp"))).toEqual([]);
  });

  it("keeps the content type across store instances (it is on disk, not in memory)", async () => {
    await new LocalDirectoryBlobStore({ directory }).put("doc.pdf", new Uint8Array([37, 80]), { contentType: "application/pdf" });
    const blob = await new LocalDirectoryBlobStore({ directory }).get("doc.pdf");
    expect(blob?.contentType).toBe("application/pdf");
    expect(blob?.size).toBe(2);
    await blob?.body.cancel();
  });

  it("serves a file without a sidecar as opaque bytes", async () => {
    const store = new LocalDirectoryBlobStore({ directory });
    await store.put("placeholder", new Uint8Array(0), { contentType: "text/plain" });
    await writeFile(join(directory, "by-hand.bin"), new Uint8Array([9, 9]));
    const blob = await store.get("by-hand.bin");
    expect(blob?.contentType).toBe("application/octet-stream");
    expect(new Uint8Array(await new Response(blob?.body).arrayBuffer())).toEqual(new Uint8Array([9, 9]));
  });

  it("a reader that opened an object keeps its bytes when the object is overwritten or deleted", async () => {
    const store = new LocalDirectoryBlobStore({ directory });
    await store.put("race.txt", new TextEncoder().encode("first"), { contentType: "text/plain" });
    const blob = await store.get("race.txt");
    await store.put("race.txt", new TextEncoder().encode("second version"), { contentType: "text/plain" });
    await store.delete("race.txt");
    expect(blob?.size).toBe(5);
    expect(await new Response(blob?.body).text()).toBe("first");
  });

  it("gives a public URL under publicBaseUrl, and none without it", () => {
    expect(new LocalDirectoryBlobStore({ directory }).publicUrl("media/a.png")).toBeNull();
    const served = new LocalDirectoryBlobStore({ directory, publicBaseUrl: "https://files.example/kith/" });
    expect(served.publicUrl("media/ab/a.png")).toBe("https://files.example/kith/media/ab/a.png");
    expect(() => served.publicUrl("../a.png")).toThrow(/key/);
  });
});
