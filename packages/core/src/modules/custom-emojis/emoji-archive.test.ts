import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readTarGz } from "./emoji-archive.js";

describe("readTarGz", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kith-tar-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function tar(format: string): Uint8Array {
    const content = join(dir, "in");
    const deep = join(content, "a".repeat(60), "b".repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(content, "small.png"), "one");
    writeFileSync(join(deep, `${"c".repeat(40)}.gif`), "two");
    const out = join(dir, `${format}.tar.gz`);
    execFileSync("tar", [`--format=${format}`, "-czf", out, "-C", content, "."]);
    return new Uint8Array(readFileSync(out));
  }

  it("reads the regular files of the system tar's archives, long paths included (GNU, PAX)", () => {
    for (const format of ["gnu", "pax", "ustar"]) {
      const files = readTarGz(tar(format)).map((file) => [file.path.replace(/^\.\//, ""), new TextDecoder().decode(file.bytes)]);
      expect(files.sort(), format).toEqual([
        [`${"a".repeat(60)}/${"b".repeat(60)}/${"c".repeat(40)}.gif`, "two"],
        ["small.png", "one"],
      ]);
    }
  });

  it("refuses what is not a gzip-compressed tar archive", () => {
    expect(() => readTarGz(new TextEncoder().encode("plain"))).toThrow(/gzip/);
    expect(() => readTarGz(new Uint8Array(gzipSync(Buffer.from("x".repeat(1024)))))).toThrow(/tar/);
  });
});
