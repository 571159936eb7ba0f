import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { assertSupportedNode } from "./supported-node.js";

/** A Node older than the supported ones, as Debian's package of Node 20 is. */
const OLD_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => {
  if (!existsSync(path)) return false;
  const major = Number(spawnSync(path, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout.trim());
  return major > 0 && major < 22;
});

describe("the supported Node versions", () => {
  it("refuses an older Node in one line, and lets this one through", () => {
    expect(() => assertSupportedNode("20.19.2")).toThrow("@kith/storage-sqlite needs Node.js 22 or newer; this is Node.js 20.19.2");
    expect(() => assertSupportedNode("22.0.0")).not.toThrow();
    expect(() => assertSupportedNode()).not.toThrow();
  });

  it.skipIf(!OLD_NODE)("fails with one clear line, not a crash, when an older Node opens a database", () => {
    const entry = resolve(import.meta.dirname, "../dist/index.js");
    const script = `import(${JSON.stringify(entry)}).then((m) => m.createSqliteStorage({ filename: ":memory:" })).catch((e) => { console.error(e.message); process.exit(1); });`;
    const result = spawnSync(OLD_NODE ?? "node", ["-e", script], { encoding: "utf8" });
    expect(result.signal).toBeNull();
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(/^@kith\/storage-sqlite needs Node\.js 22 or newer; this is Node\.js 2\d\.\d+\.\d+$/);
  });
});
