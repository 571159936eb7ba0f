import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";
import { OPTIMISATIONS } from "./optimisations.js";

describe("KITH_OPTIMISATIONS_OFF", () => {
  it("leaves every speed-up on when unset", () => {
    const { optimisations } = loadConfig({});
    expect(optimisations?.turnedOff).toEqual([]);
    expect(optimisations?.core()).toEqual({ inboxFront: true, compactActivities: true, batchDelivery: true, kvMemory: true });
    expect(optimisations?.postgres()).toEqual({ beginWithFirstStatement: true, pipelining: true });
  });

  it("turns off the speed-ups it names, and no other", () => {
    const { optimisations } = loadConfig({ KITH_OPTIMISATIONS_OFF: "inbox-front, pg-pipelining" });
    expect(optimisations?.core()).toMatchObject({ inboxFront: false, compactActivities: true });
    expect(optimisations?.postgres()).toEqual({ beginWithFirstStatement: true, pipelining: false });
    expect(optimisations?.isOn("v8-no-pretenuring")).toBe(true);
  });

  it("turns every speed-up off with all", () => {
    const { optimisations } = loadConfig({ KITH_OPTIMISATIONS_OFF: "all" });
    expect([...(optimisations?.turnedOff ?? [])].sort()).toEqual(Object.keys(OPTIMISATIONS).sort());
    expect(Object.values(optimisations?.core() ?? {})).toEqual([false, false, false, false]);
  });

  it("refuses a name it does not know, naming the variable", () => {
    expect(() => loadConfig({ KITH_OPTIMISATIONS_OFF: "inbox-front,warp-drive" })).toThrow(ConfigError);
    expect(() => loadConfig({ KITH_OPTIMISATIONS_OFF: "warp-drive" })).toThrow(/KITH_OPTIMISATIONS_OFF names warp-drive/);
  });
});
