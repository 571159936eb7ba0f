import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";

/**
 * The layer rules of `.dependency-cruiser.cjs`, which `pnpm lint` runs: they must refuse an import that crosses a
 * layer the wrong way, and let the allowed directions through. Each case writes a small tree shaped like
 * packages/core/src into a temporary directory and runs the checker on it with the real configuration.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
const cli = join(root, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs");
const config = join(root, ".dependency-cruiser.cjs");
const require = createRequire(import.meta.url);

interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

interface CheckResult {
  readonly status: number | null;
  readonly violations: readonly Violation[];
}

/** Runs the checker as `pnpm lint` does, from `cwd`, over its packages/core/src; reads the errors it prints. */
function check(cwd: string): CheckResult {
  const run = spawnSync(process.execPath, [cli, "--config", config, "packages/core/src"], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  if (run.error) throw run.error;
  const text = stripVTControlCharacters(`${run.stdout}${run.stderr}`);
  const violations = [...text.matchAll(/^\s*error (\S+): (\S+) → (\S*)/gm)].map(([, rule = "", from = "", to = ""]) => ({
    rule,
    from: from.replace("packages/core/src/", ""),
    to: to.replace("packages/core/src/", ""),
  }));
  return { status: run.status, violations };
}

const trees: string[] = [];

/** A temporary tree with `files` (paths under packages/core/src) and a tsconfig as core's. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "kith-layers-"));
  trees.push(dir);
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write(
    "packages/core/tsconfig.json",
    JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true }, include: ["src"] }),
  );
  for (const [path, text] of Object.entries(files)) write(`packages/core/src/${path}`, text);
  return dir;
}

afterEach(() => {
  for (const dir of trees.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Files every case starts from: one of each layer, importing only downwards. */
const lawful: Record<string, string> = {
  "domain/ids.ts": "export type Id = string;\n",
  "ports/clock.ts": 'import type { Id } from "../domain/ids.js";\nexport interface Clock { now(id: Id): Date }\n',
  "platform/http/route.ts": 'import type { Clock } from "../../ports/clock.js";\nexport type Route = { clock: Clock };\n',
  "mastodon/entities/status.ts": 'import type { Route } from "../../platform/http/route.js";\nexport type StatusJson = { route: Route };\n',
  "modules/timelines/timeline-service.ts":
    'import type { StatusJson } from "../../mastodon/entities/status.js";\nexport class Timeline { last?: StatusJson }\n',
  "modules/statuses/statuses-store.ts": 'import type { Clock } from "../../ports/clock.js";\nexport type StatusRow = { clock: Clock };\n',
  "modules/polls/internal.ts": "export const pollLimit = 4;\n",
  "modules/polls/index.ts": 'export { pollLimit } from "./internal.js";\n',
  "modules/timelines/routes.ts": "export const routes = [];\n",
  "modules/votes/routes.ts": 'import { pollLimit } from "../polls/index.js";\nexport const limit = pollLimit;\n',
};

describe("the layer rules run by pnpm lint", () => {
  it("let imports that point down the layers through", () => {
    const result = check(tree(lawful));
    expect(result.violations).toEqual([]);
    expect(result.status).toBe(0);
  });

  it.each([
    ["a port importing a store", "ports/storage.ts", 'import type { StatusRow } from "../modules/statuses/statuses-store.js";\nexport type S = StatusRow;\n', "ports-import-only-ports-and-domain", "modules/statuses/statuses-store.ts"],
    ["a port importing the platform", "ports/queue.ts", 'import type { Route } from "../platform/http/route.js";\nexport type Q = Route;\n', "ports-import-only-ports-and-domain", "platform/http/route.ts"],
    ["the platform importing a service", "platform/http/fetch-handler.ts", 'import type { Timeline } from "../../modules/timelines/timeline-service.js";\nexport type H = Timeline;\n', "platform-imports-no-feature", "modules/timelines/timeline-service.ts"],
    ["the platform importing a Mastodon entity", "platform/http/reply.ts", 'import type { StatusJson } from "../../mastodon/entities/status.js";\nexport type R = StatusJson;\n', "platform-imports-no-feature", "mastodon/entities/status.ts"],
    ["a Mastodon serializer importing a store", "mastodon/serializers/poll.ts", 'import type { StatusRow } from "../../modules/statuses/statuses-store.js";\nexport type S = StatusRow;\n', "mastodon-imports-no-feature", "modules/statuses/statuses-store.ts"],
    ["a module reaching past another's index", "modules/votes/tally.ts", 'import { pollLimit } from "../polls/internal.js";\nexport const t = pollLimit;\n', "modules-through-their-index", "modules/polls/internal.ts"],
    ["a store importing a service", "modules/timelines/timelines-store.ts", 'import type { Timeline } from "./timeline-service.js";\nexport type T = Timeline;\n', "stores-import-no-services", "modules/timelines/timeline-service.ts"],
    ["a service importing a route", "modules/timelines/home-feed.ts", 'import { routes } from "./routes.js";\nexport const r = routes;\n', "services-and-federation-import-no-routes", "modules/timelines/routes.ts"],
    ["the social core reaching past a module's index", "modules/statuses/status-service.ts", 'import { pollLimit } from "../polls/internal.js";\nexport const p = pollLimit;\n', "modules-used-through-their-index", "modules/polls/internal.ts"],
  ])("refuse %s", (_, file, text, rule, to) => {
    const result = check(tree({ ...lawful, [file]: text }));
    expect(result.violations).toContainEqual({ rule, from: file, to });
    expect(result.status).not.toBe(0);
  });

  it("refuse a cycle that leaves the platform and comes back", () => {
    const result = check(
      tree({
        ...lawful,
        "platform/federation/inbox.ts": 'import { wiring } from "../../modules/federation/wiring.js";\nexport const inbox = () => wiring;\n',
        "modules/federation/wiring.ts": 'import { inbox } from "../../platform/federation/inbox.js";\nexport const wiring = 1;\nexport const use = inbox;\n',
      }),
    );
    expect(result.violations.map((v) => v.rule)).toContain("no-cycle-across-layers");
    expect(result.status).not.toBe(0);
  });

  it("list only crossings that still happen, so the list can only get shorter", () => {
    const rules = (require(config) as { forbidden: ReadonlyArray<{ readonly comment?: string }> }).forbidden;
    const listed = rules.flatMap(({ comment = "" }) => {
      const match = /^Known crossing in (\S+): only (.+) may stay/.exec(comment);
      return match ? (match[2] ?? "").split(", ").map((to) => `${match[1]} -> ${to}`) : [];
    });
    const run = spawnSync(process.execPath, [cli, "--config", config, "--output-type", "json", "packages/core/src"], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    const graph = JSON.parse(run.stdout) as {
      modules: ReadonlyArray<{ source: string; dependencies: ReadonlyArray<{ resolved: string }> }>;
    };
    const present = new Set(
      graph.modules.flatMap(({ source, dependencies }) =>
        dependencies.map(({ resolved }) => `${source.replace("packages/core/src/", "")} -> ${resolved.replace("packages/core/src/", "")}`),
      ),
    );
    expect(listed.filter((crossing) => !present.has(crossing))).toEqual([]);
  });

  it("hold the core as it stands", () => {
    const result = check(root);
    expect(result.violations).toEqual([]);
    expect(result.status).toBe(0);
  });
});
