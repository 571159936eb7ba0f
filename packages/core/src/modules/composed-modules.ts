import type { InboxListenerSetters } from "@fedify/fedify";
import type { AnyRoute } from "../platform/http/route.js";
import type { FederationContextData } from "../platform/federation/federation-context-data.js";
import type { MigrationSpec } from "../ports/migration-spec.js";
import type { AnyModuleRoute, KithModule, ModuleContext, ModuleVocabulary } from "./module.js";

/** The modules of one instance, built: their services, their routes bound to them, their migrations, their lifecycle. */
export interface ComposedModules {
  /** Every module's routes, each handler given its module's services. */
  readonly routes: readonly AnyRoute[];
  /** The services of a composed module; throws for a module that is not. */
  use<S>(module: KithModule<string, S>): S;
  /** Sets the modules' inbox listeners, when the federation is built. */
  listen(inbox: InboxListenerSetters<FederationContextData>, vocab: ModuleVocabulary): void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Checks the list: names unique, each module after the ones it requires. */
export function checkModuleOrder(modules: readonly KithModule<string, unknown>[]): void {
  const seen = new Set<string>();
  for (const module of modules) {
    if (seen.has(module.name)) throw new Error(`Module ${module.name} is given twice`);
    for (const required of module.requires ?? []) {
      if (!seen.has(required.name)) throw new Error(`Module ${module.name} requires ${required.name}, which must come before it`);
    }
    seen.add(module.name);
  }
}

/**
 * The migrations of the modules, in their order, after the ones given (the
 * core's). The migrator refuses the list when a name repeats or does not sort
 * after the one before it: Kysely applies migrations in their names' order.
 */
export function migrationsWithModules(
  base: readonly MigrationSpec[],
  modules: readonly KithModule<string, unknown>[],
): readonly MigrationSpec[] {
  return [...base, ...modules.flatMap((module) => module.migrations ?? [])];
}

/**
 * The routes of the modules as data, for the reference and for tests that
 * walk every route. Their handlers are not bound to any instance: serve the
 * routes of a composed instance (`kith.routes`), not these.
 */
export function routesOfModules(modules: readonly KithModule<string, unknown>[]): readonly AnyRoute[] {
  return modules.flatMap((module) =>
    (module.routes ?? []).map(({ whenForbidden, ...route }) => ({
      ...route,
      ...(whenForbidden && {
        whenForbidden: () => {
          throw new Error(`The route ${route.method} ${route.path} is served only by an instance that composes the ${module.name} module`);
        },
      }),
      handler: () => {
        throw new Error(`The route ${route.method} ${route.path} is served only by an instance that composes the ${module.name} module`);
      },
    })),
  );
}

/**
 * Builds each module's services in order, registers their job workers and
 * event reactions, and binds their routes. Runs once, in `createKith`.
 */
export function composeModules(
  modules: readonly KithModule<string, unknown>[],
  context: Omit<ModuleContext, "use" | "modules">,
): ComposedModules {
  checkModuleOrder(modules);
  const built = new Map<string, unknown>();
  const use = <S>(module: KithModule<string, S>): S => {
    if (!built.has(module.name)) throw new Error(`Module ${module.name} is not composed before its use`);
    return built.get(module.name) as S;
  };
  const routes: AnyRoute[] = [];
  const repeating: { queue: string; everyMs: number }[] = [];
  for (const module of modules) {
    const services = module.services({ ...context, use, modules });
    built.set(module.name, services);
    for (const route of (module.routes ?? []) as readonly AnyModuleRoute<unknown>[]) {
      const { whenForbidden, ...rest } = route;
      routes.push({
        ...rest,
        ...(whenForbidden && { whenForbidden: (forbiddenContext) => whenForbidden({ ...forbiddenContext, module: services }) }),
        handler: (handlerContext) => route.handler({ ...handlerContext, module: services }),
      });
    }
    for (const job of module.jobs?.(services) ?? []) {
      context.deps.queue.handle(job.queue, job.handler, job.options);
      if (job.everyMs !== undefined) repeating.push({ queue: job.queue, everyMs: job.everyMs });
    }
    module.events?.(services, context.events);
  }
  return {
    routes,
    use,
    listen(inbox, vocab) {
      for (const module of modules) module.inbox?.(built.get(module.name), inbox, vocab);
    },
    async start() {
      for (const job of repeating) {
        await context.deps.queue.schedule({ name: job.queue, queue: job.queue, everyMs: job.everyMs, payload: {} });
      }
      for (const module of modules) await module.start?.(built.get(module.name));
    },
    async stop() {
      for (const module of [...modules].reverse()) await module.stop?.(built.get(module.name));
    },
  };
}
