import { describe, expect, it } from "vitest";
import { defineErrorCodes, errorEntryOf } from "../domain/error-catalog.js";
import { KithError, isKithError, statusOf } from "../domain/errors.js";
import { defineIdKinds, isId, prefixOf } from "../domain/ids.js";
import { checkModuleOrder, composeModules, migrationsWithModules, routesOfModules } from "./composed-modules.js";
import type { ModuleContext } from "./module.js";
import { defineModule, moduleRoute } from "./module.js";
import { permission, publicAccess } from "../platform/http/access.js";
import { any } from "../domain/permissions.js";

const base = defineModule({ name: "base", services: () => ({ answer: 42 }) });
const dependent = defineModule({ name: "dependent", requires: [base], services: ({ use }) => ({ doubled: use(base).answer * 2 }) });

describe("composing modules", () => {
  it("refuses a module given twice, or before a module it requires", () => {
    expect(() => checkModuleOrder([base, dependent])).not.toThrow();
    expect(() => checkModuleOrder([dependent, base])).toThrow(/requires base, which must come before it/);
    expect(() => checkModuleOrder([dependent])).toThrow(/requires base/);
    expect(() => checkModuleOrder([base, base])).toThrow(/given twice/);
  });

  it("builds each module after the ones it requires, which it reaches through use", () => {
    const composed = composeModules([base, dependent], {} as Omit<ModuleContext, "use">);
    expect(composed.use(dependent)).toEqual({ doubled: 84 });
    const other = defineModule({ name: "other", services: () => 0 });
    expect(() => composed.use(other)).toThrow(/not composed/);
  });

  it("refuses a name that is not a lower-case word", () => {
    expect(() => defineModule({ name: "Bad Name", services: () => null })).toThrow(/not \[a-z\]/);
  });

  it("appends the modules' migrations to the core's, in module order", () => {
    const core = [{ name: "0001_core", tables: [] }];
    const first = { name: "sample_0001_things", addColumns: [] };
    const withMigrations = defineModule({ name: "with-migrations", migrations: [first], services: () => null });
    expect(migrationsWithModules(core, [base, withMigrations])).toEqual([core[0], first]);
  });

  it("lists a module's routes as data whose handlers refuse to run outside an instance", async () => {
    const route = moduleRoute<{ answer: number }>();
    const withRoutes = defineModule({
      name: "with-routes",
      services: () => ({ answer: 1 }),
      routes: [route({ method: "GET", path: "/api/v1/answer", summary: "The answer", access: publicAccess, handler: ({ module }) => module })],
    });
    const [listed] = routesOfModules([withRoutes]);
    expect(listed?.path).toBe("/api/v1/answer");
    expect(() => listed?.handler({} as never)).toThrow(/only by an instance that composes the with-routes module/);
  });

  it("gives a route's whenForbidden its module's services, as its handler", async () => {
    const route = moduleRoute<{ hidden: boolean }>();
    const concealing = defineModule({
      name: "concealing",
      services: () => ({ hidden: true }),
      routes: [
        route({
          method: "POST",
          path: "/api/v1/hidden",
          summary: "Something not everyone may see",
          access: permission(any("GroupSettings.Manage")),
          whenForbidden: async ({ module }) => {
            if (module.hidden) throw new KithError("request.not_found");
          },
          handler: () => ({}),
        }),
      ],
    });
    const [bound] = composeModules([concealing], { events: { on: () => undefined } } as never).routes;
    await expect(bound?.whenForbidden?.({} as never)).rejects.toMatchObject({ code: "request.not_found" });
    const [listed] = routesOfModules([concealing]);
    expect(() => listed?.whenForbidden?.({} as never)).toThrow(/only by an instance that composes the concealing module/);
  });
});

describe("a module's error codes and id kinds", () => {
  it("answers a module's code with its status, as a catalog code is", () => {
    const codes = defineErrorCodes({ "sample.too_late": { status: 409, message: "Too late" } });
    const error = new KithError(codes["sample.too_late"]);
    expect(isKithError(error)).toBe(true);
    expect(statusOf(error.code)).toBe(409);
    expect(error.message).toBe("Too late");
    expect(errorEntryOf("sample.unknown")).toBeUndefined();
  });

  it("refuses a code that the catalog or another module gives another meaning, and a code not <area>.<reason>", () => {
    expect(() => defineErrorCodes({ "account.not_found": { status: 410, message: "Gone" } })).toThrow(/already declared/);
    defineErrorCodes({ "sample.twice": { status: 400, message: "Twice" } });
    expect(() => defineErrorCodes({ "sample.twice": { status: 401, message: "Twice" } })).toThrow(/already declared/);
    expect(() => defineErrorCodes({ "sample.twice": { status: 400, message: "Twice" } })).not.toThrow();
    expect(() => defineErrorCodes({ NotACode: { status: 400, message: "No" } })).toThrow(/not <area>.<reason>/);
  });

  it("makes ids of a module's kind with its prefix, and refuses a prefix already taken", () => {
    const kinds = defineIdKinds({ sampleThing: "sx" });
    expect(prefixOf(kinds.sampleThing)).toBe("sx");
    expect(isId("sx_00000000000000000000000000", kinds.sampleThing)).toBe(isId("sx_00000000000000000000000000"));
    expect(() => defineIdKinds({ otherThing: "st" })).toThrow(/clashes/);
    expect(() => defineIdKinds({ otherThing: "sx" })).toThrow(/clashes/);
    expect(() => defineIdKinds({ status: "zz" })).toThrow(/clashes/);
    expect(() => defineIdKinds({ sampleThing: "sx" })).not.toThrow();
  });
});
