// Builds what `pnpm bench` runs, only where a package's build is older than
// its sources: the full workspace build takes over a minute on a small
// machine, most of it for type declarations the benchmark does not use, and
// a rerun on unchanged sources should not pay for it again.

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const SHARED = [join(ROOT, "tsup.shared.ts"), join(ROOT, "pnpm-lock.yaml")];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function oldestOutput(dist) {
  if (!existsSync(dist)) return 0;
  const outputs = readdirSync(dist).filter((name) => name.endsWith(".js"));
  return outputs.length ? Math.min(...outputs.map((name) => statSync(join(dist, name)).mtimeMs)) : 0;
}

const packages = [...readdirSync(join(ROOT, "packages")).map((name) => join(ROOT, "packages", name)), join(ROOT, "apps/server")];
const shared = Math.max(...SHARED.map(newest));
const stale = packages.filter((dir) => {
  const sources = Math.max(shared, newest(join(dir, "src")), newest(join(dir, "package.json")), newest(join(dir, "tsup.config.ts")));
  return oldestOutput(join(dir, "dist")) < sources;
});
if (stale.length === 0) {
  process.stderr.write("Build is up to date.\n");
} else {
  process.stderr.write(`Building ${stale.map((dir) => dir.slice(ROOT.length)).join(", ")}\n`);
  const filters = stale.flatMap((dir) => ["--filter", `./${dir.slice(ROOT.length)}`]);
  const result = spawnSync("pnpm", ["-s", ...filters, "run", "build"], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
