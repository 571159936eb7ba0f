import { describe, expect, it } from "vitest";
import { defineModule } from "../module.js";
import { GroupAppCatalog } from "./group-apps-catalog.js";

const offering = (name: string, id: string) =>
  defineModule({ name, groupApps: [{ id, name: id, description: `${id} of ${name}`, defaultInstalled: true }], services: () => ({}) });

describe("the group application catalog", () => {
  it("lists the modules' applications, then the planned ones no module offers, unavailable", () => {
    const catalog = new GroupAppCatalog([offering("cal", "calendar")]);
    expect(catalog.get("calendar")).toMatchObject({ module: "cal", available: true, defaultInstalled: true });
    expect(catalog.get("data")).toMatchObject({ module: null, available: false, defaultInstalled: false });
    expect(catalog.all().map((app) => app.id)).toEqual(["calendar", "data", "ai-agents"]);
  });

  it("refuses an application two modules declare, and an id not [a-z][a-z0-9-]*", () => {
    expect(() => new GroupAppCatalog([offering("one", "notes"), offering("two", "notes")])).toThrow(/declared by modules one and two/);
    expect(() => new GroupAppCatalog([offering("one", "Notes")])).toThrow(/not \[a-z\]/);
  });
});
