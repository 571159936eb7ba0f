import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// Canary of the V8 flags the server sets at run time (pretenuring.ts, settle-memory.ts; docs/optimisations.md).
// `v8.setFlagsFromString` ignores a flag V8 does not know without a word, so a Node release whose V8 dropped or
// renamed one would leave the server running without it unnoticed: here it fails instead. What settleMemory does with
// its flag is checked by settle-memory.test.ts. Turn them off with KITH_OPTIMISATIONS_OFF=v8-no-pretenuring,v8-settle-memory.

/** The flags this Node's V8 knows, as `node --v8-options` lists them. */
function v8Flags(): Set<string> {
  const listing = execFileSync(process.execPath, ["--v8-options"], { encoding: "utf8" });
  return new Set([...listing.matchAll(/^\s+--([a-z0-9-]+)/gm)].map((match) => match[1] as string));
}

describe("the V8 flags the server sets", () => {
  const flags = v8Flags();

  it("are known to this Node's V8", () => {
    expect(flags.size).toBeGreaterThan(100);
    expect(flags.has("allocation-site-pretenuring"), "--allocation-site-pretenuring (pretenuring.ts)").toBe(true);
    expect(flags.has("expose-gc"), "--expose-gc (settle-memory.ts)").toBe(true);
  });
});
