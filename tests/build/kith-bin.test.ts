import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

describe("the kith command on PATH", () => {
  let scratch: string | undefined;
  afterEach(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("is linked by scripts/install-bin and runs this checkout from any directory", { timeout: 300_000 }, () => {
    scratch = mkdtempSync(join(tmpdir(), "kith-bin-"));
    const bin = join(scratch, "bin");
    const install = spawnSync("bash", [join(ROOT, "scripts/install-bin"), bin], { encoding: "utf8" });
    expect(install.status, install.stderr).toBe(0);
    expect(install.stdout).toContain(`linked ${bin}/kith`);
    const { version } = JSON.parse(readFileSync(join(ROOT, "apps/server/package.json"), "utf8")) as { version: string };
    const run = spawnSync("kith", ["--version"], {
      cwd: scratch,
      encoding: "utf8",
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim().split("\n").at(-1)).toBe(version);
  });
});
